package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

func TestParseCommand(t *testing.T) {
	cases := []struct {
		name, file                     string
		description, hint, model, body string
		wantErr                        string
	}{
		{name: "no frontmatter", file: "# Review the diff\nList bugs.\n",
			description: "Review the diff", body: "# Review the diff\nList bugs."},
		{name: "frontmatter", file: "---\ndescription: Review the staged diff\nargument-hint: [focus-area]\nmodel: pro\n---\nReview $ARGUMENTS.\n",
			description: "Review the staged diff", hint: "[focus-area]", model: "pro", body: "Review $ARGUMENTS."},
		{name: "quotes, comments and Claude Code's keys", file: "---\n# a comment\ndescription: \"Commit: with a message\"\nargument-hint: '[message]'\nallowed-tools:\n  - Bash(git add:*)\n  - Bash(git commit:*)\ndisable-model-invocation: true\n\n---\nCommit.\n",
			description: "Commit: with a message", hint: "[message]", body: "Commit."},
		{name: "a folded value", file: "---\ndescription: >\n  Review the diff\n  carefully\n---\nGo.\n",
			description: "Review the diff carefully", body: "Go."},
		{name: "CRLF and a byte-order mark", file: "\ufeff---\r\ndescription: Windows\r\n---\r\nBody\r\n",
			description: "Windows", body: "Body"},
		{name: "no description: the first line", file: "---\nmodel: flash\n---\n\nExplain $1 in detail, with examples of its use.\n",
			description: "Explain $1 in detail, with examples of its use.", model: "flash", body: "Explain $1 in detail, with examples of its use."},
		{name: "unclosed", file: "---\ndescription: x\nBody\n", wantErr: "line 3: \"Body\" is not a key: value line"},
		{name: "unclosed at the end", file: "---\ndescription: x\n", wantErr: "has no closing ---"},
		{name: "not a key", file: "---\njust words\n---\nBody\n", wantErr: "line 2: \"just words\" is not a key: value line"},
		{name: "empty", file: "---\ndescription: nothing\n---\n\n", wantErr: "has no text"},
		{name: "binary", file: "\x00\x01\x02", wantErr: "not a text file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseCommand([]byte(c.file))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.description != c.description || got.argumentHint != c.hint || got.model != c.model || got.body != c.body {
				t.Errorf("got description %q, hint %q, model %q, body %q", got.description, got.argumentHint, got.model, got.body)
			}
		})
	}
}

func TestExpandArguments(t *testing.T) {
	cases := []struct {
		body, rest, want, wantErr string
	}{
		{"Review $ARGUMENTS.", "the error handling", "Review the error handling.", ""},
		{"Review $ARGUMENTS.", "", "Review .", ""},
		{"Compare $1 with $2.", "a.go b.go", "Compare a.go with b.go.", ""},
		{"Compare $1 with $2.", "a.go", "Compare a.go with .", ""},
		{"Fix $1 ($2)", `"issue 12" urgent`, "Fix issue 12 (urgent)", ""},
		{"$1/$10", "a b c d e f g h i j", "a/j", ""},
		{"It costs $$5 and $x; all: $ARGUMENTS", "now", "It costs $5 and $x; all: now", ""},
		{"Ends with $", "", "Ends with $", ""},
		// No placeholder: what the user typed is not lost.
		{"Summarise the changes.", "briefly", "Summarise the changes.\n\nARGUMENTS: briefly", ""},
		{"Summarise the changes.", "", "Summarise the changes.", ""},
		{"Fix $1", `"open`, "", "unbalanced quote"},
	}
	for _, c := range cases {
		got, err := (&customCommand{body: c.body}).expand(c.rest)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q with %q: error %v, want %q", c.body, c.rest, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q with %q = %q, %v; want %q", c.body, c.rest, got, err, c.want)
		}
	}
}

// TestCommandPrecedence: the project's commands before the user's, at
// each level Reasonix's directory before Claude Code's; subdirectories
// namespace; what cannot be loaded is skipped with a warning that says
// why, and never stops the others.
func TestCommandPrecedence(t *testing.T) {
	base := t.TempDir()
	root, home, userHome, secrets := filepath.Join(base, "ws"), filepath.Join(base, "rxhome"), filepath.Join(base, "home"), filepath.Join(base, "secrets")
	writeFiles(t, base, map[string]string{
		"ws/.reasonix/commands/review.md":        "---\ndescription: project review\n---\nProject review of $ARGUMENTS",
		"ws/.reasonix/commands/git/commit.md":    "---\ndescription: commit\nargument-hint: [message]\n---\nCommit: $1",
		"ws/.reasonix/commands/notes.txt":        "not a command",
		"ws/.reasonix/commands/.hidden.md":       "hidden",
		"ws/.reasonix/commands/broken.md":        "---\ndescription: never closed\n",
		"ws/.reasonix/commands/my command.md":    "spaces",
		"ws/.reasonix/commands/help.md":          "a help of its own",
		"ws/.reasonix/commands/mcp__x__y.md":     "pretends to be a prompt",
		"ws/.claude/commands/review.md":          "Claude's project review",
		"ws/.claude/commands/explain.md":         "Claude's project explain",
		"rxhome/commands/explain.md":             "user explain",
		"rxhome/commands/standup.md":             "user standup",
		"home/.claude/commands/standup.md":       "Claude's user standup",
		"home/.claude/commands/frontend/lint.md": "Claude's user lint",
		"secrets/token.md":                       "sk-secret",
	})
	if err := os.Symlink(filepath.Join(secrets, "token.md"), filepath.Join(root, ".reasonix/commands/leak.md")); err != nil {
		t.Fatal(err)
	}
	a := &Agent{
		Env:         &tools.Env{Root: root, FS: tools.DiskFS{}, Guard: sandbox.New([]string{root}, []string{secrets})},
		CommandDirs: CommandDirs(root, home, userHome),
	}
	cmds, warnings := a.Commands()
	got := map[string]string{}
	var names []string
	for _, c := range cmds {
		if c.Source == SourceBuiltin {
			continue
		}
		names = append(names, c.Name)
		got[c.Name] = string(c.Source) + ": " + c.Description
	}
	want := map[string]string{
		"/review":        "project: project review",
		"/git:commit":    "project: commit",
		"/explain":       "claude: Claude's project explain",
		"/standup":       "user: user standup",
		"/frontend:lint": "claude: Claude's user lint",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("commands %v, want %d", names, len(want))
	}
	if !slices.IsSorted(names) {
		t.Errorf("custom commands not sorted: %v", names)
	}
	for _, w := range []string{
		"broken.md: skipped: the frontmatter's opening --- has no closing ---",
		"my command.md: skipped: \"my command\" cannot be a command name",
		"help.md: skipped: /help is a built-in command",
		"mcp__x__y.md: skipped: names starting with mcp__",
		"leak.md: skipped: reading it is forbidden by [sandbox] forbid_read",
	} {
		if !slices.ContainsFunc(warnings, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("no warning %q in %q", w, warnings)
		}
	}
	if len(warnings) != 5 {
		t.Errorf("%d warnings: %q", len(warnings), warnings)
	}
	for _, c := range cmds {
		if c.custom != nil && strings.Contains(c.custom.body, "sk-secret") {
			t.Errorf("%s carries the forbidden file", c.Name)
		}
	}
}
