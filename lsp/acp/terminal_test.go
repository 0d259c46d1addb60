package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/tools/sandbox"

	"github.com/reasonix/reasonix/agent/agenttest"
)

// terminals are an editor's terminals: each runs the command it is
// given, as given, with the editor's environment beneath the command's
// variables (as editors merge them), and keeps the end of its output
// within the byte limit.
type terminals struct {
	mu       sync.Mutex // guards every field below
	next     int
	live     map[string]*term
	created  []acpsdk.CreateTerminalRequest
	killed   []string
	released []string
	// releases hears each released terminal's id.
	releases chan string
}

type term struct {
	cmd  *exec.Cmd
	out  *tailBuffer
	done chan struct{}
}

func newTerminals() *terminals {
	return &terminals{live: map[string]*term{}, releases: make(chan string, 16)}
}

func (ts *terminals) create(p acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	cmd := exec.Command(p.Command, p.Args...)
	cmd.Env = os.Environ()
	for _, v := range p.Env {
		cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
	}
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	out := &tailBuffer{}
	if p.OutputByteLimit != nil {
		out.limit = *p.OutputByteLimit
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return acpsdk.CreateTerminalResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	t := &term{cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(t.done)
	}()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.next++
	id := fmt.Sprintf("term-%d", ts.next)
	ts.live[id] = t
	ts.created = append(ts.created, p)
	return acpsdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (ts *terminals) get(id string) (*term, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t := ts.live[id]; t != nil {
		return t, nil
	}
	return nil, acpsdk.NewInvalidParams(map[string]any{"error": "no terminal " + id})
}

func (ts *terminals) wait(ctx context.Context, p acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	t, err := ts.get(p.TerminalId)
	if err != nil {
		return acpsdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return acpsdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	st := t.status()
	return acpsdk.WaitForTerminalExitResponse{ExitCode: st.ExitCode, Signal: st.Signal}, nil
}

// status is how the terminal's command ended.
func (t *term) status() *acpsdk.TerminalExitStatus {
	ps := t.cmd.ProcessState
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &acpsdk.TerminalExitStatus{Signal: acpsdk.Ptr("SIG" + strings.ToUpper(strings.TrimPrefix(signalName(ws.Signal()), "SIG")))}
	}
	return &acpsdk.TerminalExitStatus{ExitCode: acpsdk.Ptr(ps.ExitCode())}
}

// signalName names a signal as editors do ("KILL" for SIGKILL).
func signalName(s syscall.Signal) string {
	if s == syscall.SIGKILL {
		return "KILL"
	}
	return fmt.Sprint(int(s))
}

func (ts *terminals) kill(p acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	t, err := ts.get(p.TerminalId)
	if err != nil {
		return acpsdk.KillTerminalResponse{}, err
	}
	_ = t.cmd.Process.Kill()
	ts.mu.Lock()
	ts.killed = append(ts.killed, p.TerminalId)
	ts.mu.Unlock()
	return acpsdk.KillTerminalResponse{}, nil
}

func (ts *terminals) output(p acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	t, err := ts.get(p.TerminalId)
	if err != nil {
		return acpsdk.TerminalOutputResponse{}, err
	}
	text, truncated := t.out.text()
	resp := acpsdk.TerminalOutputResponse{Output: text, Truncated: truncated}
	select {
	case <-t.done:
		resp.ExitStatus = t.status()
	default:
	}
	return resp, nil
}

func (ts *terminals) release(p acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	t, err := ts.get(p.TerminalId)
	if err != nil {
		return acpsdk.ReleaseTerminalResponse{}, err
	}
	_ = t.cmd.Process.Kill()
	ts.mu.Lock()
	delete(ts.live, p.TerminalId)
	ts.released = append(ts.released, p.TerminalId)
	ts.mu.Unlock()
	ts.releases <- p.TerminalId
	return acpsdk.ReleaseTerminalResponse{}, nil
}

// tailBuffer keeps the last limit bytes written to it, cut at a
// character boundary.
type tailBuffer struct {
	mu        sync.Mutex // guards the fields below
	b         []byte
	limit     int
	truncated bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b = append(b.b, p...)
	if b.limit > 0 && len(b.b) > b.limit {
		cut := len(b.b) - b.limit
		for cut < len(b.b) && !utf8.RuneStart(b.b[cut]) {
			cut++
		}
		b.b = append([]byte(nil), b.b[cut:]...)
		b.truncated = true
	}
	return len(p), nil
}

func (b *tailBuffer) text() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.b), b.truncated
}

