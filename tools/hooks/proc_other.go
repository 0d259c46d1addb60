//go:build !unix

package hooks

import (
	"os"
	"os/exec"
)

// Without process groups only the hook's own process can be stopped.

func prepareGroup(*exec.Cmd) {}

func killGroup(p *os.Process) { _ = p.Kill() }
