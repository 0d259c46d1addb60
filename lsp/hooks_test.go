//go:build unix

package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/lsptest"
)

// TestHooksAroundTheEditorsQuestionsAndShutdown: the user's
// Notification hook runs before the editor's permission dialog, and the
// SessionEnd hook of the session worked in runs when the editor shuts
// the server down, before shutdown answers.
func TestHooksAroundTheEditorsQuestionsAndShutdown(t *testing.T) {
	root, _ := workspace(t, "match build it\ncall bash {\"command\": \"echo built\"}\n---\nmatch build it\nexpect tool built\ntext done\n", "")
	home, out := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	notify, end := filepath.Join(out, "notify.json"), filepath.Join(out, "end.json")
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		"Notification": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat > " + notify}}}},
		"SessionEnd":   []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat > " + end}}}},
	}})
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	var notifiedFirst atomic.Bool // set from the editor's goroutine
	ed := lsptest.New(t, lsptest.Options{Root: root})
	ed.AnswerWith(func(*protocol.ShowMessageRequestParams) string {
		_, err := os.Stat(notify)
		notifiedFirst.Store(err == nil)
		return "Allow once"
	})
	b, _ := json.Marshal(map[string]any{"prompt": "build it"})
	res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
	if res["text"] != "done" {
		t.Fatalf("the turn: %v", res)
	}
	if !notifiedFirst.Load() {
		t.Error("the Notification hook had not run when the editor was asked")
	}
	if b, _ := os.ReadFile(notify); !strings.Contains(string(b), `"message":"Reasonix needs your permission to use bash"`) {
		t.Errorf("the Notification hook read %s", b)
	}
	if err := ed.Server().Shutdown(ctx(t)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(end)
	if err != nil {
		t.Fatalf("the SessionEnd hook had not run when shutdown answered: %v", err)
	}
	if !strings.Contains(string(b), `"session_id":"`+res["sessionId"].(string)+`"`) || !strings.Contains(string(b), `"reason":"other"`) {
		t.Errorf("the SessionEnd hook read %s", b)
	}
}
