package acp_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/agent/agenttest"
)

// TestHookIsAThought: a hook that runs is told as a thought naming the
// hook, its event and how it ended, and what it prints reaches the model
// with the prompt.
func TestHookIsAThought(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hook is an sh script")
	}
	root := workspace(t, "expect user the build is red\ntext done\n")
	f, err := os.OpenFile(filepath.Join(root, "reasonix.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = \"command\"\ncommand = \"echo 'the build is red'\"\n")
	f.Close()
	agenttest.Trust(t, root)
	ed := &editor{}
	conn, id := newSession(t, ed, root)
	if r := prompt(t, conn, id, "go"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	var thoughts []string
	for _, u := range ed.updates {
		if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
			thoughts = append(thoughts, u.AgentThoughtChunk.Content.Text.Text)
		}
	}
	if all := strings.Join(thoughts, "\n"); !strings.Contains(all, `hook UserPromptSubmit "echo 'the build is red'" (`) || !strings.Contains(all, "reasonix.toml:") || !strings.Contains(all, "): ok") {
		t.Errorf("thoughts = %q", thoughts)
	}
}

// TestSessionEndHookWhenTheClientGoes: the SessionEnd hook of a session
// that ran a turn runs when the ACP client goes and the session closes.
func TestSessionEndHookWhenTheClientGoes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hook is an sh script")
	}
	root := workspace(t, "text done\n")
	end := filepath.Join(t.TempDir(), "end.json")
	f, err := os.OpenFile(filepath.Join(root, "reasonix.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[[hooks.SessionEnd]]\n[[hooks.SessionEnd.hooks]]\ntype = \"command\"\ncommand = \"cat > " + end + "\"\n")
	f.Close()
	agenttest.Trust(t, root)
	var id acpsdk.SessionId
	// Cleanups run last first: this one after the connection's, which
	// waits for the server to end.
	t.Cleanup(func() {
		b, err := os.ReadFile(end)
		if err != nil {
			t.Fatalf("the SessionEnd hook did not run: %v", err)
		}
		if !strings.Contains(string(b), `"hook_event_name":"SessionEnd"`) || !strings.Contains(string(b), `"session_id":"`+string(id)+`"`) {
			t.Errorf("the hook read %s", b)
		}
	})
	conn, sid := newSession(t, &editor{}, root)
	id = sid
	if r := prompt(t, conn, id, "go"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	if _, err := os.Stat(end); err == nil {
		t.Error("the hook ran before the session ended")
	}
}
