package main

import (
	"cmp"
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

// runOptions are the flags of `reasonix run`.
type runOptions struct {
	model, cfgFile, resume, approval, trust *string
	verbose, plan                           *bool
	budget                                  *int
}

func runFlags(fs *flag.FlagSet) *runOptions {
	return &runOptions{
		model:   fs.String("model", "", "provider, model, or provider/model (default: default_model)"),
		cfgFile: fs.String("config", "", configFlagUsage),
		approval: fs.String("approval", "", `what runs without asking, above [permissions] approval (default ask):
  ask   edits and commands need a yes on the terminal; with no
        terminal (a script, CI) they are refused
  auto  they run, unless an ask or deny rule names them
  yolo  everything runs that no deny rule refuses`),
		resume:  fs.String("resume", "", "continue a saved session (an id or a unique prefix)"),
		plan:    fs.Bool("plan", false, "plan mode: read-only tools only until you approve the plan"),
		verbose: fs.Bool("verbose", false, "also show the model's reasoning on stderr"),
		budget:  fs.Int("budget", 0, "the session's token budget for this run, above [agent] token_budget"),
		trust: fs.String("trust", "", `use the workspace's own configuration (its MCP servers, providers,
        looser settings) if it is exactly what reasonix trust showed with
        this digest; a run fails if it has changed`),
	}
}

// configFlagUsage is the usage of --config, the same for every command.
const configFlagUsage = "a config file above ./reasonix.toml and the user config"

func runCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("run")
	f := runFlags(fs)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return flagError("run", err, stdout, stderr)
	}
	if *f.approval != "" {
		if _, err := permission.ParsePosture(*f.approval); err != nil {
			return usageError("run", stderr, "--approval must be ask, auto or yolo, not %q", *f.approval)
		}
	}
	if *f.budget < 0 {
		return usageError("run", stderr, "--budget must be a number of tokens, not %d", *f.budget)
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
		return usageError("run", stderr, "a prompt is required, e.g. reasonix run \"make the failing test pass\"")
	}

	if *f.resume == "" {
		switch strings.Fields(prompt)[0] {
		case "/compact":
			return usageError("run", stderr, "/compact compacts a saved session, and a new run has none: "+
				"reasonix run --resume ID /compact (reasonix sessions lists them)")
		case "/rewind":
			return usageError("run", stderr, "/rewind rewinds a saved session, and a new run has none: "+
				"reasonix run --resume ID /rewind lists its turns, and /rewind N rewinds to before turn N (reasonix sessions lists them)")
		case "/cost":
			fmt.Fprintln(stdout, "A new run has made no requests yet: reasonix run --resume ID /cost shows a saved session's "+
				"(reasonix sessions lists them), and reasonix stats every session's.")
			return exitOK
		}
	}

	interactive := isTerminal(stdin) && isTerminal(stderr)
	r := newRenderer(stdout, stderr, isTerminal(stderr), isTerminal(stdout), *f.verbose)
	var ta *termApprover
	if interactive {
		ta = &termApprover{in: stdin, r: r}
	}
	dir, cfg, err := loadConfig(*f.cfgFile, *f.trust, stderr, ta)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	if code, bad := unknownModel(cfg, *f.model, stderr); bad {
		return code
	}
	if *f.approval != "" {
		cfg.Permissions.Approval = *f.approval
	}
	if *f.budget > 0 {
		cfg.Agent.TokenBudget = *f.budget
	}

	// Interrupts are caught from here on, so that Ctrl-C while the MCP
	// servers start stops them too (they run in process groups of their
	// own, which the terminal's signal does not reach).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	opts := agent.Options{
		Context: ctx,
		Dir:     dir,
		Model:   *f.model,
		Sink:    r.event,
		Notify:  func(msg string) { r.notice(msg) },
		Warn:    func(msg string) { r.warning(msg) },
		Version: version,
	}
	// An MCP server that wants a sign-in gets one when someone can make
	// it; otherwise it waits for reasonix mcp login, rather than hold a
	// script up for the sign-in's minutes.
	if interactive || os.Getenv("BROWSER") != "" {
		opts.SignIn = browserOpener(stderr)
	}
	refused := newRefusals(r)
	if interactive {
		opts.Approver, opts.Plans, opts.Asker = ta, ta, ta
	} else {
		opts.Refused = refused.refused
	}
	a, err := agent.Build(cfg, opts)
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	defer a.Close()
	if ta != nil {
		ta.edits = previewEdits(a.Tools, a.Env)
	}

	var s *agent.Session
	if *f.resume != "" {
		s, err = a.Resume(*f.resume)
	} else {
		s, err = a.NewSession()
	}
	if err != nil {
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitError
	}
	defer s.Close()
	// The run is the session's life in this process: its SessionEnd
	// hooks run when it ends, however it ends.
	defer a.EndSession(context.WithoutCancel(ctx), s, "other")
	r.model = a.ModelRef
	if *f.plan {
		s.SetPlanMode(true)
	}

	res, err := a.Run(ctx, s, prompt)
	refused.summary()
	r.model = cmp.Or(res.Model, a.ModelRef)
	r.finish(res)
	switch {
	case err == nil && res.Action != nil:
		if why := pointless(res.Action); why != "" {
			return usageError("run", stderr, "%s", why)
		}
		if res.Action.Kind == agent.ActionTrust && res.Action.Revoke {
			return trustCmd([]string{"--revoke", dir}, stdin, stdout, stderr)
		}
		return exitOK
	case err == nil:
		return exitOK
	case errors.Is(err, agent.ErrBudgetExceeded):
		fmt.Fprintf(stderr, "reasonix: %v\n", err)
		return exitBudget
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "reasonix: interrupted; resume with: reasonix run --resume %s \"…\"\n", s.ID)
		return exitInterrupted
	case errors.Is(err, agent.ErrMaxSteps):
		fmt.Fprintf(stderr, "reasonix: %s; continue with: reasonix run --resume %s \"continue\"\n", shown(err.Error()), s.ID)
		return exitError
	}
	// The error may quote the provider, a tool or the model.
	fmt.Fprintf(stderr, "reasonix: %s\n", shown(explain(err, a)))
	return exitError
}

