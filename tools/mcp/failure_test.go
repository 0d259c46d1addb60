//go:build unix

package mcp

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// TestStartFailures starts servers that cannot start beside one that
// can: each failure is a warning, and the good server works.
func TestStartFailures(t *testing.T) {
	t.Parallel()
	locked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	}))
	defer locked.Close()
	m := start(t, Options{Servers: []ServerConfig{
		everything(t),
		{Name: "locked", Type: "http", URL: locked.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer expired"}},
		{Name: "boom", Command: "sh", Args: []string{"-c", "echo starting >&2; echo boom >&2; exit 3"}},
		{Name: "missing", Command: "reasonix-no-such-server"},
		{Name: "odd", Type: "websocket", URL: "ws://127.0.0.1:1"},
		{Name: "refused", Type: "http", URL: "http://127.0.0.1:" + strconv.Itoa(freePort(t)) + "/mcp"},
		{Name: "nourl", Type: "sse"},
		{Name: "junk", Command: "sh", Args: []string{"-c", "echo Usage: junk [--port N]; exit 2"}},
		{Command: "sh"},
	}})

	warnings := strings.Join(m.Warnings(), "\n")
	for _, want := range []string{
		`MCP server "boom": the process exited with status 3; stderr: starting | boom`,
		`MCP server "missing": command "reasonix-no-such-server" not found`,
		`MCP server "odd": unknown type "websocket"`,
		`MCP server "refused": cannot connect to http://127.0.0.1:`,
		`MCP server "nourl": no url configured`,
		`MCP server "junk": the process exited with status 2; it also wrote "Usage: junk [--port N]" to stdout, which is not JSON-RPC`,
		`MCP server "locked": cannot connect to ` + locked.URL + `/mcp: `,
		`(HTTP 401: the server wants authorization; check the token in the plugin's headers`,
		`MCP server #9 has no name`,
	} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings do not mention %q:\n%s", want, warnings)
		}
	}
	if n := len(m.Warnings()); n != 8 {
		t.Errorf("%d warnings, want one per server that failed:\n%s", n, warnings)
	}
	for _, st := range m.Status() {
		want := "failed"
		if st.Name == "everything" {
			want = "connected"
		}
		if st.State != want || (want == "failed") != (st.Error != "") {
			t.Errorf("status %+v, want %s", st, want)
		}
	}
	if st := statusOf(t, m, "odd"); st.Transport != "websocket" {
		t.Errorf("status %+v, want the configured type as transport", st)
	}
	for _, tl := range m.Tools() {
		if !strings.HasPrefix(tl.Name(), "mcp__everything__") {
			t.Errorf("tool %s from a server that failed", tl.Name())
		}
	}
	wantContent(t, call(t, t.Context(), m, "mcp__everything__echo", map[string]any{"message": "still here"}), "Echo: still here")
	if _, err := m.GetPrompt(t.Context(), "boom", "x", nil); err == nil || !strings.Contains(err.Error(), "did not start") {
		t.Errorf("GetPrompt on a failed server: %v", err)
	}
}

// TestStartHang starts a server that never answers: Start gives up after
// StartTimeout and kills it.
func TestStartHang(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	m := start(t, Options{
		StartTimeout: 500 * time.Millisecond,
		Servers: []ServerConfig{
			{Name: "hang", Command: "sh", Args: []string{"-c", `echo $$ > "$PIDFILE"; exec sleep 600`}, Env: map[string]string{"PIDFILE": pidFile}},
		},
	})
	if w := m.Warnings(); len(w) != 1 || !strings.Contains(w[0], `MCP server "hang": did not finish starting within 500ms`) {
		t.Errorf("warnings %q", w)
	}
	if st := statusOf(t, m, "hang"); st.State != "failed" {
		t.Errorf("status %+v", st)
	}
	pid := readPID(t, pidFile)
	if !processGone(pid) {
		t.Errorf("the hung server (pid %d) is still there", pid)
	}
}

