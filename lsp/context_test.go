package lsp_test

import (
	"strings"
	"testing"

	"github.com/reasonix/reasonix/lsp/lsptest"
)

// TestContextOverLSP: /context reaches the agent through reasonix.ask as
// every slash command does, answers without a model request, and counts
// the session's conversation with the provider's figure for its last
// request.
func TestContextOverLSP(t *testing.T) {
	root, srv := workspace(t, "text Hello there.\n", "")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	first := askWith(t, ed, map[string]any{"prompt": "hello"})
	id, _ := first["sessionId"].(string)
	if first["text"] != "Hello there." || id == "" {
		t.Fatalf("hello: %v", first)
	}
	res := askWith(t, ed, map[string]any{"prompt": "/context", "sessionId": id})
	action, _ := res["action"].(map[string]any)
	text, _ := res["text"].(string)
	if action["kind"] != "context" || res["sessionId"] != id {
		t.Fatalf("/context: %v", res)
	}
	for _, want := range []string{"Context of session " + id, "tool schemas (", "user messages (1)", "assistant messages (1)", "Measured: the last request's prompt was "} {
		if !strings.Contains(text, want) {
			t.Errorf("/context lacks %q:\n%s", want, text)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests reached the model, want hello's alone", n)
	}
}
