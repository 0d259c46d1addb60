package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/reasonix/reasonix/lsp"
)

// lspCmd serves the Language Server Protocol on stdin and stdout. The log
// goes to stderr, which editors show in their language-server log.
func lspCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("lsp")
	cfgFile := lspFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flagError("lsp", err, stdout, stderr)
	}
	serverNotice(stderr, "lsp", isTerminal(stdin))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var closer io.Closer = nopCloser{}
	if c, ok := stdin.(io.Closer); ok {
		closer = c
	}
	in := &countingReader{r: stdin}
	code := lsp.Serve(ctx, in, stdout, closer, lsp.Options{
		ConfigFile: *cfgFile,
		Version:    version,
		Logger:     slog.Default(),
	})
	if in.n.Load() == 0 && ctx.Err() == nil {
		// No client ever spoke: nothing was served, so nothing failed.
		// (A client that leaves without shutdown and exit still gets 1.)
		fmt.Fprintln(stderr, "reasonix lsp: standard input ended before any message; an editor starts this command and speaks LSP on its stdin")
		return exitOK
	}
	return code
}

// countingReader counts the bytes read through it, to tell a client that
// never spoke from one that left.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func lspFlags(fs *flag.FlagSet) (cfgFile *string) {
	fs.Bool("stdio", true, "serve on stdin and stdout (the only transport; accepted for editors that pass it)")
	return fs.String("config", "", configFlagUsage)
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// serverNotice is what `reasonix lsp` or `reasonix acp` says on stderr
// when its standard input is a terminal: a person typed the command, and
// a server that waits without a word looks hung. An editor starts these
// commands with pipes and never sees it. The server serves all the same.
func serverNotice(stderr io.Writer, name string, stdinIsTerminal bool) {
	if !stdinIsTerminal {
		return
	}
	what := "a language server: it speaks LSP (JSON-RPC) on stdin and stdout"
	starters := "VS Code's Reasonix extension, the Neovim plugin (editors/nvim) or any LSP client configured with `reasonix lsp`"
	if name == "acp" {
		what = "an agent for the Agent Client Protocol: it speaks ACP (JSON-RPC) on stdin and stdout"
		starters = "Zed, JetBrains, CodeCompanion or acpx, configured to run `reasonix acp`"
	}
	fmt.Fprintf(stderr, "reasonix %s is %s, for an editor to start: %s (see the README's \"Use it\").\n"+
		"For a task in the terminal use reasonix run \"PROMPT\". Waiting for a client; Ctrl-C quits.\n", name, what, starters)
}
