//go:build !windows

package builtin

import (
	"os/exec"
	"runtime"
)

// usableShell reports whether a bash or sh found in PATH may be used.
func usableShell(string) bool { return true }

// fallbackShell is used when neither bash nor sh is in PATH.
func fallbackShell(command string) *exec.Cmd {
	sh := "/bin/sh"
	if runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		sh = "sh"
	}
	return exec.Command(sh, "-c", command)
}
