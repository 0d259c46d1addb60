package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/signal"
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
	return lsp.Serve(ctx, stdin, stdout, closer, lsp.Options{
		ConfigFile: *cfgFile,
		Version:    version,
		Logger:     slog.Default(),
	})
}

func lspFlags(fs *flag.FlagSet) (cfgFile *string) {
	fs.Bool("stdio", true, "serve on stdin and stdout (the only transport; accepted for editors that pass it)")
	return fs.String("config", "", configFlagUsage)
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
