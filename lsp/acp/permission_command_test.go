package acp_test

import (
	"encoding/json"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestPermissionShowsTheWholeCommand: a shell call is put to the user with
// its whole command, control characters and bidirectional overrides made
// visible — not only the one-line title, past which padding could push
// what runs.
func TestPermissionShowsTheWholeCommand(t *testing.T) {
	// One program, so the grant's scope (Bash(rm:*)) does not spell it
	// out either.
	cmd := "rm -rf ./" + strings.Repeat("x/../", 60) + "the-important-dir \u202e\x1b[8m"
	args, _ := json.Marshal(map[string]string{"command": cmd})
	root := workspace(t, "call bash "+string(args)+"\n---\nexpect tool Permission denied\ntext done\n")
	appendConfig(t, root, "[permissions]\nmode = \"ask\"\n")
	ed := &editor{answer: func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse {
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected("reject_once")}
	}}
	conn, id := newSession(t, ed, root)
	prompt(t, conn, id, "go")
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.permissions) != 1 {
		t.Fatalf("%d permission requests", len(ed.permissions))
	}
	var shown strings.Builder
	for _, c := range ed.permissions[0].ToolCall.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			shown.WriteString(c.Content.Content.Text.Text)
		}
	}
	if s := shown.String(); !strings.Contains(s, "the-important-dir") || strings.ContainsAny(s, "\u202e\x1b") || !strings.Contains(s, `\u202e`) {
		t.Errorf("the question shows:\n%q", s)
	}
}
