package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
)

type statsFlagSet struct {
	days    *int
	asJSON  *bool
	cfgFile *string
}

func statsFlags(fs *flag.FlagSet) statsFlagSet {
	return statsFlagSet{
		days:    fs.Int("days", 30, "count the last N days, today included; 0 counts everything"),
		asJSON:  fs.Bool("json", false, "print JSON: sessions, counted, models, days, total, latency_histogram"),
		cfgFile: fs.String("config", "", "read this config file too (for the prices)"),
	}
}

// statsCmd rolls up the step records of every saved session, of every
// workspace, per model and per day.
func statsCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("stats")
	f := statsFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flagError("stats", err, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return usageError("stats", stderr, "unexpected argument %q", fs.Arg(0))
	}
	if *f.days < 0 {
		return usageError("stats", stderr, "--days must be 0 (everything) or more, not %d", *f.days)
	}
	_, cfg, err := readConfig(*f.cfgFile)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	home, err := config.Home()
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	st := &agent.Store{Dir: filepath.Join(home, "sessions")}
	rep, err := collectStats(st, cfg, since(time.Now(), *f.days))
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	rep.Days = *f.days
	if *f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
		return exitOK
	}
	printStats(stdout, outputWidth(stdout), rep)
	return exitOK
}

// readConfig reads the configuration of the current directory, with
// file (if any) above the project's, for a command that starts no
// session: nothing in it is reviewed.
func readConfig(file string) (dir string, cfg *config.Config, err error) {
	if dir, err = os.Getwd(); err != nil {
		return "", nil, err
	}
	cfg, err = config.Load(config.Options{Dir: dir, File: file})
	return dir, cfg, err
}

// since is the start of the window of the last days days ending today,
// in local time; the zero time for days 0 (everything).
func since(now time.Time, days int) time.Time {
	if days == 0 {
		return time.Time{}
	}
	y, m, d := now.Date()
	return time.Date(y, m, d-(days-1), 0, 0, 0, 0, now.Location())
}

// statsReport is what `reasonix stats` reports; its JSON is the --json
// output.
type statsReport struct {
	Dir  string `json:"dir"`
	Days int    `json:"days"`
	// Sessions counts the sessions with anything in the window;
	// WithSteps those with step records; FromSessionFiles those whose
	// tokens (all, or those of requests made before step records were
	// kept) come from the usage records of their session file.
	Sessions         int        `json:"sessions"`
	WithSteps        int        `json:"with_steps"`
	FromSessionFiles int        `json:"from_session_files"`
	Counted          string     `json:"counted"`
	Models           []*rollup  `json:"models"`
	ByDay            []*rollup  `json:"by_day"`
	Total            *rollup    `json:"total"`
	Histogram        []bucket   `json:"latency_histogram"`
	prices           priceCache // the price of each model reference
}

