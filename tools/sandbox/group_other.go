//go:build !unix && !windows

package builtin

import (
	"context"
	"os"
	"os/exec"
)

// On systems without Unix process groups or taskkill (plan9, wasip1, js),
// only the shell itself can be stopped.

func prepareTree(*exec.Cmd) {}

func killTree(p *os.Process) error { return p.Kill() }

func usableShell(string) bool { return true }

func fallbackShell(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "sh", "-c", command)
}

func exitSignal(*os.ProcessState) (int, string) { return 0, "" }
