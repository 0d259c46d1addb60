package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
)

func sessionsCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sessions")
	asJSON := sessionsFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flagError("sessions", err, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return usageError("sessions", stderr, "unexpected argument %q", fs.Arg(0))
	}
	home, err := config.Home()
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return 1
	}
	st := &agent.Store{Dir: filepath.Join(home, "sessions")}
	list, err := st.List()
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if list == nil {
			list = []agent.Summary{}
		}
		enc.Encode(list)
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintf(stdout, "No sessions yet in %s.\n", st.Dir)
		return 0
	}
	if width := outputWidth(stdout); width > 0 {
		rows := make([][]string, 0, len(list))
		for _, s := range list {
			rows = append(rows, []string{s.ID, ago(s.Updated), strconv.Itoa(s.Turns), fmt.Sprintf("$%.4f", s.Cost), s.Root, s.Title})
		}
		fitTable(stdout, width, sessionColumns, rows)
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUPDATED\tTURNS\tCOST\tDIRECTORY\tFIRST PROMPT")
		for _, s := range list {
			// A session file is text anyone could have written.
			fmt.Fprint(tw, shown(fmt.Sprintf("%s\t%s\t%d\t$%.4f\t%s\t%s\n", s.ID, ago(s.Updated), s.Turns, s.Cost, s.Root, s.Title)))
		}
		tw.Flush()
	}
	fmt.Fprintln(stdout, "\nResume one with: reasonix run --resume ID \"next instruction\"")
	return 0
}

// sessionColumns are the columns of reasonix sessions on a terminal.
// Too wide, DIRECTORY goes first, then TURNS; the first prompt takes the
// width left and is cut with …. The ID stays whole: resuming needs it.
var sessionColumns = []fitColumn{
	{header: "ID"},
	{header: "UPDATED"},
	{header: "TURNS", drop: 2, right: true},
	{header: "COST", right: true},
	{header: "DIRECTORY", drop: 1},
	{header: "FIRST PROMPT", flex: true},
}

func sessionsFlags(fs *flag.FlagSet) (asJSON *bool) {
	return fs.Bool("json", false, "print JSON: id, created, updated, root, model, title, turns, messages, cost")
}

// ago renders a past time relative to now, coarsely.
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Format("2006-01-02")
}
