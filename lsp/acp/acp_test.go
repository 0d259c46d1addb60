package acp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/agent/agenttest"
	_ "github.com/reasonix/reasonix/agent/provider/openai"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/lsp/acp"
	_ "github.com/reasonix/reasonix/tools/builtin"
)

const calcGo = "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"

// workspace writes a Go file and a project config pointing at a scripted
// model server playing script.
func workspace(t testing.TB, script string) string {
	t.Helper()
	root, _ := workspaceServer(t, script)
	return root
}

// workspaceServer is workspace, with the model server, whose requests a
// test may read.
func workspaceServer(t testing.TB, script string) (string, *scripted.Server) {
	t.Helper()
	t.Setenv("REASONIX_HOME", t.TempDir())
	t.Setenv("DEEPSEEK_API_KEY", "")
	srv, url := agenttest.Serve(t, script, scripted.Options{})
	root := t.TempDir()
	cfg := fmt.Sprintf("default_model = \"scripted\"\n[[providers]]\nname = \"scripted\"\nbase_url = %q\nmodel = \"deepseek-flash\"\noptions = { retry_base_ms = 10 }\n", url)
	for name, body := range map[string]string{"calc.go": calcGo, "reasonix.toml": cfg} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	agenttest.Trust(t, root)
	return root, srv
}

// editor is a fake ACP client: it holds unsaved buffers, records what the
// agent sends, and answers permission requests with a chosen option.
type editor struct {
	mu          sync.Mutex
	buffers     map[string]string
	updates     []acpsdk.SessionUpdate
	permissions []acpsdk.RequestPermissionRequest
	writes      []acpsdk.WriteTextFileRequest
	reads       []string
	// answer picks the permission option; nil selects allow_once.
	answer func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse
	// onUpdate, when set, sees each update as it arrives.
	onUpdate func(acpsdk.SessionUpdate)
	// refuse, when set, makes fs/write_text_file fail for a path.
	refuse func(path string) bool
	// refuseRead, when set, is the error fs/read_text_file answers for
	// a path, or nil to read it.
	refuseRead func(path string) error
	// noRead declares no fs.readTextFile; firstSchema initializes as a
	// client on ACP's first schema does, without clientInfo.
	noRead, firstSchema bool
	// terms, when set, are the editor's terminals, and it declares
	// the terminal capability.
	terms *terminals
}

var _ acpsdk.Client = (*editor)(nil)

func (e *editor) ReadTextFile(_ context.Context, p acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reads = append(e.reads, p.Path)
	if e.refuseRead != nil {
		if err := e.refuseRead(p.Path); err != nil {
			return acpsdk.ReadTextFileResponse{}, err
		}
	}
	if text, ok := e.buffers[p.Path]; ok {
		return acpsdk.ReadTextFileResponse{Content: text}, nil
	}
	data, err := os.ReadFile(p.Path)
	if err != nil {
		return acpsdk.ReadTextFileResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return acpsdk.ReadTextFileResponse{Content: string(data)}, nil
}

func (e *editor) WriteTextFile(_ context.Context, p acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.refuse != nil && e.refuse(p.Path) {
		return acpsdk.WriteTextFileResponse{}, acpsdk.NewInternalError(map[string]any{"error": "read-only buffer"})
	}
	e.writes = append(e.writes, p)
	e.buffers[p.Path] = p.Content
	return acpsdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

func (e *editor) RequestPermission(_ context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.permissions = append(e.permissions, p)
	answer := e.answer
	e.mu.Unlock()
	if answer != nil {
		return answer(p), nil
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected("allow_once")}, nil
}

func (e *editor) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n.Update)
	on := e.onUpdate
	e.mu.Unlock()
	if on != nil {
		on(n.Update)
	}
	return nil
}

// The terminal methods are the editor's terminals (terminal_test.go),
// which an editor without them lacks.

func (e *editor) CreateTerminal(ctx context.Context, p acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	if e.terms == nil {
		return acpsdk.CreateTerminalResponse{}, errors.New("no terminal")
	}
	return e.terms.create(p)
}
func (e *editor) KillTerminal(_ context.Context, p acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	if e.terms == nil {
		return acpsdk.KillTerminalResponse{}, errors.New("no terminal")
	}
	return e.terms.kill(p)
}
func (e *editor) TerminalOutput(_ context.Context, p acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	if e.terms == nil {
		return acpsdk.TerminalOutputResponse{}, errors.New("no terminal")
	}
	return e.terms.output(p)
}
func (e *editor) ReleaseTerminal(_ context.Context, p acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	if e.terms == nil {
		return acpsdk.ReleaseTerminalResponse{}, errors.New("no terminal")
	}
	return e.terms.release(p)
}
func (e *editor) WaitForTerminalExit(ctx context.Context, p acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	if e.terms == nil {
		return acpsdk.WaitForTerminalExitResponse{}, errors.New("no terminal")
	}
	return e.terms.wait(ctx, p)
}

