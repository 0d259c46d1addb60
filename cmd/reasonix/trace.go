package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
)

type traceFlagSet struct {
	session *string
	asJSON  *bool
	cfgFile *string
}

func traceFlags(fs *flag.FlagSet) traceFlagSet {
	return traceFlagSet{
		session: fs.String("session", "", "the session to show (an id or a unique prefix) instead of the workspace's latest"),
		asJSON:  fs.Bool("json", false, "print the step records as they are stored, one JSON object a line"),
		cfgFile: fs.String("config", "", "read this config file too (for the workspace root)"),
	}
}

// traceCmd prints the last steps of a session: one line per model
// request attempt and per tool call.
func traceCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("trace")
	f := traceFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagError("trace", err, stdout, stderr)
	}
	n := 20
	switch {
	case len(pos) > 1:
		return usageError("trace", stderr, "unexpected argument %q", pos[1])
	case len(pos) == 1:
		if n, err = strconv.Atoi(pos[0]); err != nil || n < 1 {
			return usageError("trace", stderr, "N must be a positive number of steps, not %q", pos[0])
		}
	}
	home, err := config.Home()
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	st := &agent.Store{Dir: filepath.Join(home, "sessions")}
	id := *f.session
	if id == "" {
		id, err = latestSession(st, *f.cfgFile)
	} else {
		id, err = st.Resolve(id)
	}
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	steps, err := st.ReadSteps(id)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	total := len(steps)
	steps = steps[max(0, total-n):]
	if *f.asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range steps {
			enc.Encode(r)
		}
		return exitOK
	}
	if total == 0 {
		fmt.Fprintf(stdout, "Session %s has no step records (it ran before they were kept, or made no request).\n", id)
		return exitOK
	}
	fmt.Fprintf(stdout, "Session %s: the last %d of %d steps\n\n", id, len(steps), total)
	width := outputWidth(stdout)
	if width == 0 {
		printTrace(stdout, steps)
		return exitOK
	}
	var full strings.Builder
	printTrace(&full, steps)
	if widest(full.String()) <= width {
		io.WriteString(stdout, full.String())
	} else {
		printTraceFitted(stdout, width, steps)
	}
	return exitOK
}

// latestSession is the most recently updated session of the current
// directory's workspace.
func latestSession(st *agent.Store, cfgFile string) (string, error) {
	dir, cfg, err := readConfig(cfgFile)
	if err != nil {
		return "", err
	}
	root, err := agent.WorkspaceRoot(cfg, dir)
	if err != nil {
		return "", err
	}
	list, err := st.List()
	if err != nil {
		return "", err
	}
	for _, s := range list {
		if s.Root == root {
			return s.ID, nil
		}
	}
	return "", errors.New("no session of this workspace (" + root + "); name one with --session ID (see reasonix sessions)")
}

// A traceStep is what trace says of one step, in full and in short.
type traceStep struct {
	time      time.Time
	where     string // turn.step, and the task's name
	kind      string // req or tool
	what      string // the model asked or the call made
	size      string // the request's messages and bytes, or the result's bytes
	sizeShort string
	in, out   string // tokens
	cache     string // the prompt's cache hit ratio
	cost      string
	latency   string
	ttft      string
	outcome   string // how it ended, with the error
	ended     string // how it ended, in a word or two
}

