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
	if len(args) == 0 || args[0] != "list" {
		fmt.Fprintln(stderr, "usage: reasonix mcp list [--verbose] [--json] [--config FILE]")
		return 2
	}
	fs := flag.NewFlagSet("mcp list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	verbose := fs.Bool("verbose", false, "list each server's tools, prompts and resources")
	cfgFile := fs.String("config", "", "a config file above ./reasonix.toml and the user config")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	dir, cfg, err := loadConfig(*cfgFile, stderr)
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
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		st := m.Status()
		if st == nil {
			st = []mcp.Status{}
		}
		enc.Encode(map[string]any{"servers": st})
		return exitOK
	}
	fmt.Fprintln(stdout, agent.PluginStatus(m))
	if *verbose {
		if d := agent.PluginDetails(m); d != "" {
			fmt.Fprintln(stdout, d)
		}
	}
	return exitOK
}
