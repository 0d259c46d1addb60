//go:build unix

package builtin

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// killGrace is how long a command tree gets to exit after SIGTERM before
// whatever is left of it gets SIGKILL.
const killGrace = 2 * time.Second

// prepareTree starts the shell as the leader of a new session, and so of a
// new process group that its children join: killTree can then signal all of
// them at once. A session rather than only a group (Setpgid) also detaches
// the command from our terminal, so a program that opens /dev/tty for a
// password or a yes/no question (ssh, sudo, gpg) fails at once instead of
// being stopped by SIGTTIN and hanging until the timeout.
func prepareTree(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

// killTree sends SIGTERM to the process group led by p, so that
// grandchildren such as `sleep 100 &` die with the shell, and SIGKILL to
// whatever is left of the group after killGrace. The follow-up runs from a
// timer rather than blocking the caller: a polling loop cannot tell a live
// member from a zombie that nobody has reaped yet. The group id cannot be
// reused while any member, zombies included, still exists.
func killTree(p *os.Process) error {
	pgid := p.Pid
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	time.AfterFunc(killGrace, func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	return nil
}

// usableShell reports whether a bash or sh found in PATH may be used.
func usableShell(string) bool { return true }

// fallbackShell is used when neither bash nor sh is in PATH.
func fallbackShell(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "/bin/sh", "-c", command)
}

// exitSignal returns the number and name of the signal that ended the
// process, or 0 if it exited by itself.
func exitSignal(ps *os.ProcessState) (int, string) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, ""
	}
	return int(ws.Signal()), ws.Signal().String()
}
