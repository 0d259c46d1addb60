//go:build windows

package builtin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

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
func fallbackShell(ctx context.Context, command string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "cmd.exe")
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd.exe /d /s /c "` + command + `"`}
	return cmd
}

// exitSignal always reports 0: Windows processes end with an exit code.
func exitSignal(*os.ProcessState) (int, string) { return 0, "" }
