package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/sandbox"
)

//go:embed bash.md
var bashDescription string

// bashDrainWait bounds how long output is still read after the shell has
// exited. A background process that inherited the output pipe (`server &`)
// keeps it open for as long as it runs; without a bound the call would last
// that long too. It is also the grace the shell gets to exit after it was
// signalled on a timeout, before it is killed outright.
const bashDrainWait = 2 * time.Second

type bashArgs struct {
	Command         string `json:"command"`
	TimeoutSeconds  *int   `json:"timeout_seconds,omitempty"`
	RunInBackground bool   `json:"run_in_background,omitempty"`
}

type bash struct{}

func init() { tools.RegisterBuiltin(bash{}) }

func (bash) Name() string        { return "bash" }
func (bash) Description() string { return bashDescription }
func (bash) ReadOnly() bool      { return false }

var bashSchema = schema(`{
	"type": "object",
	"properties": {
		"command": {"type": "string", "description": "The command line."},
		"timeout_seconds": {"type": "integer", "minimum": 1, "description": "Kill the command and every process it started after this many seconds. Defaults to the configured limit, which also caps it."},
		"run_in_background": {"type": "boolean", "description": "Start the command as a background job and return at once with its id; read its output with bash_output, stop it with kill_shell."}
	},
	"required": ["command"],
	"additionalProperties": false
}`)

func (bash) Schema() json.RawMessage { return bashSchema }

// CapsResult: the output is capped as it streams (see capture).
func (bash) CapsResult() bool { return true }

// Execute runs the command. Its output, exit code and timeout are for the
// model and come back as a Result; only a failure of the machinery, or the
// context ending (the user pressed stop), is a Go error.
func (bash) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	var args bashArgs
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return tools.Errorf("%v", err), nil
	}
	if strings.TrimSpace(args.Command) == "" {
		return tools.Errorf("command is required"), nil
	}
	timeout, err := bashTimeout(args.TimeoutSeconds, env.BashTimeout)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	if args.RunInBackground && (env.Jobs == nil || env.Procs == nil) {
		return tools.Errorf("run_in_background is not available here: nothing would read the job's output or stop it; run the command in the foreground"), nil
	}
	var note string
	if res, refused := refuseForbiddenReads(env, args.Command); refused {
		return res, nil
	}
	// What processes left by earlier commands changed meanwhile.
	settled, notice := env.Control.Settle(ctx, env.Procs != nil && env.Procs.Running(), env.Rel)
	if env.BeforeShell != nil {
		n, err := env.BeforeShell(ctx)
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		if err != nil {
			return tools.Errorf("before running the command: %v", err), nil
		}
		note = strings.TrimSpace(n)
	}
	// After BeforeShell: saving the editor's documents is not the
	// command's doing.
	var known []string
	var watched tools.After
	if watch := tools.ShellWatcherOf(ctx); watch != nil {
		known, watched = watch.BeforeShell(ctx)
	}
	before := env.Control.Snapshot(known...)
	if j, ok := env.Jail.(*sandbox.Jail); ok {
		// Those the listing found in subdirectories are read-only to
		// this command and the later ones, as the root's are.
		j.ProtectNested(before.Known()...)
	}
	var res tools.Result
	if args.RunInBackground {
		res, err = startJob(ctx, env, args.Command)
	} else {
		res, err = runConfined(ctx, env, args.Command, timeout)
	}
	// A command that was stopped may have changed files too: what it
	// changed among the control paths is undone all the same.
	after := context.WithoutCancel(ctx)
	settle := func(changed []tools.PathChange) {
		env.Control.Undo(after, before, &res, env.Rel, changed...)
	}
	var tracking string
	if watched != nil {
		// The watcher records the command's changes after settle:
		// what it put back is not the command's change.
		tracking = watched(after, settle)
	} else {
		settle(nil)
	}
	if err != nil {
		return tools.Result{}, err
	}
	if tracking != "" {
		res.Content = "Note: " + tracking + ".\n\n" + res.Content
		res.Notice = strings.TrimPrefix(res.Notice+"; "+tracking, "; ")
	}
	if env.Procs != nil && env.Procs.Running() {
		// Processes still run in the background: they are watched
		// until the next command, or the end of the session.
		env.Control.Hold(env.Control.Snapshot(before.Known()...))
	}
	if settled != "" {
		res.Content = settled + "\n\n" + res.Content
		res.Notice = strings.TrimPrefix(res.Notice+"; "+notice, "; ")
	}
	if note != "" {
		res.Content = note + "\n\n" + res.Content
	}
	return res, nil
}

