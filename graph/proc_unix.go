//go:build unix

package graph

import (
	"os"
	"os/exec"
	"syscall"
)

// newGroup makes the server the leader of a new process group, so that
// killGroup also reaches what it starts (tsserver, worker processes).
func newGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group p leads. Signalling a group that is
// gone already is harmless.
func killGroup(p *os.Process) {
	if p == nil {
		return
	}
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}
