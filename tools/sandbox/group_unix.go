//go:build unix

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// killGrace is how long a command tree gets to exit after SIGTERM before
// whatever is left of it gets SIGKILL.
const killGrace = 2 * time.Second

// prepareTree starts the command as the leader of a new session, and so of
// a new process group that its children join: killTree can then signal
// all of them at once. A session rather than only a group (Setpgid) also
// detaches the command from our terminal, so a program that opens
// /dev/tty for a password or a yes/no question (ssh, sudo, gpg) fails at
// once instead of being stopped by SIGTTIN and hanging until the timeout.
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

// statusOf reports how a process ended.
func statusOf(ps *os.ProcessState) tools.ExitStatus {
	if ps == nil {
		return tools.ExitStatus{Code: -1}
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return tools.ExitStatus{Code: ps.ExitCode()}
	}
	return waitStatus(ws)
}

// waitStatus turns a wait status into an ExitStatus.
func waitStatus(ws syscall.WaitStatus) tools.ExitStatus {
	if ws.Signaled() {
		return tools.ExitStatus{Code: -1, Signal: int(ws.Signal()), SignalName: ws.Signal().String()}
	}
	return tools.ExitStatus{Code: ws.ExitStatus()}
}