// bashTimeout resolves the timeout of one call: the argument when given,
// capped by limit when that is set, else limit. Zero means none.
func bashTimeout(arg *int, limit time.Duration) (time.Duration, error) {
	if arg == nil {
		return limit, nil
	}
	if *arg <= 0 {
		return 0, errors.New("timeout_seconds must be a positive number of seconds")
	}
	d := time.Duration(*arg) * time.Second
	if int64(*arg) > math.MaxInt64/int64(time.Second) {
		d = math.MaxInt64 // absurdly large: no overflow into a negative duration
	}
	if limit > 0 && d > limit {
		d = limit
	}
	return d, nil
}

// Notes added when the shell sandbox steps in.
const (
	// escalatedNote heads the output of a command run a second time,
	// outside the sandbox, because the user allowed it.
	escalatedNote = "Note: the shell sandbox may have blocked this command, and the user allowed it to run again outside the sandbox; the output below is from that second, unconfined run."
	// declinedNote follows the sandbox's explanation when the user was
	// asked and said no.
	declinedNote = "The user declined to run it outside the sandbox."
)

// runConfined runs command inside env.Jail when there is one. When a
// confined command fails and its output suggests the jail blocked it, the
// result explains what the jail allows; and if env.EscalateUnconfined is
// set and the user agrees, the command runs again, unconfined, and that
// run is the result.
func runConfined(ctx context.Context, env *tools.Env, command string, timeout time.Duration) (tools.Result, error) {
	run, err := runShell(ctx, env, command, timeout, true)
	if err != nil {
		return tools.Result{}, err
	}
	if !run.confined || !run.failed() {
		return run.result(), nil
	}
	note, reason := env.Jail.Explain(run.output)
	if note == "" {
		return run.result(), nil
	}
	if env.EscalateUnconfined != nil {
		approved := env.EscalateUnconfined(ctx, command, reason)
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		if approved {
			again, err := runShell(ctx, env, command, timeout, false)
			if err != nil {
				return tools.Result{}, err
			}
			again.notes = append([]string{escalatedNote}, again.notes...)
			return again.result(), nil
		}
		note += " " + declinedNote
	}
	run.outcome.sandboxNote = note
	return run.result(), nil
}

// shellRun is one run of the shell, before rendering.
type shellRun struct {
	// failedToStart is the result when the shell could not be started;
	// nothing else is set then.
	failedToStart *tools.Result
	output        string
	outcome       shellOutcome
	// confined reports that the command ran inside the jail.
	confined bool
	// notes are shown before the output.
	notes []string
}

// failed reports whether the command ended badly by itself: a non-zero
// exit or a signal, but not a timeout, which no sandbox causes.
func (r *shellRun) failed() bool {
	if r.failedToStart != nil || r.outcome.timedOut {
		return false
	}
	return r.outcome.status.Signal != 0 || r.outcome.status.Code != 0
}

// result renders the run for the model.
func (r *shellRun) result() tools.Result {
	if r.failedToStart != nil {
		return *r.failedToStart
	}
	res := shellResult(r.output, r.outcome)
	if len(r.notes) > 0 {
		res.Content = strings.Join(r.notes, "\n\n") + "\n\n" + res.Content
	}
	return res
}

