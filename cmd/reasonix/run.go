package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools/permission"
)

// Exit codes of `reasonix run`.
const (
	exitOK          = 0
	exitError       = 1
	exitBudget      = 2
	exitInterrupted = 130
)

func runCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "provider, model, or provider/model")
	cfgFile := fs.String("config", "", "config file above the project and user files")
	resume := fs.String("resume", "", "continue a saved session")
	verbose := fs.Bool("verbose", false, "show the model's reasoning on stderr")
	plan := fs.Bool("plan", false, "plan mode: only read-only tools until the plan is approved")
	approval := fs.String("approval", "", "ask, auto or yolo: what runs without asking, above [permissions] approval")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if *approval != "" {
		if _, err := permission.ParsePosture(*approval); err != nil {
			fmt.Fprintf(stderr, "reasonix run: --approval must be ask, auto or yolo, not %q\n", *approval)
			return 2
		}
	}
	prompt := strings.TrimSpace(strings.Join(positional, " "))
	if prompt == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "reasonix: reading the prompt from stdin: %v\n", err)
			return exitError
		}
		prompt = strings.TrimSpace(string(b))
	}
	if prompt == "" {
		fmt.Fprintln(stderr, "reasonix run: a prompt is required, e.g. reasonix run \"make the failing test pass\"")
		return 2
	}

	dir, cfg, err := loadConfig(*cfgFile, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	if *approval != "" {
		cfg.Permissions.Approval = *approval
	}

	// Interrupts are caught from here on, so that Ctrl-C while the MCP
	// servers start stops them too (they run in process groups of their
	// own, which the terminal's signal does not reach).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	interactive := isTerminal(stdin) && isTerminal(stderr)
	r := newRenderer(stdout, stderr, isTerminal(stderr), isTerminal(stdout), *verbose)
	opts := agent.Options{
		Context: ctx,
		Dir:     dir,
		Model:   *model,
		Sink:    r.event,
		Notify:  func(msg string) { r.notice(msg) },
		Warn:    func(msg string) { r.warning(msg) },
		Version: version,
	}
	refused := newRefusals(r)
	if interactive {
		ta := &termApprover{in: stdin, r: r}
		opts.Approver, opts.Plans = ta, ta
	} else {
		opts.Refused = refused.refused
	}
	a, err := agent.Build(cfg, opts)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	defer a.Close()

	var s *agent.Session
	if *resume != "" {
		s, err = a.Resume(*resume)
	} else {
		s, err = a.NewSession()
	}
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	defer s.Close()
	r.model = a.ModelRef
	if *plan {
		s.SetPlanMode(true)
	}

	res, err := a.Run(ctx, s, prompt)
	refused.summary()
	r.finish(res)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, agent.ErrBudgetExceeded):
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitBudget
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "reasonix: interrupted; resume with: reasonix run --resume %s \"…\"\n", s.ID)
		return exitInterrupted
	case errors.Is(err, agent.ErrMaxSteps):
		fmt.Fprintf(stderr, "reasonix: %v; continue with: reasonix run --resume %s \"continue\"\n", err, s.ID)
		return exitError
	}
	fmt.Fprintf(stderr, "reasonix: %s\n", explain(err, a))
	return exitError
}

// explain words a failure for the user, with the next step to take.
func explain(err error, a *agent.Agent) string {
	msg := err.Error()
	if provider.IsAuth(err) {
		msg += " — check the API key for " + a.ModelRef
	}
	var ae *provider.APIError
	if errors.As(err, &ae) && ae.Status == 0 {
		msg += " — is the model endpoint reachable?"
	}
	return msg
}

// parseInterspersed parses flags that may appear before or after the
// positional arguments, as in `reasonix run "fix it" --model pro`.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// isTerminal reports whether f is an interactive terminal (not merely a
// character device such as /dev/null).
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// The approver and the gate must agree on answers.
var _ permission.Approver = (*termApprover)(nil)

// loadConfig loads the configuration of the current directory, with file
// (if any) above the project's, and prints its warnings and what in it
// lets the agent do more than at the last session here.
func loadConfig(file string, stderr io.Writer) (dir string, cfg *config.Config, err error) {
	if dir, err = os.Getwd(); err != nil {
		return "", nil, err
	}
	if cfg, err = config.Load(config.Options{Dir: dir, File: file}); err != nil {
		return "", nil, err
	}
	for _, w := range append(cfg.Warnings, agent.ReviewConfig(cfg, dir)...) {
		fmt.Fprintf(stderr, "reasonix: warning: %s\n", w)
	}
	return dir, cfg, nil
}