// needJail skips a test where shell commands cannot be confined.
func needJail(t *testing.T) {
	t.Helper()
	if err := sandbox.Available(); err != nil {
		t.Skipf("the shell sandbox is unavailable here: %v", err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not in PATH")
	}
}

// terminalSession starts a session in a workspace playing script, where
// [sandbox] client_terminal lets the editor's terminals run commands,
// with more [sandbox] lines, for an editor with terminals.
func terminalSession(t *testing.T, script, sandboxLines string, ed *editor) (*acpsdk.ClientSideConnection, acpsdk.SessionId, string) {
	t.Helper()
	root := workspace(t, script)
	appendConfig(t, root, "[sandbox]\nclient_terminal = true\n"+sandboxLines)
	ed.terms = newTerminals()
	conn := connect(t, ed)
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return conn, sess.SessionId, root
}

// terminalContent returns the terminal ids the updates showed in tool
// calls, by call.
func terminalContent(updates []acpsdk.SessionUpdate) map[acpsdk.ToolCallId][]string {
	out := map[acpsdk.ToolCallId][]string{}
	for _, u := range updates {
		if u.ToolCallUpdate == nil {
			continue
		}
		for _, c := range u.ToolCallUpdate.Content {
			if c.Terminal != nil {
				out[u.ToolCallUpdate.ToolCallId] = append(out[u.ToolCallUpdate.ToolCallId], c.Terminal.TerminalId)
			}
		}
	}
	return out
}

// TestTerminalRunsConfinedCommand: with a client that offers a terminal,
// the bash call runs there — the editor spawns the command it is given —
// and that command is Reasonix's jail with the shell behind it: a read
// of a forbidden file fails in the editor's terminal as it would in
// Reasonix's own. The tool call shows the terminal, and the model gets
// the output and exit code as from a local run, with a note when the
// terminal kept only the end of a long output.
func TestTerminalRunsConfinedCommand(t *testing.T) {
	needJail(t)
	private, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(private, "key"), []byte("hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The path is built at run time, so only the jail can refuse it.
	read := fmt.Sprintf("cat $(echo %s)/%s/key", filepath.Dir(private), filepath.Base(private))
	args, _ := json.Marshal(map[string]string{"command": read})
	script := `call bash {"command": "echo hello; echo oops >&2; exit 3"}
---
expect tool hello
expect tool oops
expect tool Exit code: 3
call bash {"command": "head -c 40000 /dev/zero | tr '\\0' a; echo; echo last"}
---
expect tool Note: the output was longer than the editor's terminal keeps (32768 bytes); its beginning is cut.
expect tool aaaa
expect tool last
call bash ` + string(args) + `
---
expect tool Permission denied
expect tool declined
text done
`
	escalations := 0
	ed := &editor{answer: func(p acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse {
		if len(p.Options) == 2 { // rerun outside the sandbox?
			escalations++
			return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected("reject_once")}
		}
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected("allow_once")}
	}}
	conn, sid, root := terminalSession(t, script, fmt.Sprintf("forbid_read = [%q]\n", private), ed)
	resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sid, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("run it")}})
	if err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", resp, err)
	}
	if escalations != 1 {
		t.Errorf("%d questions about rerunning outside the sandbox, want 1 (the refused read)", escalations)
	}

	ts := ed.terms
	ts.mu.Lock()
	created, released := slices.Clone(ts.created), slices.Clone(ts.released)
	ts.mu.Unlock()
	if len(created) != 3 {
		t.Fatalf("%d terminals created, want 3", len(created))
	}
	for _, c := range created {
		jailSpec := slices.ContainsFunc(c.Env, func(v acpsdk.EnvVariable) bool { return v.Name == "REASONIX_JAIL" })
		if !filepath.IsAbs(c.Command) || len(c.Args) < 2 || c.Args[0] != "__reasonix_jail__" || !jailSpec {
			t.Errorf("the editor was asked to run %s %q, not the jail", c.Command, c.Args)
		}
		if c.Cwd == nil || *c.Cwd != root || c.OutputByteLimit == nil || *c.OutputByteLimit != 32<<10 {
			t.Errorf("terminal/create cwd %v, outputByteLimit %v", c.Cwd, c.OutputByteLimit)
		}
	}
	if want := []string{"term-1", "term-2", "term-3"}; !slices.Equal(released, want) {
		t.Errorf("released %v, want %v", released, want)
	}

	ed.mu.Lock()
	defer ed.mu.Unlock()
	shown := terminalContent(ed.updates)
	var results []string
	for _, u := range ed.updates {
		if u.ToolCallUpdate == nil || u.ToolCallUpdate.Status == nil || *u.ToolCallUpdate.Status == acpsdk.ToolCallStatusInProgress {
			continue
		}
		if ids := shown[u.ToolCallUpdate.ToolCallId]; len(ids) != 1 {
			t.Errorf("call %s showed terminals %v, want one", u.ToolCallUpdate.ToolCallId, ids)
		}
		for _, c := range u.ToolCallUpdate.Content {
			if c.Content != nil && c.Content.Content.Text != nil {
				results = append(results, c.Content.Content.Text.Text)
			}
		}
	}
	if len(results) != 3 || !strings.HasPrefix(results[0], "hello\noops\n") || !strings.HasSuffix(results[0], "Exit code: 3") ||
		!strings.HasPrefix(results[1], "Note: the output was longer than the editor's terminal keeps") || // its end is clipped in the update
		!strings.Contains(results[2], "Permission denied") || strings.Contains(results[2], "hunter2") {
		t.Errorf("results = %q", results)
	}
}

