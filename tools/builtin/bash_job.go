package builtin

import (
	"context"
	"fmt"
	"os"

	"github.com/reasonix/reasonix/tools"
)

// startJob starts command as a background job (tools.Jobs): a unit of
// env.Procs, confined as a foreground command would be, its output read
// into the job for bash_output. It never runs in the editor's terminal,
// which would keep the output from the job, and has no timeout: it runs
// until it ends, kill_shell stops it, or the session ends.
func startJob(ctx context.Context, env *tools.Env, command string) (tools.Result, error) {
	cmd := newShellCmd(env, command)
	pr, pw, err := os.Pipe()
	if err != nil {
		return tools.Result{}, fmt.Errorf("bash: %w", err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	proc, err := env.Procs.Start(cmd, env.Jail != nil)
	pw.Close() // the child holds its own copy
	if err != nil {
		pr.Close()
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Errorf("cannot start the shell: %v", err), nil
	}
	j := env.Jobs.Add(command, proc, pr)
	return tools.Result{
		Content: fmt.Sprintf("Started background job %s. Read its output with bash_output {\"id\": %q}; stop it with kill_shell {\"id\": %q}. "+
			"It runs until it ends, is stopped, or the session ends.", j.ID, j.ID, j.ID),
		Summary: "started " + j.ID,
	}, nil
}
