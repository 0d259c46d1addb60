//go:build unix

package mcp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// requireServer returns the path of an npm-installed server's program
// (mcp-server-everything, mcp-server-filesystem), or skips the test.
func requireServer(t testing.TB, bin string) string {
	return mcptest.Require(t, bin)
}

// everything returns the configuration of server-everything over stdio.
func everything(t testing.TB) ServerConfig {
	return ServerConfig{Name: "everything", Command: requireServer(t, "mcp-server-everything")}
}

// freePort returns a loopback TCP port nobody listens on right now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start starts a Manager that the test closes, logging to the test's
// output with -v.
func start(t testing.TB, opts Options) *Manager {
	t.Helper()
	var w io.Writer = io.Discard
	if testing.Verbose() {
		w = os.Stderr
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	m := Start(t.Context(), opts)
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m
}

// findTool returns m's tool of the given model-facing name.
func findTool(t testing.TB, m *Manager, name string) tools.Tool {
	t.Helper()
	var names []string
	for _, tl := range m.Tools() {
		if tl.Name() == name {
			return tl
		}
		names = append(names, tl.Name())
	}
	t.Fatalf("no tool %s among %v (status %+v, warnings %q)", name, names, m.Status(), m.Warnings())
	return nil
}

// call executes tool name of m with args, which is marshalled to JSON.
func call(t testing.TB, ctx context.Context, m *Manager, name string, args any) tools.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := findTool(t, m, name).Execute(ctx, &tools.Env{}, raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// wantContent fails t unless res succeeded and its content holds want.
func wantContent(t testing.TB, res tools.Result, want string) {
	t.Helper()
	if res.IsError || !strings.Contains(res.Content, want) {
		t.Errorf("got result %+v, want success holding %q", res, want)
	}
}

// wantError fails t unless res failed and its content holds each of want.
func wantError(t testing.TB, res tools.Result, want ...string) {
	t.Helper()
	if !res.IsError || !strings.HasPrefix(res.Content, "Error: ") {
		t.Errorf("got result %+v, want an error result", res)
		return
	}
	for _, w := range want {
		if !strings.Contains(res.Content, w) {
			t.Errorf("error result %q does not mention %q", res.Content, w)
		}
	}
}

// statusOf returns m's status of the named server.
func statusOf(t testing.TB, m *Manager, name string) Status {
	t.Helper()
	for _, st := range m.Status() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no server %q in %+v", name, m.Status())
	return Status{}
}

// liveSession returns the live session of m's server name.
func liveSession(t testing.TB, m *Manager, name string) *session {
	t.Helper()
	s, err := m.lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == nil {
		t.Fatalf("server %q has no live session", name)
	}
	return s.sess
}

// processGone reports whether no process has the given pid (a zombie
// counts as present).
func processGone(pid int) bool {
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// readPID returns the process id a test server wrote to file.
func readPID(t testing.TB, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
