package lsp_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/lsp/lsptest"
)

// TestContextOverLSP: how full the window is travels with the
// accounting — the usage events and the turn's result; /context reaches
// the agent through reasonix.ask as every slash command does, answers
// without a model request, and counts the session's conversation with
// the provider's figure for its last request.
func TestContextOverLSP(t *testing.T) {
	root, srv := workspace(t, "text Hello there.\n", "context_window = 64000\n")
	ed := lsptest.New(t, lsptest.Options{Root: root, Events: true})
	first := askWith(t, ed, map[string]any{"prompt": "hello"})
	id, _ := first["sessionId"].(string)
	if first["text"] != "Hello there." || id == "" {
		t.Fatalf("hello: %v", first)
	}
	if w, n := first["contextWindow"], first["contextTokens"]; w != float64(64000) || n == nil || n.(float64) <= 0 {
		t.Errorf("the result's contextWindow %v, contextTokens %v", w, n)
	}
	var usage map[string]any
	ed.Await("the usage event", 5*time.Second, func(r *lsptest.Recorded) bool {
		i := slices.IndexFunc(r.Events, func(e map[string]any) bool { return e["kind"] == "usage" })
		if i >= 0 {
			usage, _ = r.Events[i]["usage"].(map[string]any)
		}
		return i >= 0
	})
	if w, n := usage["contextWindow"], usage["contextTokens"]; w != float64(64000) || n == nil || n.(float64) <= 0 {
		t.Errorf("the usage event's contextWindow %v, contextTokens %v", w, n)
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
