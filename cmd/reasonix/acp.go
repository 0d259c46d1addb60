package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/reasonix/reasonix/lsp/acp"
)

// acpCmd serves the Agent Client Protocol on stdin and stdout, for
// editors that host agents in a panel of their own. The log goes to
// stderr, which editors keep in their agent log.
func acpCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("acp")
	cfgFile := acpFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flagError("acp", err, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return usageError("acp", stderr, "unexpected argument %q", fs.Arg(0))
	}
	serverNotice(stderr, "acp", isTerminal(stdin))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	in := &countingReader{r: stdin}
	code := acp.Serve(ctx, in, stdout, acp.Options{
		ConfigFile: *cfgFile,
		Version:    version,
		Logger:     slog.Default(),
	})
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case in.n.Load() == 0:
		fmt.Fprintln(stderr, "reasonix acp: standard input ended before any message; an editor starts this command and speaks ACP on its stdin")
	}
	return code
}

func acpFlags(fs *flag.FlagSet) (cfgFile *string) {
	return fs.String("config", "", configFlagUsage)
}
