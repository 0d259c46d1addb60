package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeMemoryImports: Claude Code's memory files — the workspace's
// CLAUDE.md and CLAUDE.local.md, the user's ~/.claude/CLAUDE.md — join
// the system message in Claude Code's order, with the files their `@path`
// words import, nested and each once. A workspace's file imports only
// from the workspace and Markdown under ~/.claude: not a key, not
// Claude Code's credentials, not a file beside the workspace; the user's
// own imports what the read rules allow. Code is not read for imports,
// and AGENTS.md's words are not imports at all.
func TestClaudeMemoryImports(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	root = filepath.Join(root, "ws")
	files := map[string]string{
		home + "/.claude/CLAUDE.md":         "Use tabs. @~/notes/general.md",
		home + "/notes/general.md":          "GENERAL-NOTES",
		home + "/.claude/my-project.md":     "MY-PROJECT-NOTES",
		home + "/.claude/.credentials.json": "CLAUDE-TOKEN",
		home + "/.ssh/id_rsa":               "PRIVATE-KEY",
		home + "/notes/other.md":            "OTHER-NOTES",
		filepath.Dir(root) + "/outside.md":  "OUTSIDE",
		root + "/AGENTS.md":                 "Agents. @docs/agents-only.md",
		root + "/docs/agents-only.md":       "AGENTS-ONLY",
		root + "/CLAUDE.md": "See @docs/conventions.md and @~/.claude/my-project.md.\n" +
			"Not these: `@docs/span.md`, a@docs/mail.md, @~/.ssh/id_rsa, @~/.claude/.credentials.json, @../outside.md, @~/notes/other.md\n" +
			"```\n@docs/fenced.md\n```\n",
		root + "/docs/conventions.md": "CONVENTIONS @nested.md",
		root + "/docs/nested.md":      "NESTED @conventions.md",
		root + "/docs/span.md":        "SPAN",
		root + "/docs/mail.md":        "MAIL",
		root + "/docs/fenced.md":      "FENCED",
		root + "/CLAUDE.local.md":     "Local notes.",
	}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := BuildSystemPrompt("base", root, nil)
	for _, want := range []string{
		"CONVENTIONS", "NESTED", "MY-PROJECT-NOTES", "GENERAL-NOTES", "Local notes.",
		`<import path="docs/conventions.md">`, `<import path="docs/nested.md">`, `<import path="~/.claude/my-project.md">`, `<import path="~/notes/general.md">`,
		"\n# User memory (~/.claude/CLAUDE.md)\nUse tabs.",
		"AGENTS.md takes precedence over CLAUDE.md, and CLAUDE.md over ~/.claude/CLAUDE.md, and ~/.claude/CLAUDE.md over CLAUDE.local.md",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the system message lacks %q", want)
		}
	}
	for _, never := range []string{"PRIVATE-KEY", "CLAUDE-TOKEN", "OUTSIDE", "OTHER-NOTES", "SPAN", "MAIL", "FENCED", "AGENTS-ONLY"} {
		if strings.Contains(got, never) {
			t.Errorf("the system message holds %q", never)
		}
	}
	if n := strings.Count(got, "CONVENTIONS"); n != 1 {
		t.Errorf("conventions.md is in it %d times", n)
	}
	order := []string{"# Project memory (CLAUDE.md)", "# User memory (~/.claude/CLAUDE.md)", "# Project memory (CLAUDE.local.md)"}
	for i := 1; i < len(order); i++ {
		if strings.Index(got, order[i-1]) > strings.Index(got, order[i]) {
			t.Errorf("%q comes after %q", order[i-1], order[i])
		}
	}

	// The read rules hold for imports too.
	refuse := func(real string) error {
		if strings.HasSuffix(real, "conventions.md") || strings.HasSuffix(real, "general.md") {
			return os.ErrPermission
		}
		return nil
	}
	if got := BuildSystemPrompt("base", root, refuse); strings.Contains(got, "CONVENTIONS") || strings.Contains(got, "GENERAL-NOTES") || !strings.Contains(got, "MY-PROJECT-NOTES") {
		t.Errorf("with read rules, the imports were:\n%s", got)
	}
}
