package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/reasonix/reasonix/agent/config"
)

func setupCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("setup")
	force := setupFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flagError("setup", err, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return usageError("setup", stderr, "unexpected argument %q", fs.Arg(0))
	}
	path, err := config.UserFile()
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return 1
	}
	if err := config.WriteDefault(path, *force); err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Wrote %s.\nSet your key (export DEEPSEEK_API_KEY=...) and try: reasonix run \"explain this project\"\n", path)
	return 0
}

func setupFlags(fs *flag.FlagSet) (force *bool) {
	return fs.Bool("force", false, "overwrite an existing config")
}
