package acp_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEffort: /effort high is worded as a message and makes the
// session's next request ask for that reasoning effort, which the
// prompt's answer names in _meta.reasonix.
func TestEffort(t *testing.T) {
	root, srv := workspaceServer(t, "text Done.\n")
	ed := &editor{}
	conn, id := newSession(t, ed, root)
	prompt(t, conn, id, "/effort high")
	if got := ed.answerText(); !strings.Contains(got, "This session's requests now ask for high reasoning effort.") {
		t.Errorf("/effort high answered %q", got)
	}
	r := prompt(t, conn, id, "hello")
	meta, _ := json.Marshal(r.Meta)
	if !strings.Contains(string(meta), `"effort":"high"`) {
		t.Errorf("the answer's _meta: %s", meta)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if got := reqs[0].ReasoningEffort; got != "high" {
		t.Errorf("the request asked for %q, want high", got)
	}
}
