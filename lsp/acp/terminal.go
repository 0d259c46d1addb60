package acp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/agent/config"

	"github.com/reasonix/reasonix/tools"
)

// terminal is the tools.Terminal of a session whose client declares
// clientCapabilities.terminal: the bash tool's command, confined by the
// jail through Reasonix's own executable (tools/builtin decides what is
// handed on), runs in the editor's terminal, which the tool call shows
// live. The command's end, its output and the truncation flag come back
// through terminal/wait_for_exit and terminal/output; the terminal is
// always released.
type terminal struct {
	ss *session
}

var _ tools.Terminal = (*terminal)(nil)

// terminalRequestTimeout bounds each terminal request other than the
// wait for the command's end, which the call's own timeout bounds.
const terminalRequestTimeout = clientTimeout

// Run implements tools.Terminal.
func (t *terminal) Run(ctx context.Context, c tools.TerminalCommand) (tools.TerminalRun, error) {
	ss := t.ss
	conn := ss.s.conn
	ss.mu.Lock()
	sid := acpsdk.SessionId(ss.id)
	ss.mu.Unlock()
	env := make([]acpsdk.EnvVariable, 0, len(c.Env))
	for _, kv := range c.Env {
		name, value, _ := strings.Cut(kv, "=")
		env = append(env, acpsdk.EnvVariable{Name: name, Value: value})
	}
	req := acpsdk.CreateTerminalRequest{
		SessionId: sid,
		Command:   c.Path,
		Args:      c.Args,
		Env:       env,
		Cwd:       acpsdk.Ptr(c.Dir),
	}
	if c.OutputLimit > 0 {
		req.OutputByteLimit = acpsdk.Ptr(c.OutputLimit)
	}
	// The requests that end a terminal go out on the connection's
	// context: they must still be sent after the call's context ended.
	bounded := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(ss.s.ctx, terminalRequestTimeout)
	}
	// Not on ctx either: a create cancelled after the client made the
	// terminal would leave it unreleased, its id never learnt.
	cctx, cancel := bounded()
	created, err := conn.CreateTerminal(cctx, req)
	cancel()
	if err != nil {
		return tools.TerminalRun{}, fmt.Errorf("terminal/create: %w", err)
	}
	id := created.TerminalId
	defer func() {
		rctx, cancel := bounded()
		defer cancel()
		if _, err := conn.ReleaseTerminal(rctx, acpsdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: id}); err != nil {
			ss.s.log.Debug("terminal/release", "terminal", id, "err", err)
		}
	}()
	if call := ss.runningCommand(); call != "" {
		ss.update(acpsdk.UpdateToolCall(acpsdk.ToolCallId(call),
			acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusInProgress),
			acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{acpsdk.ToolTerminalRef(id)})))
	}

	var run tools.TerminalRun
	exit, err := conn.WaitForTerminalExit(ctx, acpsdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: id})
	if err != nil && ctx.Err() == nil {
		return run, fmt.Errorf("terminal/wait_for_exit: %w", err)
	}
	if ctx.Err() != nil {
		// The timeout, or the turn stopped: kill the command, then
		// learn how it ended.
		run.Killed = true
		kctx, cancel := bounded()
		_, kerr := conn.KillTerminal(kctx, acpsdk.KillTerminalRequest{SessionId: sid, TerminalId: id})
		cancel()
		if kerr != nil {
			return run, fmt.Errorf("terminal/kill: %w", kerr)
		}
		wctx, cancel := bounded()
		exit, err = conn.WaitForTerminalExit(wctx, acpsdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: id})
		cancel()
		if err != nil {
			return run, fmt.Errorf("terminal/wait_for_exit after terminal/kill: %w", err)
		}
	}
	octx, cancel := bounded()
	out, err := conn.TerminalOutput(octx, acpsdk.TerminalOutputRequest{SessionId: sid, TerminalId: id})
	cancel()
	if err != nil {
		return run, fmt.Errorf("terminal/output: %w", err)
	}
	run.Output, run.Truncated = out.Output, out.Truncated
	code, signal := exit.ExitCode, exit.Signal
	if code == nil && signal == nil && out.ExitStatus != nil {
		code, signal = out.ExitStatus.ExitCode, out.ExitStatus.Signal
	}
	run.Status, err = exitStatus(code, signal)
	return run, err
}

// exitStatus reads how the terminal's command ended: from
// terminal/wait_for_exit, or terminal/output when that said nothing.
func exitStatus(code *int, signal *string) (tools.ExitStatus, error) {
	switch {
	case signal != nil && *signal != "":
		num, name := signalOf(*signal)
		return tools.ExitStatus{Code: -1, Signal: num, SignalName: name}, nil
	case code != nil:
		return tools.ExitStatus{Code: *code}, nil
	}
	return tools.ExitStatus{}, errors.New("terminal/wait_for_exit: the client reported neither an exit code nor a signal")
}

// posixSignals are the signals a command commonly dies of, with the
// numbers and names the local run reports for them.
var posixSignals = map[string]struct {
	num  int
	name string
}{
	"HUP":  {1, "hangup"},
	"INT":  {2, "interrupt"},
	"QUIT": {3, "quit"},
	"ILL":  {4, "illegal instruction"},
	"ABRT": {6, "aborted"},
	"BUS":  {7, "bus error"},
	"FPE":  {8, "floating point exception"},
	"KILL": {9, "killed"},
	"SEGV": {11, "segmentation fault"},
	"PIPE": {13, "broken pipe"},
	"ALRM": {14, "alarm clock"},
	"TERM": {15, "terminated"},
}

// signalOf reads a signal as a client names it ("SIGKILL", "KILL", "9").
// A name it does not know keeps the client's wording with number -1.
func signalOf(s string) (int, string) {
	if n, err := strconv.Atoi(s); err == nil {
		for _, sig := range posixSignals {
			if sig.num == n {
				return n, sig.name
			}
		}
		return n, "signal " + s
	}
	if sig, ok := posixSignals[strings.TrimPrefix(strings.ToUpper(s), "SIG")]; ok {
		return sig.num, sig.name
	}
	return -1, s
}

// clientTerminalAllowed reports whether the bash tool may run its
// commands in the client's terminal. A command started there is confined
// by Landlock but not isolated by the namespaces a local run gets: it sees
// the editor's processes (and their environment, which may hold an API
// key) and UDP is open. That is the user's choice to make, with
// [sandbox] client_terminal; commands that run unconfined anyway
// ([sandbox] bash = "off") lose nothing there.
func clientTerminalAllowed(cfg *config.Config) bool {
	return cfg.Sandbox.ClientTerminal || cfg.Sandbox.Bash == "off"
}

// runningCommand finds the call whose command a terminal runs: the
// latest started, unfinished call of a tool that runs commands (of kind
// execute).
func (ss *session) runningCommand() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for i := len(ss.open) - 1; i >= 0; i-- {
		if c := ss.calls[ss.open[i]]; c != nil && c.kind == acpsdk.ToolKindExecute {
			return ss.open[i]
		}
	}
	return ""
}
