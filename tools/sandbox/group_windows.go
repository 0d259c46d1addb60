//go:build windows

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// killGrace is how long Close waits for a command tree to go.
const killGrace = 2 * time.Second

// prepareTree has nothing to set up on Windows: killTree finds the
// children through their parent process ids.
func prepareTree(*exec.Cmd) {}

// killTree ends p and its descendants with taskkill. It is best effort: a
// child whose parent already exited is no longer linked to the tree. If
// taskkill cannot run, p itself is still killed.
func killTree(p *os.Process) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	kill := exec.CommandContext(ctx, "taskkill", "/T", "/F", "/PID", strconv.Itoa(p.Pid))
	kill.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
	if err := kill.Run(); err != nil {
		return p.Kill()
	}
	return nil
}

// statusOf reports how a process ended: Windows processes end with an
// exit code.
func statusOf(ps *os.ProcessState) tools.ExitStatus {
	if ps == nil {
		return tools.ExitStatus{Code: -1}
	}
	return tools.ExitStatus{Code: ps.ExitCode()}
}