// runShell runs command, confined by the session's jail when confine is
// set, and collects the outcome.
func runShell(ctx context.Context, env *tools.Env, command string, timeout time.Duration, confine bool) (*shellRun, error) {
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	cmd := newShellCmd(env, command)
	if env.Terminal != nil {
		if tc, confined, ok := terminalCommand(env, cmd, confine); ok {
			return runInTerminal(ctx, runCtx, env, tc, confined, timeout)
		}
	}

	// One pipe for stdout and stderr keeps their writes in arrival order.
	// The pipe is ours rather than exec's so that we know whether reading
	// had to be cut short.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("bash: %w", err)
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	host := env.Procs
	if host == nil {
		// No session to end them: what the command leaves running in
		// the background is left running, as a shell would leave it.
		j, _ := env.Jail.(*sandbox.Jail)
		host = sandbox.NewHost(j)
	}
	proc, err := host.Start(cmd, confine && env.Jail != nil)
	pw.Close() // the child holds its own copy
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res := tools.Errorf("cannot start the shell: %v", err)
		return &shellRun{failedToStart: &res}, nil
	}
	run := &shellRun{confined: proc.Confined()}

	out := capture{path: tools.OutputFile(ctx)}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		// A read error only means pr was closed below to stop reading.
		_, _ = io.Copy(&out, pr)
	}()
	exited := make(chan tools.ExitStatus, 1)
	go func() { exited <- proc.Wait() }()
	var status tools.ExitStatus
	killed := false
	select {
	case status = <-exited:
	case <-runCtx.Done():
		proc.Stop()
		killed = true
		status = <-exited
	}

	orphaned := false
	drain := time.NewTimer(bashDrainWait)
	defer drain.Stop()
	select {
	case <-copied:
	case <-drain.C:
		orphaned = true
	case <-ctx.Done():
		// Stopped while a background process still held the output.
	}
	pr.Close() // unblocks the copy if it is still reading
	<-copied

	if ctx.Err() != nil {
		proc.Stop()
		return nil, ctx.Err()
	}
	run.notes = append(run.notes, status.Notes...)
	run.output = out.text()
	run.outcome = shellOutcome{
		status:   status,
		timedOut: killed && runCtx.Err() != nil,
		timeout:  timeout,
		orphaned: orphaned,
	}
	return run, nil
}

// newShellCmd builds the shell running command in the workspace root,
// with the environment every command gets.
func newShellCmd(env *tools.Env, command string) *exec.Cmd {
	cmd := shellCommand(env.Shell, command)
	cmd.Dir = env.Root
	// cmd.Environ, called after Dir is set, also points PWD at Dir.
	cmd.Env = append(tools.WithoutVars(cmd.Environ(), env.HideEnv), nonInteractiveEnv()...)
	return cmd
}

// shellCommand builds the command line: <shell> -c <command>, where the
// shell is the configured one, else bash, else sh, else the platform's own.
func shellCommand(shell, command string) *exec.Cmd {
	if shell != "" {
		return exec.Command(shell, "-c", command)
	}
	for _, name := range []string{"bash", "sh"} {
		if path, err := exec.LookPath(name); err == nil && usableShell(path) {
			return exec.Command(path, "-c", command)
		}
	}
	return fallbackShell(command)
}

// ReadPaths lists the words of the command that may name files it reads
// (permission.CommandPaths): the permission rules about reading refuse,
// or ask about, a command that plainly names a file they cover (`cat
// private/x`, `< private/x`, `cp private/x y`). What a command reads by a
// name it builds at run time, or by walking a directory (`grep -r x .`),
// is not seen.
func (bash) ReadPaths(raw json.RawMessage) ([]string, error) {
	var args bashArgs
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	return permission.CommandPaths(args.Command, home), nil
}

// refuseForbiddenReads refuses a command that plainly names a file under
// forbid_read (`cat ~/.ssh/id_rsa`), or one a permission rule denies
// reading, before it runs. The shell jail enforces forbid_read for
// everything a command reads on Linux; this check also holds where there
// is no jail, and tells the model why at once. (The gate refuses a
// command naming a file a rule denies before it gets here, judging
// ReadPaths; this holds where there is no gate.)
func refuseForbiddenReads(env *tools.Env, command string) (tools.Result, bool) {
	if env.Guard == nil && env.ReadRules == nil {
		return tools.Result{}, false
	}
	home, _ := os.UserHomeDir()
	for _, p := range permission.CommandPaths(command, home) {
		// The rules judge where a link leads too; the guard resolves
		// links itself.
		for _, s := range env.ReadSpellings([]string{p}) {
			err := env.CheckRead(s)
			switch {
			case err == nil:
			case errors.Is(err, tools.ErrReadDenied):
				return tools.Errorf("the command was not run: %v", err), true
			default:
				return tools.Errorf("the command was not run: it reads %s, which [sandbox] forbid_read protects", p), true
			}
		}
	}
	return tools.Result{}, false
}

