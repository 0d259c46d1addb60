package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/reasonix/reasonix/agent/config"
)

// trustOptions are the flags of `reasonix trust`.
type trustOptions struct {
	yes, revoke, list *bool
	cfgFile           *string
}

func trustFlags(fs *flag.FlagSet) *trustOptions {
	return &trustOptions{
		yes:     fs.Bool("yes", false, "trust what is shown without asking (it is still printed)"),
		revoke:  fs.Bool("revoke", false, "forget what was trusted in DIR: its servers and settings are off again"),
		list:    fs.Bool("list", false, "list the workspaces you trusted, with what you trusted in each"),
		cfgFile: fs.String("config", "", configFlagUsage),
	}
}

// trustCmd is `reasonix trust`: it shows what a workspace's own
// configuration would start, where it would send keys and what it would
// loosen, and records the user's trust in that exact content.
func trustCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("trust")
	f := trustFlags(fs)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return flagError("trust", err, stdout, stderr)
	}
	if len(positional) > 1 {
		return usageError("trust", stderr, "one directory at most, not %d", len(positional))
	}
	if *f.list {
		if len(positional) > 0 || *f.yes || *f.revoke {
			return usageError("trust", stderr, "--list takes no directory and no other flag")
		}
		return listTrust(stdout, stderr)
	}
	if *f.yes && *f.revoke {
		return usageError("trust", stderr, "--yes and --revoke cannot go together")
	}
	dir := "."
	if len(positional) == 1 {
		dir = positional[0]
	}
	if dir, err = filepath.Abs(dir); err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(dir); err == nil && !fi.IsDir() {
			err = fmt.Errorf("%s is not a directory", dir)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "reasonix trust: %v\n", err)
		return exitError
	}
	if *f.revoke {
		ok, err := config.Revoke(dir)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "reasonix trust: %v\n", err)
			return exitError
		case !ok:
			fmt.Fprintf(stdout, "Nothing was trusted in %s.\n", shown(dir))
		default:
			fmt.Fprintf(stdout, "Forgot what you trusted in %s: its own servers and settings are off until you trust them again.\n", shown(dir))
		}
		return exitOK
	}
	cfg, err := config.Load(config.Options{Dir: dir, File: *f.cfgFile})
	if err != nil {
		fmt.Fprintf(stderr, "reasonix trust: %s\n", shown(config.Explain(err, nil).Error()))
		return exitError
	}
	t := cfg.Workspace
	if len(t.Items) == 0 {
		fmt.Fprintf(stdout, "Nothing in the configuration of %s needs trust: it starts no server, sends no key and loosens nothing.\n", shown(t.Dir))
		return exitOK
	}
	if t.Trusted && t.By == config.ByRecord {
		fmt.Fprintf(stdout, "You trust the configuration of %s, which brings:\n%s\nDigest: %s\n", shown(t.Dir), shown(t.Describe()), t.ShortHash())
		return exitOK
	}
	fmt.Fprintf(stdout, "%s\nDigest: %s\n", shown(t.Question()), t.ShortHash())
	if !*f.yes {
		if !isTerminal(stdin) || !isTerminal(stderr) {
			fmt.Fprintf(stderr, "reasonix trust: not recorded: with no one to ask, trust it with reasonix trust --yes %s, or accept it for one run with reasonix run --trust %s\n", shown(t.Dir), t.ShortHash())
			return exitError
		}
		ta := &termApprover{in: stdin, r: newRenderer(stdout, stderr, true, isTerminal(stdout), false)}
		if !ta.Confirm(context.Background(), "Trust it? [y] yes  [n] no: ") {
			fmt.Fprintln(stdout, "Not trusted: it stays off.")
			return exitOK
		}
	}
	if err := config.Trust(t); err != nil {
		fmt.Fprintf(stderr, "reasonix trust: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "Trusted. Reasonix uses it in %s until it changes; reasonix trust --revoke %[1]s forgets it.\n", shown(t.Dir))
	return exitOK
}

// listTrust prints every workspace the user trusted something of.
func listTrust(stdout, stderr io.Writer) int {
	recs, err := config.TrustRecords()
	if err != nil {
		fmt.Fprintf(stderr, "reasonix trust: %v\n", err)
		return exitError
	}
	if len(recs) == 0 {
		fmt.Fprintln(stdout, "You have not trusted any workspace's configuration.")
		return exitOK
	}
	for i, rec := range recs {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "%s (%s)\n", shown(rec.Workspace), rec.Updated.Local().Format("2006-01-02 15:04"))
		t := config.WorkspaceTrust{Dir: rec.Workspace, Items: rec.Items}
		fmt.Fprintln(stdout, shown(t.Describe()))
	}
	return exitOK
}

// noteUntrusted tells, in `reasonix run` and `reasonix mcp list`, what
// was left out of the workspace's configuration for want of trust and
// how to trust it.
func noteUntrusted(stderr io.Writer, t config.WorkspaceTrust) {
	fmt.Fprintf(stderr, "reasonix: %s\nreasonix: to use it, review and trust it with reasonix trust (or, in a script, pass --trust %s to reasonix run)\n",
		shown(t.Question()), t.ShortHash())
}
