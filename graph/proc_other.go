//go:build !unix

package graph

import (
	"os"
	"os/exec"
)

func newGroup(*exec.Cmd) {}

func killGroup(p *os.Process) {
	if p != nil {
		_ = p.Kill()
	}
}