// nonInteractiveEnv returns the variables added to the inherited
// environment so that commands neither wait for input nobody will type nor
// hand output to a pager, and keep colour codes out of the output. An
// editor git would open (git commit without -m, git rebase -i) exits at
// once instead of waiting for a terminal that is not there.
func nonInteractiveEnv() []string {
	env := []string{"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "NO_COLOR=1", "GIT_EDITOR=true"}
	if _, ok := os.LookupEnv("TERM"); !ok {
		env = append(env, "TERM=dumb")
	}
	return env
}

// shellOutcome is how a command ended.
type shellOutcome struct {
	status   tools.ExitStatus
	timedOut bool
	timeout  time.Duration
	// orphaned reports that reading stopped while a background process
	// still held the output open.
	orphaned bool
	// sandboxNote explains that the shell sandbox may have caused the
	// failure.
	sandboxNote string
}

// shellResult renders output and how the command ended as the model reads
// it: the output, notes, then one final line with the exit status.
func shellResult(output string, o shellOutcome) tools.Result {
	var b strings.Builder
	if output == "" {
		output = "(no output)\n"
	}
	b.WriteString(output)
	if !strings.HasSuffix(output, "\n") {
		b.WriteByte('\n')
	}
	if o.orphaned && !o.timedOut {
		fmt.Fprintf(&b, "(Output collection stopped %v after the shell exited: a background process still holds the output open. Redirect its output to a file, e.g. `cmd > cmd.log 2>&1 &`.)\n", bashDrainWait)
	}
	if o.sandboxNote != "" {
		b.WriteString(o.sandboxNote + "\n")
	}
	res := tools.Result{IsError: true}
	switch sig, name := o.status.Signal, o.status.SignalName; {
	case o.timedOut:
		d := formatSeconds(o.timeout)
		fmt.Fprintf(&b, "Timed out after %s; the command and its child processes were killed.", d)
		res.Summary = "timed out after " + d
	case sig != 0:
		fmt.Fprintf(&b, "Killed by signal %d (%s).", sig, name)
		res.Summary = fmt.Sprintf("killed by signal %d", sig)
	default:
		code := o.status.Code
		fmt.Fprintf(&b, "Exit code: %d", code)
		res.Summary = fmt.Sprintf("exit %d", code)
		res.IsError = code != 0
	}
	res.Content = b.String()
	return res
}

// formatSeconds writes whole seconds as "5s" and anything else as
// time.Duration does ("1.5s", "300ms").
func formatSeconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.Round(time.Millisecond).String()
}

// Output is capped at its first bashHeadBytes and last bashTailBytes, the
// cap every tool result has (tools.MaxResultBytes): the head shows what
// the command did first (often the error that matters), the tail how it
// ended. When the call has an output file (tools.OutputFile), a longer
// output is saved there — whole, or its first and last parts when it is
// longer still (tools.OutputSaver) — and the marker between head and
// tail names the read_file call that shows what it left out. The pipe is
// read to its end whatever the output's size, so the command is not held
// up, and what is read beyond what is kept is counted and let go.
const (
	bashHeadBytes = tools.ResultEdgeBytes
	bashTailBytes = tools.ResultEdgeBytes
)

// captureRing holds the kept tail and the byte before it, which tells
// whether the tail starts at the beginning of a line.
const captureRing = bashTailBytes + 1

