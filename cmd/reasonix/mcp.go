package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/mcp"
)

// mcpCmd is `reasonix mcp list`: it starts the configured MCP servers as a
// session would, reports what each offers or why it failed, and stops
// them. It needs no model and no API key. It fails (exit 1) when a
// configured server could not start, so a script can check its set-up.
func mcpCmd(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help"):
		commandUsage(stdout, "mcp list")
		return exitOK
	case len(args) == 0:
		return usageError("mcp list", stderr, "a subcommand is required")
	case args[0] == "login":
		return mcpLoginCmd(args[1:], stdout, stderr)
	case args[0] == "logout":
		return mcpLogoutCmd(args[1:], stdout, stderr)
	case args[0] != "list":
		return usageError("mcp list", stderr, "unknown subcommand %q%s", args[0], didYouMean(args[0], []string{"list", "login", "logout"}, "%q"))
	}
	fs := newFlagSet("mcp list")
	f := mcpListFlags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return flagError("mcp list", err, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return usageError("mcp list", stderr, "unexpected argument %q", fs.Arg(0))
	}
	dir, cfg, err := loadConfig(*f.cfgFile, "", stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var warnings []string
	m := agent.StartPlugins(ctx, cfg, dir, version, nil, func(w string) { warnings = append(warnings, w) })
	defer m.Close()
	// A server that failed to start is a row of the report, with its
	// reason; the same failure as a warning would say it twice.
	for _, w := range warnings {
		if !slices.Contains(m.Warnings(), w) {
			fmt.Fprintf(stderr, "reasonix: warning: %s\n", shown(w))
		}
	}
	st := m.Status()
	if *f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if st == nil {
			st = []mcp.Status{}
		}
		enc.Encode(map[string]any{"servers": st})
	} else {
		// The servers' names for themselves, their tools and their
		// errors are theirs: shown, not obeyed.
		fmt.Fprintln(stdout, shown(agent.PluginStatus(m)))
		if *f.verbose {
			if d := agent.PluginDetails(m); d != "" {
				fmt.Fprintln(stdout, shown(d))
			}
		}
	}
	if ctx.Err() != nil {
		return exitInterrupted
	}
	if slices.ContainsFunc(st, func(s mcp.Status) bool { return s.State == "failed" }) {
		return exitError
	}
	return exitOK
}

type mcpListOptions struct {
	asJSON, verbose *bool
	cfgFile         *string
}

func mcpListFlags(fs *flag.FlagSet) *mcpListOptions {
	return &mcpListOptions{
		verbose: fs.Bool("verbose", false, "also list each server's tools, prompts and resources"),
		asJSON:  fs.Bool("json", false, "print JSON: {\"servers\": [{name, transport, state, error, tools, prompts, resources}]}"),
		cfgFile: fs.String("config", "", configFlagUsage),
	}
}