// describeStep renders the figures of one step record.
func describeStep(r agent.StepRecord) traceStep {
	s := traceStep{time: r.Time.Local(), where: fmt.Sprintf("%d.%d", r.Turn, r.Step), latency: millis(r.LatencyMs)}
	if r.Task != "" {
		s.where += " " + r.Task
	}
	switch r.Kind {
	case agent.StepRequest:
		s.kind, s.what = "req", requestTitle(r)
		s.sizeShort = byteSize(r.Bytes)
		s.size = fmt.Sprintf("%d msgs %s", r.Messages, s.sizeShort)
		if u := r.Usage; u != nil {
			s.in, s.out = agent.FormatTokens(u.PromptTokens), agent.FormatTokens(u.CompletionTokens)
			s.cache = fmt.Sprintf("%.0f%%", 100*u.HitRatio())
			if r.Cost > 0 { // zero: a model with no known price
				s.cost = fmt.Sprintf("$%.4f", r.Cost)
			}
		}
		if r.TTFTMs > 0 {
			s.ttft = millis(r.TTFTMs)
		}
		switch {
		case r.Retry != "":
			s.outcome, s.ended = "retried ("+r.Retry+"): "+oneLine(r.Error), "retried "+r.Retry
		case r.Error != "":
			s.outcome, s.ended = "failed: "+oneLine(r.Error), "failed"
		default:
			s.outcome, s.ended = r.Finish, r.Finish
		}
	default:
		s.kind, s.what = "tool", agent.DescribeCall(r.Tool, r.Arguments)
		s.size = "→ " + byteSize(r.ResultBytes)
		s.sizeShort = s.size
		s.latency = millis(r.DurationMs)
		switch {
		case r.Denied:
			s.outcome, s.ended = "denied", "denied"
		case r.Error != "":
			// A tool's result often says "Error: " itself.
			s.outcome, s.ended = "error: "+oneLine(strings.TrimPrefix(r.Error, "Error: ")), "error"
		default:
			s.outcome, s.ended = "ok", "ok"
		}
	}
	return s
}

// printTrace writes one aligned line per step: when, where in the
// session, what, its size, its tokens, how long it took and how it
// ended.
func printTrace(w io.Writer, steps []agent.StepRecord) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tTURN.STEP\tWHAT\tSIZE\tTOKENS\tCOST\tLATENCY\tTTFT\tOUTCOME")
	for _, r := range steps {
		s := describeStep(r)
		var toks string
		if s.in != "" {
			toks = fmt.Sprintf("%s in (%s hit) + %s out", s.in, s.cache, s.out)
		}
		// The session file holds what the model and the tools wrote.
		fmt.Fprint(tw, shown(fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.time.Format("01-02 15:04:05"),
			s.where, s.what, s.size, toks, s.cost, s.latency, s.ttft, s.outcome)))
	}
	tw.Flush()
}

// traceColumns are the columns of trace on a terminal too narrow for
// its full rows. When they are still too wide, they go in this order:
//
//	1 SIZE     what was sent or what came back
//	2 TTFT     the time to the first token
//	3 TIME     when (the step numbers order the rows already)
//	4 OUTCOME  how the step ended, in a word or two
//
// STEP, KIND, IN, OUT, CACHE, COST and LAT stay; TITLE, the model asked
// or the call made, takes the width left and is cut with ….
var traceColumns = []fitColumn{
	{header: "TIME", drop: 3},
	{header: "STEP"},
	{header: "KIND"},
	{header: "TITLE", flex: true},
	{header: "SIZE", drop: 1},
	{header: "IN", right: true},
	{header: "OUT", right: true},
	{header: "CACHE", right: true},
	{header: "COST", right: true},
	{header: "LAT", right: true},
	{header: "TTFT", drop: 2, right: true},
	{header: "OUTCOME", drop: 4},
}

// printTraceFitted writes the steps as printTrace does, in at most width
// columns: shorter headers and cells, and the traceColumns that do not
// fit left out.
func printTraceFitted(w io.Writer, width int, steps []agent.StepRecord) {
	rows := make([][]string, 0, len(steps))
	for _, r := range steps {
		s := describeStep(r)
		rows = append(rows, []string{s.time.Format("15:04:05"), s.where, s.kind, s.what,
			s.sizeShort, s.in, s.out, s.cache, s.cost, s.latency, s.ttft, s.ended})
	}
	fitTable(w, width, traceColumns, rows)
}

// requestTitle names a model request: the model, the attempt and why it
// was made when not for the turn itself.
func requestTitle(r agent.StepRecord) string {
	title := r.Model + " #" + strconv.Itoa(r.Attempt)
	if r.Purpose != "" {
		title += " (" + r.Purpose + ")"
	}
	return title
}

// widest is the display width of the widest line of text.
func widest(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		n = max(n, displayWidth(strings.TrimSuffix(line, "\n")))
	}
	return n
}

// millis renders a duration in milliseconds: 340ms, 1.2s.
func millis(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

// byteSize renders a size: 950 B, 3.4 KB, 1.2 MB.
func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// oneLine shortens an error to one line for a table.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}
