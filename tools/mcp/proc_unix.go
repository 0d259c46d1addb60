//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// prepareGroup makes the server the leader of a new session, and so of a
// new process group that its children join, so that terminateGroup and
// killGroup reach all of them. A session rather than only a group
// (Setpgid) also detaches the server from our terminal: a server that
// opens /dev/tty to ask something fails at once instead of hanging.
func prepareGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// terminateGroup sends SIGTERM to the process group p leads. The group id
// cannot be reused while any member, zombies included, exists.
func terminateGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) }

// killGroup sends SIGKILL to the process group p leads.
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