// checkKilledAndReleased waits for the one terminal of a test to be
// released and checks that it was killed first.
func checkKilledAndReleased(t *testing.T, ts *terminals) {
	t.Helper()
	select {
	case <-ts.releases:
	case <-testCtx(t).Done():
		t.Fatal("the terminal was never released")
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if !slices.Equal(ts.killed, []string{"term-1"}) || !slices.Equal(ts.released, []string{"term-1"}) {
		t.Errorf("killed %v, released %v; want term-1 both", ts.killed, ts.released)
	}
}

// TestTerminalTimeoutKills: the call's timeout kills the command in the
// editor's terminal; the model reads the same timeout as from a local run.
func TestTerminalTimeoutKills(t *testing.T) {
	needJail(t)
	ed := &editor{}
	conn, sid, _ := terminalSession(t, `call bash {"command": "sleep 30", "timeout_seconds": 1}
---
expect tool Timed out after 1s; the command and its child processes were killed.
text stopped
`, "", ed)
	resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sid, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("sleep")}})
	if err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", resp, err)
	}
	checkKilledAndReleased(t, ed.terms)
}

// TestTerminalCancelKills: cancelling the turn while the command runs in
// the editor's terminal kills it and releases the terminal.
func TestTerminalCancelKills(t *testing.T) {
	needJail(t)
	ed := &editor{}
	conn, sid, _ := terminalSession(t, `call bash {"command": "sleep 30"}
---
text never
`, "", ed)
	var once sync.Once
	ed.mu.Lock()
	ed.onUpdate = func(u acpsdk.SessionUpdate) {
		if len(terminalContent([]acpsdk.SessionUpdate{u})) > 0 {
			once.Do(func() {
				if err := conn.Cancel(context.Background(), acpsdk.CancelNotification{SessionId: sid}); err != nil {
					t.Error(err)
				}
			})
		}
	}
	ed.mu.Unlock()
	resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sid, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("sleep")}})
	if err != nil || resp.StopReason != acpsdk.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v", resp, err)
	}
	checkKilledAndReleased(t, ed.terms)
}

// TestTerminalSignal: a command the client reports ended by a signal
// reads as a local run's does.
func TestTerminalSignal(t *testing.T) {
	needJail(t)
	ed := &editor{}
	conn, sid, _ := terminalSession(t, `call bash {"command": "echo before; kill -9 $$"}
---
expect tool before
expect tool Killed by signal 9 (killed).
text killed
`, "", ed)
	resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sid, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("die")}})
	if err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", resp, err)
	}
}

// appendConfig appends text to the workspace's reasonix.toml.
func appendConfig(t *testing.T, root, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(root, "reasonix.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	agenttest.Trust(t, root) // the test's own settings
}

// TestTerminalNotChosen: a client's terminal would run commands without
// the namespaces a local run gets, so without [sandbox] client_terminal
// the jailed local bash runs them even when the client offers one.
func TestTerminalNotChosen(t *testing.T) {
	needJail(t)
	ed := &editor{terms: newTerminals()}
	root := workspace(t, `call bash {"command": "echo local"}
---
expect tool local
text Ran.
`)
	appendConfig(t, root, "[permissions]\nallow = [\"Bash(echo:*)\"]\n")
	conn := connect(t, ed)
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("run it")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	ed.terms.mu.Lock()
	n := len(ed.terms.created)
	ed.terms.mu.Unlock()
	if n != 0 {
		t.Errorf("%d terminals created without [sandbox] client_terminal", n)
	}
}
