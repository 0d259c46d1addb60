package permission

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestControlCallsNameTheFile: a call that changes a control file is asked
// in every posture, saying which file, and refused with no one to ask.
func TestControlCallsNameTheFile(t *testing.T) {
	policy, _ := NewPolicy("allow", []string{"Edit", "write_file"}, nil, nil)
	r := Request{SessionID: "s", Tool: "write_file", Args: args("path", "reasonix.toml"), Paths: []string{"reasonix.toml"},
		AlwaysAsk: true, Control: []string{"reasonix.toml"}}
	ap := &fakeApprover{answers: []Answer{AnswerAlways, AnswerSession}}
	c := &Checker{Policy: policy, Approver: ap, Posture: PostureYolo, Persist: func(string) error { t.Error("an answer was saved"); return nil }}
	for range 2 {
		if v := c.Check(t.Context(), r); !v.Allowed || !v.Asked {
			t.Fatalf("%+v", v)
		}
	}
	if len(ap.prompts) != 2 || !strings.Contains(ap.prompts[0].Why, "changes reasonix.toml, one of Reasonix's control files") {
		t.Errorf("prompts %+v", ap.prompts)
	}
	if v := (&Checker{Policy: policy, Posture: PostureYolo}).Check(t.Context(), r); v.Allowed {
		t.Errorf("allowed with no one to ask: %+v", v)
	}
}

func TestControlRoot(t *testing.T) {
	for _, tt := range []struct {
		rel, root string
	}{
		{"reasonix.toml", "reasonix.toml"},
		{"pkg/reasonix.toml", "pkg/reasonix.toml"},
		{"a/b/c/.mcp.json", "a/b/c/.mcp.json"},
		{"pkg/REASONIX.TOML", "pkg/REASONIX.TOML"},
		{".reasonix/memory/x.md", ".reasonix"},
		{"pkg/.claude/skills/x/SKILL.md", "pkg/.claude"},
		{"pkg/.vscode", "pkg/.vscode"},
		{"pkg/.VSCode/tasks.json", "pkg/.VSCode"},
		{".git/config", ".git"},
		{"vendor/x/.git/hooks/pre-commit", "vendor/x/.git"},
		{"sub/.git", "sub/.git"},
		{"./pkg//reasonix.toml", "pkg/reasonix.toml"},
		// A control name that is not the last part, for a file name.
		{"reasonix.toml/x", ""},
		{"pkg/reasonix.toml.bak", ""},
		{"pkg/my.mcp.json", ""},
		{"docs/.github/x", ""},
		{"main.go", ""},
		{".", ""},
		{"../reasonix.toml", ""},
		{"/etc/reasonix.toml", ""},
	} {
		got, ok := ControlRoot(filepath.FromSlash(tt.rel))
		if ok != (tt.root != "") || got != filepath.FromSlash(tt.root) {
			t.Errorf("ControlRoot(%q) = %q, %v; want %q", tt.rel, got, ok, tt.root)
		}
	}
}
