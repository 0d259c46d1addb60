// Command scripted-model runs the scripted model server: an
// OpenAI-compatible /chat/completions endpoint that answers from a script
// instead of a model. It backs `make demo` and the editor tests.
//
// Usage:
//
//	scripted-model -script FILE [-addr 127.0.0.1:0] [-key KEY] [-model NAME]
//	               [-url-file PATH] [-no-reasoning-check] [-fallback TEXT]
//	               [-context-window TOKENS] [-v]
//	               [-signin-mcp-url-file PATH [-signin-mcp-addr 127.0.0.1:0]]
//	scripted-model -script FILE -extract DIR
//	scripted-model -script FILE -section NAME
//
// FILE is a txtar scenario (the script is its "model" section) or a bare
// script; see package scripted for the format. The first line on stdout is
// "scripted-model listening on <base URL>". With -url-file the base URL is
// also written to PATH (atomically, without a newline) and removed on exit,
// so a test can wait for the file. With -fallback, requests the script
// has no step left for are answered with TEXT instead of an error. With
// -context-window a prompt of more tokens is refused as OpenAI and DeepSeek
// refuse it (HTTP 400, context_length_exceeded). With -v every request is
// logged to stderr. SIGINT and SIGTERM stop the server cleanly.
//
// With -signin-mcp-url-file, an MCP server that wants a sign-in is served
// beside the model on -signin-mcp-addr, with its authorization server
// (package tools/mcp/mcptest's OAuthServer, which signs the user in at
// once and registers clients with ids in standard base64, whose +, / and
// = the authorization page's address must carry escaped), and its URL is
// written to PATH as -url-file writes the model's: editor tests outside
// Go configure it as an HTTP plugin. A wrong step of a client's sign-in
// is logged to stderr as "sign-in server: …".
//
// For scripts that stage a scenario: -extract writes the scenario's
// starting workspace (its files/ sections) under DIR, and -section prints
// one section (such as the prompt); both exit at once.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
	"golang.org/x/tools/txtar"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "scripted-model:", err)
		}
		os.Exit(2)
	}
}

// run serves the script named in args until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scripted-model", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scriptPath := fs.String("script", "", "txtar scenario or bare script to serve (required)")
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	key := fs.String("key", "", "API key clients must present (default: accept any)")
	model := fs.String("model", "", "the only model name to accept (default: any)")
	urlFile := fs.String("url-file", "", "write the base URL to this file once listening")
	noReasoningCheck := fs.Bool("no-reasoning-check", false, "do not require reasoning_content to be passed back in tool-call turns")
	fallback := fs.String("fallback", "", "answer with this text once the script has no step left, instead of an error")
	window := fs.Int("context-window", 0, "refuse prompts of more tokens with 400 context_length_exceeded (default: no limit)")
	signinFile := fs.String("signin-mcp-url-file", "", "also serve an MCP server that wants a sign-in; write its URL to this file")
	signinAddr := fs.String("signin-mcp-addr", "127.0.0.1:0", "the address of the MCP server that wants a sign-in")
	verbose := fs.Bool("v", false, "log every request to stderr")
	extract := fs.String("extract", "", "write the scenario's files/ sections under this directory and exit")
	section := fs.String("section", "", "print this section of the scenario and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *scriptPath == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("-script FILE is required, and nothing else may follow the flags")
	}
	if *extract != "" || *section != "" {
		return stage(*scriptPath, *extract, *section, stdout)
	}

	script, err := load(*scriptPath)
	if err != nil {
		return err
	}
	opts := scripted.Options{APIKey: *key, Model: *model, NoReasoningCheck: *noReasoningCheck, Fallback: *fallback, ContextWindow: *window}
	if *verbose {
		log := slog.New(slog.NewTextHandler(stderr, nil))
		opts.Logf = func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }
	}
	srv := scripted.NewServer(script, opts)
	url, err := srv.Listen(*addr)
	if err != nil {
		return err
	}
	defer srv.Close()

	// The URL file is written first so that whoever reads the stdout line
	// can rely on the file too.
	if *urlFile != "" {
		if err := writeAtomic(*urlFile, url); err != nil {
			return err
		}
		defer os.Remove(*urlFile)
	}
	if *signinFile != "" {
		ln, err := net.Listen("tcp", *signinAddr)
		if err != nil {
			return fmt.Errorf("the MCP server that wants a sign-in: %w", err)
		}
		r := &reporter{w: stderr}
		defer r.stop()
		o := mcptest.ServeOAuth(r, "none", ln)
		o.Base64IDs = true
		if err := writeAtomic(*signinFile, o.URL()); err != nil {
			return err
		}
		defer os.Remove(*signinFile)
	}
	fmt.Fprintf(stdout, "scripted-model listening on %s\n", url)
	<-ctx.Done()
	return srv.Close()
}

// A reporter stands for the test an mcptest.OAuthServer expects: it logs
// the server's complaints and stops it when the command ends.
type reporter struct {
	w io.Writer

	mu      sync.Mutex // guards cleanup
	cleanup []func()
}

func (r *reporter) Errorf(format string, args ...any) {
	fmt.Fprintf(r.w, "sign-in server: "+format+"\n", args...)
}

func (r *reporter) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanup = append(r.cleanup, f)
}

// stop runs the cleanups, the last registered first, as a test's end does.
func (r *reporter) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range slices.Backward(r.cleanup) {
		f()
	}
}

// stage extracts a scenario's workspace or prints one of its sections.
func stage(path, dir, section string, stdout io.Writer) error {
	if dir != "" {
		sc, err := scripted.LoadScenario(path)
		if err != nil {
			return err
		}
		if err := sc.WriteFiles(dir); err != nil {
			return err
		}
	}
	if section != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, f := range txtar.Parse(data).Files {
			if f.Name == section {
				_, err := stdout.Write(f.Data)
				return err
			}
		}
		return fmt.Errorf("%s has no section %q", path, section)
	}
	return nil
}

// load parses path as a txtar scenario when it has file sections, else as a
// bare script (a bare script never has a line starting with "-- ").
func load(path string) (*scripted.Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var script *scripted.Script
	if len(txtar.Parse(data).Files) > 0 {
		script, err = scripted.ParseArchive(data)
	} else {
		script, err = scripted.Parse(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return script, nil
}

// writeAtomic writes content to path through a temporary file and a rename,
// so a reader polling for path never sees it half written.
func writeAtomic(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".url-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
