package builtin

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// terminalOutputLimit is the output the editor's terminal is asked to
// keep: the cap of the tool's result.
const terminalOutputLimit = bashHeadBytes + bashTailBytes

// terminalCommand turns cmd, built to run under Procs, into the command
// the editor's terminal starts, and reports whether it is confined. A
// command to confine is handed on only confined the same way, through
// the jail's own executable (sandbox.Jail.ConfineExternal); when that
// cannot be done, ok is false and the command runs under Procs, jailed
// or with the note that says why not, as it would without a terminal. A
// command that runs unconfined anyway — [sandbox] bash = "off", or a
// rerun outside the sandbox the user allowed — goes to the terminal as
// the plain shell.
func terminalCommand(env *tools.Env, cmd *exec.Cmd, confine bool) (tc tools.TerminalCommand, confined, ok bool) {
	if cmd.Err != nil {
		return tc, false, false // fails the ordinary way under Procs
	}
	if confine && env.Jail != nil {
		j, isJail := env.Jail.(*sandbox.Jail)
		if !isJail || j.ConfineExternal(cmd, env.HideEnv) != nil {
			return tc, false, false
		}
		confined = true
	}
	return tools.TerminalCommand{
		Path:        cmd.Path,
		Args:        cmd.Args[1:],
		Env:         cmd.Env,
		Dir:         cmd.Dir,
		OutputLimit: terminalOutputLimit,
	}, confined, true
}

// terminalTruncatedNote heads the output when the terminal kept only its
// end.
const terminalTruncatedNote = "Note: the output was longer than the editor's terminal keeps (%d bytes); its beginning is cut."

// runInTerminal runs tc in env.Terminal and renders the run as runShell
// does, so the model sees the same result either way. runCtx carries the
// call's timeout; ctx ending means the turn stopped.
func runInTerminal(ctx, runCtx context.Context, env *tools.Env, tc tools.TerminalCommand, confined bool, timeout time.Duration) (*shellRun, error) {
	tr, err := env.Terminal.Run(runCtx, tc)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		res := tools.Errorf("the editor's terminal could not run the command: %v", err)
		return &shellRun{failedToStart: &res}, nil
	}
	// The terminal keeps up to OutputLimit bytes, and a client may keep
	// more: cap it as a pipe's output is, saving what outgrows the cap.
	out := capture{path: tools.OutputFile(ctx)}
	_, _ = out.Write([]byte(tr.Output))
	run := &shellRun{confined: confined, output: out.text()}
	if tr.Truncated {
		run.notes = append(run.notes, fmt.Sprintf(terminalTruncatedNote, tc.OutputLimit))
	}
	run.notes = append(run.notes, tr.Status.Notes...)
	run.outcome = shellOutcome{
		status:   tr.Status,
		timedOut: tr.Killed && runCtx.Err() != nil,
		timeout:  timeout,
	}
	return run, nil
}
