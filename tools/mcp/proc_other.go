//go:build !unix

package mcp

import (
	"os"
	"os/exec"
)

// Without Unix process groups only the server process itself can be
// stopped; on Windows there is no SIGTERM either, so both steps kill it.

func prepareGroup(*exec.Cmd) {}

func terminateGroup(p *os.Process) { _ = p.Kill() }

func killGroup(p *os.Process) { _ = p.Kill() }