// connect serves ACP in process over pipes and returns the client's side.
func connect(t testing.TB, ed *editor) *acpsdk.ClientSideConnection {
	t.Helper()
	if ed.buffers == nil {
		ed.buffers = map[string]string{}
	}
	cr, aw := io.Pipe()
	ar, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- acp.Serve(ctx, ar, aw, acp.Options{Version: "test"}) }()
	t.Cleanup(func() {
		cw.Close()
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("Serve returned %d", code)
		}
		aw.Close()
	})
	conn := acpsdk.NewClientSideConnection(ed, cw, cr)
	req := acpsdk.InitializeRequest{
		ProtocolVersion:    acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{Fs: acpsdk.FileSystemCapabilities{ReadTextFile: !ed.noRead, WriteTextFile: true}, Terminal: ed.terms != nil},
	}
	if !ed.firstSchema {
		req.ClientInfo = &acpsdk.Implementation{Name: "reasonix-acp-test", Version: "0"}
	}
	init, err := conn.Initialize(testCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != acpsdk.ProtocolVersionNumber || !init.AgentCapabilities.LoadSession ||
		!init.AgentCapabilities.PromptCapabilities.EmbeddedContext || init.AgentCapabilities.PromptCapabilities.Image {
		t.Fatalf("initialize answered %+v", init)
	}
	return conn
}

func testCtx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// fixScript reads calc.go (the unsaved buffer), edits it, and answers.
const fixScript = `expect user Fix Add
reasoning Add subtracts instead of adding.
call read_file {"path": "calc.go"}
---
expect tool unsaved note
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
expect tool calc.go
text Fixed: Add adds now.
`

// TestPromptEditPermission drives a whole turn: the prompt, the streamed
// reasoning and answer, the read of an unsaved buffer through the client,
// the permission request, the edit written through fs/write_text_file
// and reported as a diff, and the prompt's answer.
func TestPromptEditPermission(t *testing.T) {
	root := workspace(t, fixScript)
	path := filepath.Join(root, "calc.go")
	ed := &editor{buffers: map[string]string{path: "// unsaved note\n" + calcGo}}
	conn := connect(t, ed)
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if sess.Modes == nil || sess.Modes.CurrentModeId != "ask" || len(sess.Modes.AvailableModes) != 3 {
		t.Errorf("modes = %+v", sess.Modes)
	}
	resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{
		acpsdk.TextBlock("Fix Add in"), acpsdk.ResourceLinkBlock("calc.go", "file://"+path),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("stopReason = %q", resp.StopReason)
	}
	if resp.Usage == nil || resp.Usage.InputTokens == 0 {
		t.Errorf("usage = %+v", resp.Usage)
	}

	ed.mu.Lock()
	defer ed.mu.Unlock()
	var answer, thought strings.Builder
	var editID acpsdk.ToolCallId
	kinds := map[acpsdk.ToolKind]bool{}
	var diff *acpsdk.ToolCallContentDiff
	usage := false
	for _, u := range ed.updates {
		switch {
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			answer.WriteString(u.AgentMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
			thought.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		case u.ToolCall != nil:
			kinds[u.ToolCall.Kind] = true
			if u.ToolCall.Kind == acpsdk.ToolKindEdit {
				editID = u.ToolCall.ToolCallId
				if u.ToolCall.Status != acpsdk.ToolCallStatusPending || len(u.ToolCall.Locations) != 1 || u.ToolCall.Locations[0].Path != path {
					t.Errorf("edit call announced as %+v", u.ToolCall)
				}
			}
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == editID && u.ToolCallUpdate.Status != nil &&
			*u.ToolCallUpdate.Status == acpsdk.ToolCallStatusCompleted:
			for _, c := range u.ToolCallUpdate.Content {
				if c.Diff != nil {
					diff = c.Diff
				}
			}
		case u.UsageUpdate != nil:
			usage = u.UsageUpdate.Used > 0 && u.UsageUpdate.Size >= u.UsageUpdate.Used
		}
	}
	if answer.String() != "Fixed: Add adds now." {
		t.Errorf("answer = %q", answer.String())
	}
	if !strings.Contains(thought.String(), "Add subtracts") {
		t.Errorf("thought = %q", thought.String())
	}
	if !kinds[acpsdk.ToolKindRead] || !kinds[acpsdk.ToolKindEdit] {
		t.Errorf("tool kinds = %v", kinds)
	}
	if diff == nil || diff.Path != path || diff.OldText == nil || !strings.Contains(*diff.OldText, "return a - b") || !strings.Contains(diff.NewText, "return a + b") {
		t.Errorf("edit diff = %+v", diff)
	}
	if !usage {
		t.Error("no usage_update with the context used")
	}
	if len(ed.permissions) != 1 {
		t.Fatalf("%d permission requests, want 1 (the edit)", len(ed.permissions))
	}
	p := ed.permissions[0]
	if p.ToolCall.ToolCallId != editID {
		t.Errorf("permission asked about %q, the edit is %q", p.ToolCall.ToolCallId, editID)
	}
	previewed := false
	for _, c := range p.ToolCall.Content {
		previewed = previewed || (c.Diff != nil && strings.Contains(c.Diff.NewText, "// unsaved note\n") && strings.Contains(c.Diff.NewText, "return a + b"))
	}
	if !previewed {
		t.Errorf("the permission request shows no diff of the edit: %+v", p.ToolCall.Content)
	}
	var optionKinds []string
	for _, o := range p.Options {
		optionKinds = append(optionKinds, string(o.Kind))
	}
	if got := strings.Join(optionKinds, ","); got != "allow_once,allow_always,allow_always,reject_once,reject_always" {
		t.Errorf("option kinds = %s", got)
	}
	if len(ed.writes) != 1 || ed.writes[0].Path != path || !strings.Contains(ed.writes[0].Content, "// unsaved note\n") ||
		!strings.Contains(ed.writes[0].Content, "return a + b") {
		t.Errorf("writes = %+v", ed.writes)
	}
	if len(ed.reads) == 0 {
		t.Error("nothing was read through fs/read_text_file")
	}
}

// TestDenyFailsClosed answers a permission request with reject_once: the
// edit fails and nothing is written.
func TestDenyFailsClosed(t *testing.T) {
	root := workspace(t, `call write_file {"path": "new.txt", "content": "hello"}
---
expect tool denied
text Not written.
`)
	ed := &editor{answer: func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse {
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected("reject_once")}
	}}
	conn := connect(t, ed)
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("write it")}})
	if err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", resp, err)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("new.txt exists after a denial: %v", err)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.writes) != 0 {
		t.Errorf("writes after a denial: %+v", ed.writes)
	}
}

