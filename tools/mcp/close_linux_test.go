//go:build linux

package mcp

import (
	"errors"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCloseStopsProcessGroup starts server-everything from a shell that
// leaves a background process behind: Close stops both.
func TestCloseStopsProcessGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	m := start(t, Options{Servers: []ServerConfig{{
		Name:    "tree",
		Command: "sh",
		Args:    []string{"-c", `sleep 600 & echo $! > "$PIDFILE"; exec "$SERVER"`},
		Env:     map[string]string{"PIDFILE": pidFile, "SERVER": requireServer(t, "mcp-server-everything")},
	}}})
	if st := statusOf(t, m, "tree"); st.State != "connected" {
		t.Fatalf("status %+v", st)
	}
	pid := readPID(t, pidFile)
	// A pidfd becomes readable when its process ends, zombie or not.
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ENOSYS) {
		t.Skip("no pidfd_open on this kernel")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 30_000)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("the server's background process %d outlived Close", pid)
		}
		break
	}
}