// capture is an io.Writer that keeps the head and tail of everything written
// to it in fixed memory, counting the bytes it drops between them and the
// lines. It is not safe for concurrent use; the one goroutine reading the
// pipe writes to it.
type capture struct {
	head []byte
	// tail is a ring buffer of the last captureRing bytes once it is
	// full; next is where the oldest of them starts.
	tail  []byte
	next  int
	total int64
	lines int64 // line breaks written
	// path is where the output is saved once it outgrows head and
	// tail; "" for nowhere. saver writes it there, and err is set if it
	// could not.
	path  string
	saver *tools.OutputSaver
	err   error
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.save(p)
	c.total += int64(n)
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if room := bashHeadBytes - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= captureRing {
		c.tail = append(c.tail[:0], p[len(p)-captureRing:]...)
		c.next = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(c.tail) < captureRing {
			k := min(captureRing-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(c.tail[c.next:], p)
		c.next = (c.next + k) % captureRing
		p = p[k:]
	}
	return n, nil
}

// save writes p to the output file, opening it, with everything kept so
// far, once the output no longer fits head and tail. Until then the head
// and the ring, not yet wrapped, hold all of it.
func (c *capture) save(p []byte) {
	if c.path == "" || c.err != nil {
		return
	}
	if c.saver == nil {
		if c.total+int64(len(p)) <= bashHeadBytes+captureRing {
			return
		}
		if c.saver, c.err = tools.NewOutputSaver(c.path); c.err != nil {
			return
		}
		c.saver.Write(c.head)
		c.saver.Write(c.tail)
	}
	c.saver.Write(p)
}

// text renders the captured output for the model: the head and the tail
// joined by a marker when bytes were dropped between them, with terminal
// escape sequences removed and invalid UTF-8 replaced. It closes the
// output file.
func (c *capture) text() string {
	path := ""
	// The marker's lines are the saved file's, which ends as the output
	// does: its last omitted line is found counting from the end.
	lines, dropped := c.lines, int64(0)
	if c.saver != nil {
		saved, err := c.saver.Close()
		if c.err == nil && err == nil {
			path, lines, dropped = c.path, saved.Lines, saved.Dropped
		}
	}
	ring := make([]byte, 0, len(c.tail))
	ring = append(ring, c.tail[c.next:]...)
	ring = append(ring, c.tail[:c.next]...)
	if c.total == int64(len(c.head)+len(ring)) {
		return cleanOutput(append(c.head, ring...))
	}
	head := tools.CutHead(string(c.head))
	// ring[0] is the byte before the kept tail: after a line break the
	// tail already starts a line.
	tail := string(ring[1:])
	if ring[0] != '\n' {
		tail = tools.CutTail(tail)
	}
	omitted := c.total - int64(len(head)+len(tail))
	// The omitted bytes end just before the tail; their last line is the
	// one holding that byte.
	endsLine := int64(0)
	if ring[len(ring)-len(tail)-1] == '\n' {
		endsLine = 1
	}
	first := strings.Count(head, "\n") + 1
	last := int(lines-int64(strings.Count(tail, "\n"))-endsLine) + 1
	var b strings.Builder
	b.WriteString(cleanOutput([]byte(head)))
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(tools.OmittedNote(omitted, first, last, path, dropped) + "\n")
	b.WriteString(cleanOutput([]byte(tail)))
	return b.String()
}

// ansiEscape matches terminal escape sequences: CSI (colours, cursor
// movement), OSC (window titles, hyperlinks) and the short ESC forms. Every
// part after ESC is optional so a sequence cut off by the output cap, or a
// stray ESC, is removed too.
var ansiEscape = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|[ -/]*[0-~]?)`)

// cleanOutput makes raw command output safe to show: escape sequences go,
// and bytes that are not UTF-8 become U+FFFD.
func cleanOutput(b []byte) string {
	if bytes.IndexByte(b, 0x1b) >= 0 {
		b = ansiEscape.ReplaceAll(b, nil)
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

func (bash) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyShell, Kind: tools.KindExecute}
}

func (t bash) Describe(args json.RawMessage) tools.Call {
	cmd := tools.ArgString(args, "command")
	// The words that may name files (ReadPaths) are for the rules about
	// reading, not paths to show. The wording holds the whole command,
	// as the terminal shows it: what a cut would leave out runs all the
	// same once the call is allowed.
	wording := fmt.Sprintf("run the command `%s`", cmd)
	var bg struct {
		RunInBackground bool `json:"run_in_background"`
	}
	if json.Unmarshal(args, &bg) == nil && bg.RunInBackground {
		// Said, since it goes on running after the answer.
		wording += " in the background"
	}
	return tools.Call{Title: tools.Title(t.Name(), cmd), Wording: wording}
}