// TestStopAndRestart kills server-everything during a call and between
// calls: every call after a death restarts it, up to the restart budget.
func TestStopAndRestart(t *testing.T) {
	t.Parallel()
	m := start(t, Options{Servers: []ServerConfig{everything(t)}})
	ctx := t.Context()

	// The long operation reports progress every 100 ms, which shows it is
	// under way on the server.
	progress := make(chan struct{}, 1)
	reporting := tools.WithProgress(ctx, func(string) {
		select {
		case progress <- struct{}{}:
		default:
		}
	})
	results := make(chan string, 1)
	go func() {
		res := call(t, reporting, m, "mcp__everything__trigger-long-running-operation", map[string]any{"duration": 600, "steps": 6000})
		if !res.IsError {
			t.Errorf("the call survived its server: %+v", res)
		}
		results <- res.Content
	}()
	<-progress
	sess := liveSession(t, m, "everything")
	kill(t, sess)
	got := <-results
	for _, want := range []string{`MCP server "everything" stopped during the call`, "was ended by signal: killed", "restarted on the next call"} {
		if !strings.Contains(got, want) {
			t.Errorf("result %q does not mention %q", got, want)
		}
	}
	wantContent(t, call(t, ctx, m, "mcp__everything__echo", map[string]any{"message": "again"}), "Echo: again")
	if st := statusOf(t, m, "everything"); st.State != "connected" {
		t.Errorf("status after the restart: %+v", st)
	}
	if m.ToolsChanged() {
		t.Error("ToolsChanged after a restart that listed the same tools")
	}

	// Two more deaths between calls use up the budget of three restarts.
	for i := 2; i <= restartLimit; i++ {
		sess := liveSession(t, m, "everything")
		kill(t, sess)
		<-sess.done
		wantContent(t, call(t, ctx, m, "mcp__everything__echo", map[string]any{"message": "once more"}), "Echo: once more")
	}
	sess = liveSession(t, m, "everything")
	kill(t, sess)
	<-sess.done
	wantError(t, call(t, ctx, m, "mcp__everything__echo", map[string]any{"message": "no more"}),
		"restarted 3 times in the last 5m", "not restarted again")
	if st := statusOf(t, m, "everything"); st.State != "failed" || !strings.Contains(st.Error, "not restarted again") {
		t.Errorf("status after the budget ran out: %+v", st)
	}
}

// kill kills sess's server process group.
func kill(t *testing.T, sess *session) {
	t.Helper()
	if err := syscall.Kill(-sess.proc.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// TestToolTimeout bounds one tool by tool_timeout_seconds: the call is
// cancelled, the model is told how to raise the bound, and the server
// carries on.
func TestToolTimeout(t *testing.T) {
	t.Parallel()
	ev := everything(t)
	ev.CallTimeoutSeconds = 600
	ev.ToolTimeoutSeconds = map[string]int{"trigger-long-running-operation": 1}
	m := start(t, Options{Servers: []ServerConfig{ev}})
	ctx := t.Context()
	res := call(t, ctx, m, "mcp__everything__trigger-long-running-operation", map[string]any{"duration": 60, "steps": 1})
	wantError(t, res, "did not finish within 1s", `tool_timeout_seconds = { "trigger-long-running-operation" = N }`, "call_timeout_seconds")
	if res.Summary != "timed out after 1s" {
		t.Errorf("summary %q", res.Summary)
	}
	wantContent(t, call(t, ctx, m, "mcp__everything__echo", map[string]any{"message": "alive"}), "Echo: alive")
	if st := statusOf(t, m, "everything"); st.State != "connected" {
		t.Errorf("status %+v", st)
	}
}

// TestDisabled: a server with enabled = false is listed but never started,
// and offers nothing.
func TestDisabled(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "started")
	m := start(t, Options{Servers: []ServerConfig{{
		Name: "off", Disabled: true, Command: "sh", Args: []string{"-c", `touch "$MARKER"; exec sleep 600`},
		Env: map[string]string{"MARKER": marker},
	}}})
	if w := m.Warnings(); len(w) > 0 {
		t.Errorf("warnings %q", w)
	}
	if st := statusOf(t, m, "off"); st.State != "disabled" || st.Error != "" || st.Tools != 0 {
		t.Errorf("status %+v", st)
	}
	if len(m.Tools()) != 0 || len(m.Prompts()) != 0 {
		t.Errorf("a disabled server offers tools %v, prompts %v", m.Tools(), m.Prompts())
	}
	if _, err := m.GetPrompt(t.Context(), "off", "p", nil); err == nil || !strings.Contains(err.Error(), "is disabled") {
		t.Errorf("GetPrompt: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the disabled server was started")
	}
}
