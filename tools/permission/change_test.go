package permission

import (
	"encoding/json"
	"strings"
	"testing"
)

// A call that brings its own preview shows it, escaped and bounded like
// any change, in place of its arguments.
func TestPromptChangePreview(t *testing.T) {
	p := Prompt{Request: Request{Tool: "remember", Args: json.RawMessage(`{"name":"x"}`),
		Preview: "Save the note user/x:\n----------\nsneaky\x1b[2K\n----------\n"}}
	if got := p.Change(); got != "Save the note user/x:\n----------\nsneaky\\u001b[2K\n----------" {
		t.Fatalf("change:\n%q", got)
	}
	p.Preview = strings.Repeat("a", 3000) + "MIDDLE" + strings.Repeat("z", 3000)
	if got := p.Change(); strings.Contains(got, "MIDDLE") || !strings.Contains(got, "characters not shown") {
		t.Fatalf("a long preview is not cut: %d runes", len(got))
	}
}