// pointless says why a built-in command means nothing in `reasonix run`,
// which runs one prompt and ends: "" when it does mean something (/help,
// /cost, /mcp, /model and /effort alone, /compact and /rewind answer and
// exit 0).
func pointless(act *agent.Action) string {
	switch {
	case act.Kind == agent.ActionNew:
		return "/new has no meaning in reasonix run: every run starts a new session (--resume continues one)"
	case act.Kind == agent.ActionClear:
		return "/clear has no meaning in reasonix run: every run starts a new session (--resume continues one)"
	case act.Kind == agent.ActionModel && act.Model != "":
		return fmt.Sprintf("/model %s alone has no effect in reasonix run, which ends after one prompt: "+
			"put the prompt after it (/model %[1]s PROMPT), or use --model %[1]s", act.Model)
	case act.Kind == agent.ActionEffort && act.Effort != "":
		return fmt.Sprintf("/effort %s alone has no effect in reasonix run, which ends after one prompt: "+
			"put the prompt after it (/effort %[1]s PROMPT), or set [agent] reasoning_effort", act.Effort)
	}
	return ""
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
// lets the agent do more than at the last session here. What the
// workspace's own files bring that needs trust is used if the user
// trusted it before, if trustHash names it, or if ask (the terminal,
// when there is one) gets a yes; otherwise it is left out, and the user
// told so (with no one to ask, with how to trust it).
func loadConfig(file, trustHash string, stderr io.Writer, ask *termApprover) (dir string, cfg *config.Config, err error) {
	if dir, err = os.Getwd(); err != nil {
		return "", nil, err
	}
	opts := config.Options{Dir: dir, File: file, TrustHash: trustHash}
	if cfg, err = config.Load(opts); err != nil {
		// The warnings come first: an unknown (misspelt) setting is often
		// what the error is about.
		var ce *config.Error
		if errors.As(err, &ce) {
			printWarnings(stderr, ce.Warnings)
		}
		return "", nil, err
	}
	switch t := cfg.Workspace; {
	case !t.Untrusted():
	case ask == nil:
		noteUntrusted(stderr, t)
	default:
		// The user has just read the question: the answer is told in a
		// line, not with the question again.
		fmt.Fprintf(stderr, "%s\n", shown(t.Question()))
		if !ask.Confirm(context.Background(), "Trust it? [y] yes  [n] no: ") {
			fmt.Fprintln(stderr, "Not trusted: it stays off for this run.")
			break
		}
		if err := config.Trust(t); err != nil {
			return "", nil, err
		}
		if cfg, err = config.Load(opts); err != nil {
			return "", nil, err
		}
		fmt.Fprintln(stderr, "Trusted: Reasonix uses it here until it changes; reasonix trust --revoke forgets it.")
	}
	printWarnings(stderr, append(cfg.Warnings, agent.ReviewConfig(cfg, dir)...))
	return dir, cfg, nil
}

func printWarnings(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		// A repository's reasonix.toml is quoted in them.
		fmt.Fprintf(stderr, "reasonix: warning: %s\n", shown(w))
	}
}

// unknownModel reports a --model that names nothing configured as the
// usage error it is, with the nearest reference that does name a model
// and every configured one. A reference that resolves, or names a
// provider whose own configuration is at fault, is left to the agent.
func unknownModel(cfg *config.Config, ref string, stderr io.Writer) (code int, bad bool) {
	if ref == "" {
		return 0, false
	}
	if _, err := cfg.ResolveModel(ref); err == nil {
		return 0, false
	}
	if _, isProvider := cfg.Provider(ref); isProvider {
		return 0, false
	}
	var refs, known []string
	for _, p := range cfg.Providers {
		refs = append(refs, p.Name)
		refs = append(refs, p.ModelList()...)
		for _, m := range p.ModelList() {
			refs = append(refs, p.Name+"/"+m)
		}
		known = append(known, fmt.Sprintf("%s (%s)", p.Name, strings.Join(p.ModelList(), ", ")))
	}
	return usageError("run", stderr, "--model %q names no configured model%s Configured: %s.",
		ref, cmp.Or(didYouMean(ref, refs, "%q"), "."), strings.Join(known, "; ")), true
}
