//go:build windows

package builtin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// usableShell rejects the WSL launchers named bash.exe (in System32 and in
// WindowsApps): they run the command inside a Linux VM, where the
// workspace's Windows path does not exist.
func usableShell(path string) bool {
	dir := strings.ToLower(filepath.Dir(path))
	if root := os.Getenv("SystemRoot"); root != "" && dir == strings.ToLower(filepath.Join(root, "System32")) {
		return false
	}
	return !strings.HasSuffix(dir, `\windowsapps`)
}

// fallbackShell runs the command with cmd.exe when neither bash nor sh is
// in PATH. cmd.exe does not split its command line by the quoting rules Go
// uses for arguments, so the line is written out: /s /c "…" makes cmd.exe
// strip the outer quotes and run the rest exactly as given.
func fallbackShell(command string) *exec.Cmd {
	cmd := exec.Command("cmd.exe")
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd.exe /d /s /c "` + command + `"`}
	return cmd
}