// rollup is the figures of one model, one day, or all of them.
type rollup struct {
	Key      string `json:"key"`
	Requests int    `json:"requests"`
	// Retries counts the attempts that failed and were sent again,
	// Timeouts those of them that timed out, Failed the requests that
	// failed for good.
	Retries          int     `json:"retries"`
	Timeouts         int     `json:"timeouts"`
	Failed           int     `json:"failed"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CacheHitTokens   int     `json:"cache_hit_tokens"`
	CacheMissTokens  int     `json:"cache_miss_tokens"`
	CacheHitRatio    float64 `json:"cache_hit_ratio"`
	Cost             float64 `json:"cost"`
	// Unpriced counts the tokens of models with no known price, whose
	// cost is not in Cost.
	Unpriced int `json:"unpriced_tokens,omitempty"`
	// FileTokens counts the tokens taken from session files, of
	// requests no step record describes.
	FileTokens int        `json:"file_tokens,omitempty"`
	LatencyMs  percentile `json:"latency_ms"`
	TTFTMs     percentile `json:"ttft_ms"`

	latencies, ttfts []int64
}

// percentile holds the percentiles of a set of durations in ms; zero
// when the set is empty.
type percentile struct {
	P50 int64 `json:"p50"`
	P95 int64 `json:"p95"`
	P99 int64 `json:"p99,omitempty"`
}

type bucket struct {
	Label string `json:"label"`
	Below int64  `json:"below_ms,omitempty"` // 0 for the last, open bucket
	Count int    `json:"count"`
}

// priceCache finds the price of a model reference in the configuration.
type priceCache map[string]*config.Price

func (c priceCache) of(cfg *config.Config, ref string) *config.Price {
	if p, ok := c[ref]; ok {
		return p
	}
	var p *config.Price
	if res, err := cfg.ResolveModel(ref); err == nil {
		if pr, ok := res.Provider.PriceOf(res.Model); ok {
			p = &pr
		}
	}
	c[ref] = p
	return p
}

// usageCost prices usage u that a session recorded as costing recorded:
// what it cost when it ran, at the prices then in force, is what the
// session's turns and `reasonix sessions` count, so it is the cost here
// too. Only usage that recorded no cost (records from before costs were
// kept, a model priced since) is priced now with price, the current
// configuration's; with neither, it is unpriced. Pricing by the current
// configuration alone showed a session of another workspace, whose
// provider this one does not configure, as unpriced.
func usageCost(u provider.Usage, recorded float64, price *config.Price) (cost float64, priced bool) {
	switch {
	case recorded > 0:
		return recorded, true
	case price != nil:
		return price.Cost(u.CacheHitTokens, u.CacheMissTokens, u.CompletionTokens), true
	}
	return 0, false
}

func (r *rollup) addUsage(u provider.Usage, recorded float64, price *config.Price) {
	r.PromptTokens += u.PromptTokens
	r.CompletionTokens += u.CompletionTokens
	r.CacheHitTokens += u.CacheHitTokens
	r.CacheMissTokens += u.CacheMissTokens
	cost, priced := usageCost(u, recorded, price)
	if !priced {
		r.Unpriced += u.Total()
		return
	}
	r.Cost += cost
}

// addStep counts one request attempt.
func (r *rollup) addStep(s agent.StepRecord, price *config.Price) {
	switch {
	case s.Retry != "":
		r.Retries++
		if s.Retry == provider.RetryTimeout {
			r.Timeouts++
		}
		return
	case s.Error != "" || s.Usage == nil:
		r.Requests++
		r.Failed++
		return
	}
	r.Requests++
	r.addUsage(*s.Usage, s.Cost, price)
	r.latencies = append(r.latencies, s.LatencyMs)
	if s.TTFTMs > 0 {
		r.ttfts = append(r.ttfts, s.TTFTMs)
	}
}

// finish computes the ratios and percentiles.
func (r *rollup) finish() {
	if n := r.CacheHitTokens + r.CacheMissTokens; n > 0 {
		r.CacheHitRatio = math.Round(1e4*float64(r.CacheHitTokens)/float64(n)) / 1e4
	}
	r.Cost = math.Round(r.Cost*1e9) / 1e9 // no float noise in the JSON
	r.LatencyMs = percentiles(r.latencies, true)
	r.TTFTMs = percentiles(r.ttfts, false)
}

// percentiles computes P50, P95 and (with p99) P99 by nearest rank.
func percentiles(v []int64, p99 bool) percentile {
	if len(v) == 0 {
		return percentile{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	rank := func(p float64) int64 { return s[max(0, int(math.Ceil(p/100*float64(len(s))))-1)] }
	out := percentile{P50: rank(50), P95: rank(95)}
	if p99 {
		out.P99 = rank(99)
	}
	return out
}

// latencyBuckets are the upper bounds of the histogram's buckets.
var latencyBuckets = []int64{250, 500, 1000, 2000, 5000, 10000, 30000}

// collectStats reads every session of st with anything from from on.
func collectStats(st *agent.Store, cfg *config.Config, from time.Time) (*statsReport, error) {
	rep := &statsReport{Dir: st.Dir, Total: &rollup{Key: "total"}, prices: priceCache{}}
	models, days := map[string]*rollup{}, map[string]*rollup{}
	get := func(m map[string]*rollup, key string) *rollup {
		if m[key] == nil {
			m[key] = &rollup{Key: key}
		}
		return m[key]
	}
	list, err := st.List()
	if err != nil {
		return nil, err
	}
	for _, s := range list {
		steps, err := st.ReadSteps(s.ID)
		if err != nil {
			return nil, err
		}
		counted := false
		var recorded provider.Usage
		var recordedCost float64
		for _, r := range steps {
			if r.Kind != agent.StepRequest {
				continue
			}
			if r.Usage != nil && r.Retry == "" && r.Error == "" {
				recorded.Add(*r.Usage)
				recordedCost += r.Cost
			}
			if r.Time.Before(from) {
				continue
			}
			counted = true
			price := rep.prices.of(cfg, r.Model)
			day := r.Time.Local().Format(time.DateOnly)
			for _, ro := range []*rollup{get(models, r.Model), get(days, day), rep.Total} {
				ro.addStep(r, price)
			}
		}
		if counted {
			rep.WithSteps++
		}
		// What the session file counts beyond the step records: a
		// session from before they were kept, or the part of one
		// resumed since.
		l, err := st.Load(s.ID)
		if err != nil {
			continue
		}
		rest := l.Usage
		rest.PromptTokens -= recorded.PromptTokens
		rest.CompletionTokens -= recorded.CompletionTokens
		rest.CacheHitTokens -= recorded.CacheHitTokens
		rest.CacheMissTokens -= recorded.CacheMissTokens
		if rest.PromptTokens > 0 || rest.CompletionTokens > 0 {
			if !l.Meta.Created.Before(from) {
				price := rep.prices.of(cfg, l.Meta.Model)
				day := l.Meta.Created.Local().Format(time.DateOnly)
				for _, ro := range []*rollup{get(models, l.Meta.Model), get(days, day), rep.Total} {
					ro.addUsage(rest, max(0, l.Cost-recordedCost), price)
					ro.FileTokens += rest.Total()
				}
				rep.FromSessionFiles++
				counted = true
			}
		}
		if counted {
			rep.Sessions++
		}
	}
	rep.Models, rep.ByDay = sorted(models), sorted(days)
	rep.Total.finish()
	rep.Histogram = histogram(rep.Total.latencies)
	rep.Counted = counted(rep)
	return rep, nil
}

// sorted finishes the rollups of m and returns them in key order.
func sorted(m map[string]*rollup) []*rollup {
	out := make([]*rollup, 0, len(m))
	for _, r := range m {
		r.finish()
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *rollup) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// histogram counts latencies into latencyBuckets.
func histogram(lat []int64) []bucket {
	out := make([]bucket, len(latencyBuckets)+1)
	prev := int64(0)
	for i, b := range latencyBuckets {
		out[i] = bucket{Label: millis(prev) + "–" + millis(b), Below: b}
		if i == 0 {
			out[i].Label = "< " + millis(b)
		}
		prev = b
	}
	out[len(latencyBuckets)] = bucket{Label: "≥ " + millis(prev)}
	for _, l := range lat {
		i, _ := slices.BinarySearch(latencyBuckets, l+1)
		out[i].Count++
	}
	return out
}

// counted says in a sentence what the figures count.
func counted(rep *statsReport) string {
	s := fmt.Sprintf("%s: %d with step records (requests, retries, latency, tokens, cost at the configured prices)", plural(rep.Sessions, "session"), rep.WithSteps)
	if rep.FromSessionFiles > 0 {
		s += fmt.Sprintf(", %d counted from the usage in their session files (tokens and cost only, under the session's model)", rep.FromSessionFiles)
	}
	return s
}

// statsColumns are the columns of a stats table too wide for the
// terminal. Too wide still, TIMEOUTS go first, then TTFT, RETRIES and
// the latency percentiles (the histogram below has the latency too).
var statsColumns = []fitColumn{
	{},
	{header: "REQUESTS", right: true},
	{header: "RETRIES", drop: 3, right: true},
	{header: "TIMEOUTS", drop: 1, right: true},
	{header: "PROMPT", right: true},
	{header: "CACHE HIT", right: true},
	{header: "OUTPUT", right: true},
	{header: "COST", right: true},
	{header: "LATENCY P50/P95/P99", drop: 4, right: true},
	{header: "TTFT P50/P95", drop: 2, right: true},
}

// printStats writes the report as tables and a histogram, the tables in
// at most columns wide unless columns is 0.
func printStats(w io.Writer, columns int, rep *statsReport) {
	window := "all days"
	if rep.Days > 0 {
		window = fmt.Sprintf("the last %d days", rep.Days)
	}
	fmt.Fprintf(w, "Usage over %s, from %s\n%s.\n", window, rep.Dir, rep.Counted)
	if rep.Sessions == 0 {
		return
	}
	table := func(title string, rolls []*rollup) {
		fmt.Fprintln(w)
		// The first column reads left to right, the figures align on
		// their last digit.
		width := len(title)
		for _, r := range rolls {
			width = max(width, len(r.Key))
		}
		var rows [][]string
		for _, r := range append(rolls, rep.Total) {
			cost := fmt.Sprintf("$%.4f", r.Cost)
			switch {
			case r.Unpriced > 0 && r.Cost == 0:
				cost = "—*" // nothing here has a price: not free, unknown
			case r.Unpriced > 0:
				cost += "*"
			}
			lat, ttft := "—", "—"
			if len(r.latencies) > 0 {
				lat = millis(r.LatencyMs.P50) + "/" + millis(r.LatencyMs.P95) + "/" + millis(r.LatencyMs.P99)
			}
			if len(r.ttfts) > 0 {
				ttft = millis(r.TTFTMs.P50) + "/" + millis(r.TTFTMs.P95)
			}
			hit := provider.Usage{CacheHitTokens: r.CacheHitTokens, CacheMissTokens: r.CacheMissTokens}.HitRatio()
			rows = append(rows, []string{r.Key, strconv.Itoa(r.Requests), strconv.Itoa(r.Retries), strconv.Itoa(r.Timeouts),
				agent.FormatTokens(r.PromptTokens), fmt.Sprintf("%.1f%%", 100*hit), agent.FormatTokens(r.CompletionTokens), cost, lat, ttft})
		}
		var full strings.Builder
		tw := tabwriter.NewWriter(&full, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%-*s\tREQUESTS\tRETRIES\tTIMEOUTS\tPROMPT\tCACHE HIT\tOUTPUT\tCOST\tLATENCY P50/P95/P99\tTTFT P50/P95\t\n", width, title)
		for _, row := range rows {
			// Model names come from session files.
			fmt.Fprintf(tw, "%-*s\t%s\t\n", width, shown(row[0]), strings.Join(row[1:], "\t"))
		}
		tw.Flush()
		if columns == 0 || widest(full.String()) <= columns {
			io.WriteString(w, full.String())
			return
		}
		cols := slices.Clone(statsColumns)
		cols[0].header = title
		fitTable(w, columns, cols, rows)
	}
	table("MODEL", rep.Models)
	table("DAY", rep.ByDay)
	if rep.Total.Unpriced > 0 {
		fmt.Fprintf(w, "* %s tokens of models with no known price are not in the cost.\n", agent.FormatTokens(rep.Total.Unpriced))
	}
	if rep.Total.FileTokens > 0 {
		fmt.Fprintf(w, "%s tokens come from session files without step records: no requests, retries or latency for them.\n", agent.FormatTokens(rep.Total.FileTokens))
	}
	if len(rep.Total.latencies) == 0 {
		return
	}
	fmt.Fprintf(w, "\nLatency of %d answered requests\n", len(rep.Total.latencies))
	most := 0
	for _, b := range rep.Histogram {
		most = max(most, b.Count)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, b := range rep.Histogram {
		bar := strings.Repeat("█", (b.Count*30+most-1)/most)
		fmt.Fprintf(tw, "  %s\t%s %d\n", b.Label, bar, b.Count)
	}
	tw.Flush()
}
