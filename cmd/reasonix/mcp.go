package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/mcp"
)

// mcpCmd is `reasonix mcp list`: it starts the configured MCP servers as a
// session would, reports what each offers or why it failed, and stops
// them. It needs no model and no API key.
func mcpCmd(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help"):
		commandUsage(stdout, "mcp list")
		return exitOK
	case len(args) == 0:
		return usageError("mcp list", stderr, "a subcommand is required")
	case args[0] != "list":
		return usageError("mcp list", stderr, "unknown subcommand %q", args[0])
	}
	fs := newFlagSet("mcp list")
	f := mcpListFlags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return flagError("mcp list", err, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return usageError("mcp list", stderr, "unexpected argument %q", fs.Arg(0))
	}
	dir, cfg, err := loadConfig(*f.cfgFile, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := agent.StartPlugins(ctx, cfg, dir, version, func(w string) {
		fmt.Fprintf(stderr, "reasonix: warning: %s\n", w)
	})
	defer m.Close()
	st := m.Status()
	if *f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if st == nil {
			st = []mcp.Status{}
		}
		enc.Encode(map[string]any{"servers": st})
	} else {
		fmt.Fprintln(stdout, agent.PluginStatus(m))
		if *f.verbose {
			if d := agent.PluginDetails(m); d != "" {
				fmt.Fprintln(stdout, d)
			}
		}
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
