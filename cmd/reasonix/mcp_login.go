package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/tools/mcp"
)

// mcpLoginCmd is `reasonix mcp login NAME`: it connects to the named HTTP
// server as a session would, signing in if the server wants it (the page
// opens in $BROWSER, and its address is printed), and keeps the sign-in
// for later runs. A server already signed in just connects.
func mcpLoginCmd(args []string, stdout, stderr io.Writer) int {
	dir, cfg, p, code := namedPlugin("mcp login", args, stdout, stderr)
	if p == nil {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	one := *cfg
	one.Plugins = []config.PluginConfig{*p}
	m := agent.StartPlugins(ctx, &one, dir, version, browserOpener(stderr), func(string) {})
	defer m.Close()
	st := m.Status()[0]
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case st.State != "connected":
		fmt.Fprintf(stderr, "reasonix: MCP server %q: %s\n", p.Name, shown(st.Error))
		return exitError
	}
	fmt.Fprintf(stdout, "Signed in to MCP server %q (%s).\n", p.Name, shown(p.URL))
	return exitOK
}

// mcpLogoutCmd is `reasonix mcp logout NAME`: it forgets the sign-in
// kept for the named server's URL.
func mcpLogoutCmd(args []string, stdout, stderr io.Writer) int {
	dir, cfg, p, code := namedPlugin("mcp logout", args, stdout, stderr)
	if p == nil {
		return code
	}
	expanded, _ := cfg.ExpandedPlugins(dir)
	for _, q := range expanded {
		if q.Name != p.Name {
			continue
		}
		had, err := mcp.SignOut(agent.MCPAuthDir(), q.URL)
		if err != nil {
			fmt.Fprintf(stderr, "reasonix: %v\n", err)
			return exitError
		}
		if had {
			fmt.Fprintf(stdout, "Signed out of MCP server %q.\n", p.Name)
		} else {
			fmt.Fprintf(stdout, "MCP server %q was not signed in.\n", p.Name)
		}
	}
	return exitOK
}

// namedPlugin parses `reasonix <name> [--config FILE] NAME` and returns
// the configuration and its HTTP plugin NAME; a nil plugin comes with the
// exit code.
func namedPlugin(name string, args []string, stdout, stderr io.Writer) (string, *config.Config, *config.PluginConfig, int) {
	fs := newFlagSet(name)
	cfgFile := fs.String("config", "", configFlagUsage)
	if err := fs.Parse(args); err != nil {
		return "", nil, nil, flagError(name, err, stdout, stderr)
	}
	if fs.NArg() != 1 {
		return "", nil, nil, usageError(name, stderr, "one server name is required")
	}
	server := fs.Arg(0)
	dir, cfg, err := loadConfig(*cfgFile, "", stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return "", nil, nil, exitError
	}
	var names []string
	for i, p := range cfg.Plugins {
		if p.Name != server {
			names = append(names, p.Name)
			continue
		}
		if p.Transport() != "http" {
			fmt.Fprintf(stderr, "reasonix: MCP server %q is not a streamable-HTTP server (type = \"http\"); only those sign in\n", server)
			return "", nil, nil, exitError
		}
		return dir, cfg, &cfg.Plugins[i], exitOK
	}
	fmt.Fprintf(stderr, "reasonix: no MCP server named %q is configured%s\n", shown(server), didYouMean(server, names, "%q"))
	return "", nil, nil, exitError
}

// browserOpener shows an authorization page: it prints the page's address
// on stderr, so that a user may open it on another machine, and starts
// $BROWSER on it when set.
func browserOpener(stderr io.Writer) mcp.Opener {
	return func(_ context.Context, server, authURL string) error {
		fmt.Fprintf(stderr, "reasonix: MCP server %q wants you to sign in; open this page to do so:\n  %s\n", shown(server), shown(authURL))
		browser := strings.Fields(os.Getenv("BROWSER"))
		if len(browser) == 0 {
			return nil
		}
		cmd := exec.Command(browser[0], append(browser[1:], authURL)...)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting $BROWSER: %w", err)
		}
		// The browser may outlive Reasonix; its exit is of no interest.
		go cmd.Wait()
		return nil
	}
}