// TestCancelDuringPermission cancels the turn while a permission request
// is open: the client answers it cancelled, nothing runs, and the prompt
// answers cancelled.
func TestCancelDuringPermission(t *testing.T) {
	root := workspace(t, `call write_file {"path": "new.txt", "content": "hello"}
---
text never asked
`)
	ed := &editor{}
	conn := connect(t, ed)
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	ed.answer = func(p acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse {
		if err := conn.Cancel(context.Background(), acpsdk.CancelNotification{SessionId: p.SessionId}); err != nil {
			t.Error(err)
		}
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeCancelled()}
	}
	resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("write it")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acpsdk.StopReasonCancelled {
		t.Errorf("stopReason = %q, want cancelled", resp.StopReason)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("new.txt exists after a cancel: %v", err)
	}
}

// TestLoadReplaysAndLists saves a session on one connection, lists it and
// loads it on another: the history comes back as updates.
func TestLoadReplaysAndLists(t *testing.T) {
	root := workspace(t, `expect user remember the number
text The number is 42.
`)
	ed := &editor{}
	conn := connect(t, ed)
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("remember the number")}}); err != nil {
		t.Fatal(err)
	}

	ed2 := &editor{}
	conn2 := connect(t, ed2)
	list, err := conn2.ListSessions(testCtx(t), acpsdk.ListSessionsRequest{Cwd: &root})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != sess.SessionId {
		t.Fatalf("session/list = %+v, want %s", list.Sessions, sess.SessionId)
	}
	if _, err := conn2.LoadSession(testCtx(t), acpsdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: root, McpServers: []acpsdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	ed2.mu.Lock()
	defer ed2.mu.Unlock()
	var user, agent string
	for _, u := range ed2.updates {
		if u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			user += u.UserMessageChunk.Content.Text.Text
		}
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			agent += u.AgentMessageChunk.Content.Text.Text
		}
	}
	if !strings.Contains(user, "remember the number") || agent != "The number is 42." {
		t.Errorf("replayed user %q, agent %q", user, agent)
	}
}

// TestModesAndModel switches to auto, where a write needs no question,
// and sets the model option; an unknown mode is refused.
func TestModesAndModel(t *testing.T) {
	root := workspace(t, `call write_file {"path": "new.txt", "content": "hello"}
---
text written
`)
	ed := &editor{}
	conn := connect(t, ed)
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SetSessionMode(testCtx(t), acpsdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "yolo-ish"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	if _, err := conn.SetSessionMode(testCtx(t), acpsdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "auto"}); err != nil {
		t.Fatal(err)
	}
	set, err := conn.SetSessionConfigOption(testCtx(t), acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{
		SessionId: sess.SessionId, ConfigId: "model", Value: "scripted/deepseek-flash"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.ConfigOptions) != 2 || set.ConfigOptions[1].Select == nil || set.ConfigOptions[1].Select.CurrentValue != "scripted/deepseek-flash" {
		t.Errorf("config options = %+v", set.ConfigOptions)
	}
	resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("write it")}})
	if err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", resp, err)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.permissions) != 0 {
		t.Errorf("auto mode asked %d times", len(ed.permissions))
	}
	if len(ed.writes) != 1 || ed.writes[0].Content != "hello" {
		t.Errorf("writes = %+v", ed.writes)
	}
}
