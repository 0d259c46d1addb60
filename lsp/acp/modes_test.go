package acp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// newSession opens a session of root on a fresh connection.
func newSession(t *testing.T, ed *editor, root string, mcp ...acpsdk.McpServer) (*acpsdk.ClientSideConnection, acpsdk.SessionId) {
	t.Helper()
	conn := connect(t, ed)
	if mcp == nil {
		mcp = []acpsdk.McpServer{}
	}
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: mcp})
	if err != nil {
		t.Fatal(err)
	}
	return conn, sess.SessionId
}

func prompt(t *testing.T, conn *acpsdk.ClientSideConnection, id acpsdk.SessionId, text string) acpsdk.PromptResponse {
	t.Helper()
	resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: id, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// answerText is everything the agent said, in order.
func (e *editor) answerText() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, u := range e.updates {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// TestPlanMode puts the session in plan mode: the plan arrives as a plan
// update and a permission request, and approving it leaves plan mode.
func TestPlanMode(t *testing.T) {
	root := workspace(t, `call exit_plan_mode {"plan": "1. Change Add to add\n2. Run the tests"}
---
expect tool approved the plan
text Carrying it out.
`)
	ed := &editor{answer: func(p acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse {
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(p.Options[0].OptionId)}
	}}
	conn, id := newSession(t, ed, root)
	if _, err := conn.SetSessionMode(testCtx(t), acpsdk.SetSessionModeRequest{SessionId: id, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if r := prompt(t, conn, id, "plan the fix"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	var plan []acpsdk.PlanEntry
	mode := ""
	for _, u := range ed.updates {
		if u.Plan != nil {
			plan = u.Plan.Entries
		}
		if u.CurrentModeUpdate != nil {
			mode = string(u.CurrentModeUpdate.CurrentModeId)
		}
	}
	if len(plan) != 2 || plan[0].Content != "Change Add to add" || plan[1].Content != "Run the tests" {
		t.Errorf("plan = %+v", plan)
	}
	if len(ed.permissions) != 1 || ed.permissions[0].Options[0].OptionId != "approve_plan" {
		t.Errorf("permission requests = %+v", ed.permissions)
	}
	if mode != "ask" {
		t.Errorf("mode after the approved plan = %q, want ask", mode)
	}
}

// TestForbiddenReadNotAskedOfClient keeps a forbidden file away from the
// model even when the client would read it: the client is never asked.
func TestForbiddenReadNotAskedOfClient(t *testing.T) {
	root := workspace(t, `call read_file {"path": "secret/key.txt"}
---
expect tool forbid
text Not readable.
`)
	f, err := os.OpenFile(filepath.Join(root, "reasonix.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[sandbox]\nforbid_read = [\"secret\"]\n")
	f.Close()
	os.Mkdir(filepath.Join(root, "secret"), 0o755)
	os.WriteFile(filepath.Join(root, "secret", "key.txt"), []byte("hunter2"), 0o644)
	ed := &editor{}
	conn, id := newSession(t, ed, root)
	if r := prompt(t, conn, id, "read the key"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	for _, p := range ed.reads {
		if strings.Contains(p, "secret") {
			t.Errorf("the client was asked to read %s", p)
		}
	}
}

// TestSlashCommands lists the commands and runs a built-in, which answers
// without the model.
func TestSlashCommands(t *testing.T) {
	root := workspace(t, "text unused\n")
	// The commands are announced after session/new answers, on their
	// own time.
	announced := make(chan struct{})
	var once sync.Once
	ed := &editor{onUpdate: func(u acpsdk.SessionUpdate) {
		if u.AvailableCommandsUpdate != nil {
			once.Do(func() { close(announced) })
		}
	}}
	conn, id := newSession(t, ed, root)
	<-announced
	if r := prompt(t, conn, id, "/help"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	if got := ed.answerText(); !strings.Contains(got, "/compact") {
		t.Errorf("/help answered %q", got)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	var names []string
	for _, u := range ed.updates {
		if u.AvailableCommandsUpdate != nil {
			for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
				names = append(names, c.Name)
			}
		}
	}
	if !strings.Contains(" "+strings.Join(names, " ")+" ", " compact ") {
		t.Errorf("available commands = %v", names)
	}
}

// TestClientMCPServer starts an MCP server the client passes in
// session/new, as a configured plugin: its tools reach the model.
func TestClientMCPServer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "reasonix-plugin-example")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/reasonix/reasonix/cmd/reasonix-plugin-example").CombinedOutput(); err != nil {
		t.Fatalf("building the example plugin: %v\n%s", err, out)
	}
	root := workspace(t, `expect tools mcp__example__wordcount
call mcp__example__wordcount {"text": "to be or not to be"}
---
expect tool 6
text Six words.
`)
	ed := &editor{answer: func(p acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse {
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected("allow_once")}
	}}
	conn, id := newSession(t, ed, root, acpsdk.McpServer{Stdio: &acpsdk.McpServerStdio{Name: "example", Command: bin, Args: []string{}, Env: []acpsdk.EnvVariable{}}})
	if r := prompt(t, conn, id, "count the words"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	if got := ed.answerText(); got != "Six words." {
		t.Errorf("answer = %q", got)
	}
}

// TestSetModelBothWays sets the model with session/set_model, as older
// clients do, and rejects a model that is not configured.
func TestSetModelBothWays(t *testing.T) {
	root := workspace(t, "text unused\n")
	conn := connect(t, &editor{})
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if sess.Models == nil || sess.Models.CurrentModelId != "scripted/deepseek-flash" ||
		!slices.ContainsFunc(sess.Models.AvailableModels, func(m acpsdk.ModelInfo) bool { return m.ModelId == "scripted/deepseek-flash" }) {
		t.Errorf("models = %+v", sess.Models)
	}
	if _, err := conn.UnstableSetSessionModel(testCtx(t), acpsdk.UnstableSetSessionModelRequest{SessionId: sess.SessionId, ModelId: "scripted/deepseek-flash"}); err != nil {
		t.Error(err)
	}
	if _, err := conn.UnstableSetSessionModel(testCtx(t), acpsdk.UnstableSetSessionModelRequest{SessionId: sess.SessionId, ModelId: "nowhere/none"}); err == nil {
		t.Error("an unknown model was accepted")
	}
	_, err = conn.SetSessionConfigOption(testCtx(t), acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{
		SessionId: sess.SessionId, ConfigId: "model", Value: "nowhere/none"}})
	if err == nil {
		t.Error("the model option took an unknown model")
	}
}

// TestAskQuestion puts the ask tool's question to the client as a
// permission request whose options are the suggested answers.
func TestAskQuestion(t *testing.T) {
	root := workspace(t, `call ask {"question": "Which name?", "options": ["Sum", "Add"]}
---
expect tool Add
text Keeping Add.
`)
	ed := &editor{answer: func(p acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse {
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(p.Options[1].OptionId)}
	}}
	conn, id := newSession(t, ed, root)
	if r := prompt(t, conn, id, "rename it"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.permissions) != 1 || *ed.permissions[0].ToolCall.Title != "Which name?" || len(ed.permissions[0].Options) != 3 {
		t.Errorf("question asked as %+v", ed.permissions)
	}
}

// TestPromptWhileRunning sends a second prompt while the first turn
// runs: the first is cancelled (the SDK cancels a session's earlier
// prompt), and the second waits for it to end and then runs.
func TestPromptWhileRunning(t *testing.T) {
	root := workspace(t, `match first
call read_file {"path": "calc.go"}
---
match first
delay 30s
text never finished
---
match second
text Second answer.
`)
	started := make(chan struct{})
	var once sync.Once
	ed := &editor{onUpdate: func(u acpsdk.SessionUpdate) {
		if u.ToolCall != nil {
			once.Do(func() { close(started) })
		}
	}}
	conn, id := newSession(t, ed, root)
	first := make(chan acpsdk.PromptResponse, 1)
	go func() {
		resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: id, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("first")}})
		if err != nil {
			t.Error(err)
		}
		first <- resp
	}()
	<-started
	if r := prompt(t, conn, id, "second"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("second prompt: stopReason = %q", r.StopReason)
	}
	if r := <-first; r.StopReason != acpsdk.StopReasonCancelled {
		t.Errorf("first prompt: stopReason = %q, want cancelled", r.StopReason)
	}
	if got := ed.answerText(); got != "Second answer." {
		t.Errorf("answer = %q", got)
	}
}

// TestBrokenMCPServerIsTold starts a session with an MCP server that
// cannot start: the session opens, and the user is told why.
func TestBrokenMCPServerIsTold(t *testing.T) {
	root := workspace(t, "text unused\n")
	told := make(chan string, 16)
	ed := &editor{onUpdate: func(u acpsdk.SessionUpdate) {
		if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
			told <- u.AgentThoughtChunk.Content.Text.Text
		}
	}}
	newSession(t, ed, root, acpsdk.McpServer{Stdio: &acpsdk.McpServerStdio{
		Name: "broken", Command: filepath.Join(root, "no-such-server"), Args: []string{}, Env: []acpsdk.EnvVariable{}}})
	ctx := testCtx(t)
	for {
		select {
		case text := <-told:
			if strings.Contains(text, "broken") {
				return
			}
		case <-ctx.Done():
			t.Fatal("nothing said the MCP server failed to start")
		}
	}
}

// TestRefusedWriteUndoesTheSet has the client refuse the second file of
// a patch: the first is put back, and nothing of the patch stays.
func TestRefusedWriteUndoesTheSet(t *testing.T) {
	patch := "--- a/calc.go\n+++ b/calc.go\n@@ -5 +5 @@\n-\treturn a - b\n+\treturn a + b\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n"
	args, _ := json.Marshal(map[string]string{"patch": patch})
	root := workspace(t, "call apply_patch "+string(args)+"\n---\nexpect tool the editor did not write b.txt: read-only buffer\ntext Could not write.\n")
	ed := &editor{refuse: func(path string) bool { return filepath.Base(path) == "b.txt" }}
	conn, id := newSession(t, ed, root)
	if r := prompt(t, conn, id, "patch it"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(data) != calcGo {
		t.Errorf("calc.go after the refused patch:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); err == nil {
		t.Error("b.txt exists after the refused patch")
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if n := len(ed.writes); n != 2 || !strings.Contains(ed.writes[0].Content, "a + b") || ed.writes[1].Content != calcGo {
		t.Errorf("writes = %+v, want the patch's calc.go, then calc.go put back", ed.writes)
	}
}

// TestAuthMethods offers the API key's variable when it is unset, and
// authenticates once it is set.
func TestAuthMethods(t *testing.T) {
	t.Setenv("REASONIX_HOME", t.TempDir())
	t.Chdir(t.TempDir()) // no project config: the built-in default model
	t.Setenv("DEEPSEEK_API_KEY", "")
	conn := connect(t, &editor{})
	init, err := conn.Initialize(testCtx(t), acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if len(init.AuthMethods) != 1 || init.AuthMethods[0].EnvVar == nil || init.AuthMethods[0].EnvVar.Vars[0].Name != "DEEPSEEK_API_KEY" {
		t.Fatalf("authMethods = %+v", init.AuthMethods)
	}
	method := init.AuthMethods[0].EnvVar.Id
	if _, err := conn.Authenticate(testCtx(t), acpsdk.AuthenticateRequest{MethodId: method}); err == nil {
		t.Error("authenticated without the key")
	}
	// Without the key a session opens, and a prompt asks for it.
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new without the key: %v", err)
	}
	_, err = conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("hi")}})
	var re *acpsdk.RequestError
	if !errors.As(err, &re) || re.Code != -32000 || !strings.Contains(fmt.Sprint(re.Data), "DEEPSEEK_API_KEY") {
		t.Errorf("prompt without the key: %v", err)
	}
	t.Setenv("DEEPSEEK_API_KEY", "sk-test")
	if _, err := conn.Authenticate(testCtx(t), acpsdk.AuthenticateRequest{MethodId: method}); err != nil {
		t.Errorf("with the key set: %v", err)
	}
	init, err = conn.Initialize(testCtx(t), acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber})
	if err != nil || len(init.AuthMethods) != 0 {
		t.Errorf("with the key set, authMethods = %+v, %v", init.AuthMethods, err)
	}
}
