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
	printTrace(stdout, steps)
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

// printTrace writes one aligned line per step: when, where in the
// session, what, its size, its tokens, how long it took and how it
// ended.
func printTrace(w io.Writer, steps []agent.StepRecord) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tTURN.STEP\tWHAT\tSIZE\tTOKENS\tCOST\tLATENCY\tTTFT\tOUTCOME")
	for _, r := range steps {
		where := fmt.Sprintf("%d.%d", r.Turn, r.Step)
		if r.Task != "" {
			where += " " + r.Task
		}
		var what, size, toks, cost, ttft, outcome string
		latency := millis(r.LatencyMs)
		switch r.Kind {
		case agent.StepRequest:
			what = r.Model + " #" + strconv.Itoa(r.Attempt)
			if r.Purpose != "" {
				what += " (" + r.Purpose + ")"
			}
			size = fmt.Sprintf("%d msgs %s", r.Messages, byteSize(r.Bytes))
			if u := r.Usage; u != nil {
				toks = fmt.Sprintf("%s in (%.0f%% hit) + %s out", agent.FormatTokens(u.PromptTokens), 100*u.HitRatio(), agent.FormatTokens(u.CompletionTokens))
				if r.Cost > 0 { // zero: a model with no known price
					cost = fmt.Sprintf("$%.4f", r.Cost)
				}
			}
			if r.TTFTMs > 0 {
				ttft = millis(r.TTFTMs)
			}
			switch {
			case r.Retry != "":
				outcome = "retried (" + r.Retry + "): " + oneLine(r.Error)
			case r.Error != "":
				outcome = "failed: " + oneLine(r.Error)
			default:
				outcome = r.Finish
			}
		default:
			what = agent.DescribeCall(r.Tool, r.Arguments)
			size = "→ " + byteSize(r.ResultBytes)
			latency = millis(r.DurationMs)
			switch {
			case r.Denied:
				outcome = "denied"
			case r.Error != "":
				// A tool's result often says "Error: " itself.
				outcome = "error: " + oneLine(strings.TrimPrefix(r.Error, "Error: "))
			default:
				outcome = "ok"
			}
		}
		// The session file holds what the model and the tools wrote.
		fmt.Fprint(tw, shown(fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Time.Local().Format("01-02 15:04:05"),
			where, what, size, toks, cost, latency, ttft, outcome)))
	}
	tw.Flush()
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
