package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/memory"
)

// memoryOptions are the flags of `reasonix memory`.
type memoryOptions struct {
	asJSON, archived *bool
	cfgFile          *string
}

func memoryFlags(fs *flag.FlagSet) *memoryOptions {
	return &memoryOptions{
		asJSON:   fs.Bool("json", false, "print JSON: dirs, and notes with scope, name, description, path, archived, updated, content"),
		archived: fs.Bool("archived", false, "also list the notes forget archived"),
		cfgFile:  fs.String("config", "", configFlagUsage),
	}
}

// memoryResult is what `reasonix memory --json` prints.
type memoryResult struct {
	// Dirs are where each scope's notes live.
	Dirs  map[memory.Scope]string `json:"dirs"`
	Notes []memory.Entry          `json:"notes"`
}

// memoryCmd lists what the agent remembers for the current directory's
// workspace and for the user: the notes a session there starts with.
func memoryCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("memory")
	f := memoryFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flagError("memory", err, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return usageError("memory", stderr, "unexpected argument %q", fs.Arg(0))
	}
	// Listing is not a session: the configuration is read for the
	// workspace root and forbid_read, not reviewed.
	dir, cfg, err := readConfig(*f.cfgFile)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	printWarnings(stderr, cfg.Warnings)
	store, err := agent.OpenMemory(cfg, dir)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	notes, err := store.List(*f.archived)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: warning: %s\n", shown(err.Error())) // it may quote a note file
	}
	if *f.asJSON {
		if notes == nil {
			notes = []memory.Entry{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(memoryResult{Dirs: store.Dirs, Notes: notes})
		return exitOK
	}
	if len(notes) == 0 {
		fmt.Fprintln(stdout, "No notes yet.")
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NOTE\tUPDATED\tDESCRIPTION")
		for _, e := range notes {
			id := e.ID()
			if e.Archived {
				id += " (archived)"
			}
			// A note a repository committed may hold escape sequences:
			// shown, not sent to the terminal.
			fmt.Fprintf(tw, "%s\t%s\t%s\n", shown(id), ago(e.Updated), shown(e.Description))
		}
		tw.Flush()
	}
	fmt.Fprintf(stdout, "\nProject notes: %s\nYour notes:    %s\n", store.Dirs[memory.Project], store.Dirs[memory.User])
	return exitOK
}
