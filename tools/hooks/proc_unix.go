//go:build unix

package hooks

import (
	"os"
	"os/exec"
	"syscall"
)

// prepareGroup puts the hook in a process group of its own, so that a
// timeout stops what it started too.
func prepareGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group p leads, and p.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}
