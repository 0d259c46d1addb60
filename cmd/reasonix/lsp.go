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
