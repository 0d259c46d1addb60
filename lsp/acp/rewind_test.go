package acp_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// rewindScript is the model of two turns that change five files (as
// lsp/testdata/clients/rewind.txtar) and a third after the rewind, which
// must not see the first two.
const rewindScript = `match First turn
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
match First turn
expect tool Edited calc.go
call bash {"command": "sed -i 's/alpha/beta/' user.txt"}
---
match First turn
expect tool Exit code: 0
text First turn done.
---
match Second turn
call bash {"command": "echo made > made.txt && rm gone.txt && sed -i 's/one/ONE/' shared.txt"}
---
match Second turn
expect tool Exit code: 0
text Second turn done.
---
match Third turn
expect user Third turn
text Third turn done.
`

// TestRewindCommand rewinds over ACP with the slash commands: after two
// turns that edit calc.go through the client and, with shell commands,
// create, delete and change files, and the user's own change to one of
// them, /rewind lists both turns and /rewind 1 puts every file back but
// the user's (reported as a conflict); the next turn's request to the
// model holds neither rewound turn. The session's available commands
// offer /rewind.
func TestRewindCommand(t *testing.T) {
	root, srv := workspaceServer(t, rewindScript)
	for name, body := range map[string]string{"user.txt": "alpha\n", "shared.txt": "one\ntwo\n", "gone.txt": "keep me\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ed := &editor{}
	conn := connect(t, ed)
	sess, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	// prompt runs a turn and returns the agent's message text.
	prompt := func(text string) string {
		t.Helper()
		ed.mu.Lock()
		from := len(ed.updates)
		ed.mu.Unlock()
		resp, err := conn.Prompt(testCtx(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
		if err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
			t.Fatalf("%q: %+v, %v", text, resp, err)
		}
		ed.mu.Lock()
		defer ed.mu.Unlock()
		var b strings.Builder
		for _, u := range ed.updates[from:] {
			if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
				b.WriteString(u.AgentMessageChunk.Content.Text.Text)
			}
		}
		return b.String()
	}

	prompt("First turn: fix Add, and user.txt.")
	prompt("Second turn: the other files.")
	if err := os.WriteFile(filepath.Join(root, "user.txt"), []byte("gamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	ed.mu.Lock()
	offered := false
	for _, u := range ed.updates {
		if u.AvailableCommandsUpdate != nil {
			for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
				offered = offered || c.Name == "rewind"
			}
		}
	}
	ed.mu.Unlock()
	if !offered {
		t.Error("available_commands does not offer rewind")
	}

	list := prompt("/rewind")
	if !strings.Contains(list, "First turn") || !strings.Contains(list, "Second turn") {
		t.Errorf("/rewind listed:\n%s", list)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); err != nil {
		t.Errorf("/rewind without a turn changed files: %v", err)
	}

	report := prompt("/rewind 1")
	if !strings.Contains(report, "user.txt") {
		t.Errorf("/rewind 1 reported no conflict on user.txt:\n%s", report)
	}
	for name, want := range map[string]string{"calc.go": calcGo, "shared.txt": "one\ntwo\n", "gone.txt": "keep me\n", "user.txt": "gamma\n"} {
		if got, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(got) != want {
			t.Errorf("%s after /rewind 1: %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("made.txt after /rewind 1: %v", err)
	}

	if got := prompt("Third turn: start again."); got != "Third turn done." {
		t.Errorf("the third turn answered %q", got)
	}
	asked := false
	for _, r := range srv.Requests() {
		if r.Step == 0 || len(r.Messages) == 0 || !strings.Contains(r.Messages[len(r.Messages)-1].Content, "Third turn") {
			continue
		}
		asked = true
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "First turn") || strings.Contains(m.Content, "Second turn") {
				t.Errorf("the third turn's request still holds a rewound turn (a %s message): %q", m.Role, m.Content)
			}
		}
	}
	if !asked {
		t.Error("the model was not asked for the third turn")
	}
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were never asked for", n)
	}
}
