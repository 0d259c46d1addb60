// Command reasonix-plugin-example is a small MCP server to copy when you
// write your own Reasonix plugin. It speaks the Model Context Protocol over
// stdin and stdout, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp), and offers one of each
// thing a plugin can offer:
//
//   - tools: echo (text in, text out), wordcount (text plus structured
//     output) and lookup (read-only, annotated, with an error result);
//   - a prompt: review, with a required and an optional argument;
//   - a resource: note://greeting.
//
// Each lives in its own file (tools.go, prompts.go, resources.go, over the
// data in notes.go); newServer below is the table of contents.
//
// Build it from a checkout of Reasonix into $GOBIN or $(go env GOPATH)/bin,
// which should be on your PATH:
//
//	go install ./cmd/reasonix-plugin-example
//
// Set the version it reports with -ldflags "-X main.version=v1.2.3".
//
// Register it in reasonix.toml:
//
//	[[plugins]]
//	name    = "example"
//	command = "reasonix-plugin-example"
//
// or in a project's .mcp.json, the file Claude Code reads too:
//
//	{"mcpServers": {"example": {"command": "reasonix-plugin-example"}}}
//
// Usage:
//
//	reasonix-plugin-example            serve MCP on stdin/stdout
//	reasonix-plugin-example --version  print the version and exit
//
// Stdout carries the protocol, so nothing else may be printed there: logs go
// to stderr. The server exits when the client closes its stdin, or on
// SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// version is printed by --version and sent to clients in the handshake.
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "reasonix-plugin-example:", err)
		stop()
		os.Exit(1)
	}
}

// run parses the flags and serves one client on stdin/stdout until it
// disconnects or ctx ends.
func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("reasonix-plugin-example", flag.ContinueOnError)
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *showVersion {
		fmt.Println("reasonix-plugin-example", version)
		return nil
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	err := newServer(logger).Run(ctx, &mcp.StdioTransport{})
	if ctx.Err() != nil {
		// Stopped by a signal: that is how a client may end us, not a failure.
		return nil
	}
	return err
}

// newServer returns a server offering every tool, prompt and resource of
// the plugin. The SDK logs the session's life to logger.
func newServer(logger *slog.Logger) *mcp.Server {
	server := mcp.NewServer(
		&mcp.Implementation{Name: "reasonix-plugin-example", Version: version},
		&mcp.ServerOptions{Logger: logger},
	)

	// mcp.AddTool derives each tool's input schema (and output schema, if
	// the handler returns a typed result) from the handler's Go types, and
	// validates the arguments before the handler sees them.
	mcp.AddTool(server, echoTool, echo)
	mcp.AddTool(server, wordcountTool, wordcount)
	mcp.AddTool(server, lookupTool, lookup)

	server.AddPrompt(reviewPrompt, review)

	server.AddResource(greetingResource, readNote)

	return server
}
