package permission

import (
	"path/filepath"
	"testing"
)

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
