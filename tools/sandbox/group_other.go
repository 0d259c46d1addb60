//go:build !unix && !windows

package sandbox

import (
	"os"
	"os/exec"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// On systems without Unix process groups or taskkill (plan9, wasip1, js),
// only the shell itself can be stopped.

const killGrace = 2 * time.Second

func prepareTree(*exec.Cmd) {}

func killTree(p *os.Process) error { return p.Kill() }

func statusOf(ps *os.ProcessState) tools.ExitStatus {
	if ps == nil {
		return tools.ExitStatus{Code: -1}
	}
	return tools.ExitStatus{Code: ps.ExitCode()}
}
