// Package mcptest finds and runs the MCP reference servers that tests of
// several packages drive: server-everything and server-filesystem,
// installed with npm into tools/mcp/testdata/servers by its install.sh
// (make peers runs it).
package mcptest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BinDir returns the directory holding the servers' programs
// (mcp-server-everything, mcp-server-filesystem), for a PATH.
func BinDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "servers", "node_modules", ".bin")
}

// Require returns the path of an installed server program. A missing
// server, or a missing node to run it, skips the test, or fails it when
// REASONIX_REQUIRE_PEERS=1.
func Require(t testing.TB, program string) string {
	t.Helper()
	path := filepath.Join(BinDir(), program)
	msg := ""
	if _, err := os.Stat(path); err != nil {
		msg = program + " is not installed; tools/mcp/testdata/servers/install.sh installs it"
	} else if _, err := exec.LookPath("node"); err != nil {
		msg = "node is not in PATH; " + program + " needs it"
	}
	if msg != "" {
		if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
			t.Fatal(msg + ", and REASONIX_REQUIRE_PEERS=1 requires it")
		}
		t.Skip(msg)
	}
	return path
}

// ServeEverything runs server-everything over HTTP — mode "streamableHttp"
// (served at /mcp) or "sse" — on a free loopback port until the test ends,
// and returns its base URL once it listens.
func ServeEverything(t testing.TB, mode string) (string, *exec.Cmd) {
	t.Helper()
	bin := Require(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	cmd := exec.Command(bin, mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The program is node itself (the .bin entry is a script with a
		// shebang), so killing it stops the server.
		cmd.Process.Kill()
		cmd.Wait()
	})
	// It says on stderr when it listens ("… on port N").
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var lines []string
		told := false
		for sc.Scan() { // read to the end, so the server never blocks on stderr
			if told {
				continue
			}
			lines = append(lines, sc.Text())
			if strings.Contains(sc.Text(), "on port "+strconv.Itoa(port)) {
				ready <- nil
				told = true
			}
		}
		if !told {
			ready <- fmt.Errorf("server-everything %s exited: %s", mode, strings.Join(lines, "\n"))
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("server-everything %s did not start listening within a minute", mode)
	}
	return "http://127.0.0.1:" + strconv.Itoa(port), cmd
}
