package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/gitdir"
)

func TestControlWatchUndoesChanges(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	write := func(rel, content string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("reasonix.toml", "# mine\n", 0o644)
	write(".git/hooks/pre-commit", "#!/bin/sh\nmake lint\n", 0o755)
	write(".git/hooks/post-merge.sample", "#!/bin/sh\n", 0o755)
	write(".git/config", "[core]\n", 0o644)
	write("main.go", "package main\n", 0o644)
	w := &ControlWatch{
		Paths: []string{
			filepath.Join(root, "reasonix.toml"), filepath.Join(root, ".reasonix"), filepath.Join(root, ".mcp.json"),
			filepath.Join(root, ".git", "config"), filepath.Join(root, ".git", "hooks"),
		},
		Disk: DiskFS{Roots: []string{root}},
	}
	before := w.Snapshot()

	// What a hostile command does.
	write("reasonix.toml", "# mine\n[sandbox]\nbash = \"off\"\n", 0o644)
	write(".mcp.json", `{"mcpServers": {"x": {"command": "evil"}}}`, 0o644)
	write(".reasonix/commands/x.md", "run evil\n", 0o644)
	write(".git/hooks/pre-push", "#!/bin/sh\nevil\n", 0o755)
	if err := os.Remove(filepath.Join(root, ".git", "hooks", "pre-commit")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, ".git", "config")); err != nil {
		t.Fatal(err)
	}
	// The config replaced by a link out of the workspace: undoing must
	// not write through it.
	if err := os.Symlink(filepath.Join(outside, "config"), filepath.Join(root, ".git", "config")); err != nil {
		t.Fatal(err)
	}
	write("main.go", "package main // edited\n", 0o644)

	res := Result{Content: "ok\n"}
	w.Undo(context.Background(), before, &res, func(p string) string { r, _ := filepath.Rel(root, p); return r })
	for _, want := range []string{".mcp.json", ".reasonix", "reasonix.toml", ".git/config", ".git/hooks/pre-commit", ".git/hooks/pre-push"} {
		if !strings.Contains(res.Notice, want) {
			t.Errorf("the notice does not name %s: %q", want, res.Notice)
		}
	}
	if !strings.Contains(res.Content, "were undone") {
		t.Errorf("content: %q", res.Content)
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	if got := read("reasonix.toml"); got != "# mine\n" {
		t.Errorf("reasonix.toml: %q", got)
	}
	if got := read(".git/config"); got != "[core]\n" {
		t.Errorf(".git/config: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(root, ".git", "hooks", "pre-commit")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("pre-commit: %v, %v", fi, err)
	}
	for _, gone := range []string{".mcp.json", ".reasonix", ".git/hooks/pre-push"} {
		if _, err := os.Lstat(filepath.Join(root, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", gone, err)
		}
	}
	if got := read("main.go"); got != "package main // edited\n" {
		t.Errorf("a file that is not a control file was touched: %q", got)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("undoing wrote outside: %v", ents)
	}

	// Nothing changed since: nothing to say.
	res = Result{Content: "ok\n"}
	w.Undo(context.Background(), w.Snapshot(), &res, filepath.Base)
	if res.Notice != "" || res.Content != "ok\n" {
		t.Errorf("unchanged: %+v", res)
	}
}

func TestControlWatchKeepsApprovedChanges(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	toml := filepath.Join(root, "reasonix.toml")
	if err := os.WriteFile(toml, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &ControlWatch{Paths: []string{toml}, Disk: DiskFS{Roots: []string{root}}}
	before := w.Snapshot()
	if err := os.WriteFile(toml, []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := Result{Changed: []string{toml}}
	w.Undo(context.Background(), before, &res, filepath.Base)
	if b, _ := os.ReadFile(toml); string(b) != "b\n" || res.Notice != "" {
		t.Errorf("an approved change was undone: %q, %q", b, res.Notice)
	}
	if !slices.Contains(w.Paths, toml) || !w.Under(toml) || w.Under(toml+".bak") {
		t.Error("Under")
	}
}

func TestControlWatchNil(t *testing.T) {
	var w *ControlWatch
	res := Result{Content: "x"}
	w.Undo(context.Background(), w.Snapshot(), &res, filepath.Base)
	if res.Content != "x" {
		t.Error(res)
	}
}

func TestControlWatchHoldAndSettle(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	toml := filepath.Join(root, "reasonix.toml")
	mcp := filepath.Join(root, ".mcp.json")
	other := filepath.Join(root, "main.go")
	for _, p := range []string{toml, other} {
		if err := os.WriteFile(p, []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := &ControlWatch{Paths: []string{toml, mcp}, Disk: DiskFS{Roots: []string{root}}}
	rel := func(p string) string { r, _ := filepath.Rel(root, p); return r }
	if note, notice := w.Settle(context.Background(), true, rel); note != "" || notice != "" {
		t.Fatalf("nothing held, yet %q %q", note, notice)
	}
	w.Hold(w.Snapshot())
	// An approved change, then a background process's.
	os.WriteFile(toml, []byte("b\n"), 0o644)
	w.Accept(toml, other)
	os.WriteFile(mcp, []byte("{}"), 0o644)
	os.WriteFile(other, []byte("edited\n"), 0o644)
	note, notice := w.Settle(context.Background(), true, rel)
	if !strings.Contains(note, "a process left running by an earlier command") || !strings.Contains(notice, ".mcp.json") {
		t.Errorf("note %q, notice %q", note, notice)
	}
	if _, err := os.Stat(mcp); !os.IsNotExist(err) {
		t.Error(".mcp.json was not undone")
	}
	if b, _ := os.ReadFile(toml); string(b) != "b\n" {
		t.Errorf("the approved change was undone: %q", b)
	}
	if b, _ := os.ReadFile(other); string(b) != "edited\n" {
		t.Errorf("a file that is not a control file was touched: %q", b)
	}
	// Still running: held again; no longer: forgotten.
	os.WriteFile(mcp, []byte("{}"), 0o644)
	if _, notice := w.Settle(context.Background(), false, rel); !strings.Contains(notice, ".mcp.json") {
		t.Errorf("second settle: %q", notice)
	}
	os.WriteFile(mcp, []byte("{}"), 0o644)
	if _, notice := w.Settle(context.Background(), false, rel); notice != "" {
		t.Errorf("nothing held any more, yet %q", notice)
	}
}

// In a git directory the watch keeps what git takes configuration and
// hooks from — a submodule's and a linked work tree's included, one made
// during the call too — and leaves what commits write alone.
func TestControlWatchGitDir(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	git := filepath.Join(root, ".git")
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(git, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("config", "[core]\n")
	write("HEAD", "ref: refs/heads/main\n")
	write("modules/lib/config", "[core]\n")
	write("modules/lib/HEAD", "ref: refs/heads/main\n")
	write("worktrees/wt/commondir", "../..\n")
	w := &ControlWatch{GitDirs: []string{git}, Root: root, Disk: DiskFS{Roots: []string{root}}}
	before := w.Snapshot()

	write("commondir", "../fake\n")
	write("modules/lib/config", "[core]\n\tfsmonitor = evil\n")
	write("modules/new/config", "[core]\n\tfsmonitor = evil\n")
	write("modules/new/HEAD", "ref: refs/heads/main\n")
	write("modules/a/b/hooks/post-checkout", "evil\n") // a submodule named a/b
	write("worktrees/wt/config.worktree", "[core]\n\tfsmonitor = evil\n")
	// What a commit writes.
	write("objects/ab/cdef", "blob")
	write("modules/lib/refs/heads/config", "0123\n")
	write("index", "DIRC")
	write("HEAD", "ref: refs/heads/other\n")

	res := Result{Content: "ok\n"}
	w.Undo(context.Background(), before, &res, func(p string) string { r, _ := filepath.Rel(root, p); return r })
	for _, gone := range []string{"commondir", "modules/new/config", "modules/a/b/hooks/post-checkout", "worktrees/wt/config.worktree"} {
		if _, err := os.Lstat(filepath.Join(git, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", gone, err)
		}
		if !strings.Contains(res.Notice, filepath.Join(".git", gone)) && !strings.Contains(res.Notice, filepath.Join(".git", "modules", "a", "b", "hooks")) {
			t.Errorf("the notice does not name %s: %q", gone, res.Notice)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(git, "modules", "lib", "config")); string(b) != "[core]\n" {
		t.Errorf("the submodule's config: %q", b)
	}
	for _, kept := range []string{"objects/ab/cdef", "modules/lib/refs/heads/config", "index", "modules/new/HEAD"} {
		if _, err := os.Stat(filepath.Join(git, kept)); err != nil {
			t.Errorf("%s: %v", kept, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(git, "HEAD")); string(b) != "ref: refs/heads/other\n" {
		t.Errorf("HEAD: %q", b)
	}
}

// Below Root, control paths by their names are watched where the caller
// knows them to exist, and undone where the caller reports a change.
func TestControlWatchNested(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	write := func(rel, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p(rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		b, err := os.ReadFile(p(rel))
		if err != nil {
			return "<gone>"
		}
		return string(b)
	}
	write("pkg/reasonix.toml", "# mine\n")
	write("pkg/.claude/skills/x/SKILL.md", "mine\n")
	write("lib/.git/config", "[core]\n")
	write("lib/.git/HEAD", "ref: refs/heads/main\n")
	write("other/reasonix.toml", "# not known\n")
	w := &ControlWatch{Paths: []string{p("reasonix.toml")}, Root: root, Disk: DiskFS{Roots: []string{root}}}
	rel := func(q string) string { r, _ := filepath.Rel(root, q); return r }
	before := w.Snapshot(p("pkg/reasonix.toml"), p("pkg/.claude/skills/x/SKILL.md"), p("lib/.git"), p("main.go"))
	if got := before.Known(); !slices.Equal(got, []string{p("lib/.git"), p("pkg/.claude"), p("pkg/reasonix.toml")}) {
		t.Errorf("Known = %v", got)
	}

	write("pkg/reasonix.toml", "[sandbox]\nbash = \"off\"\n")
	write("pkg/.claude/skills/x/SKILL.md", "evil\n")
	write("pkg/.claude/commands/y.md", "evil\n")
	write("lib/.git/config", "[core]\n\tfsmonitor = evil\n")
	write("deep/er/.mcp.json", "{}")
	write("deep/er/.vscode/tasks.json", "{}")
	write("fresh/.git/config", "[core]\n\tfsmonitor = evil\n")
	write("fresh/.git/HEAD", "ref: refs/heads/main\n")
	write("fresh/.git/objects/ab/cd", "blob")
	write("other/reasonix.toml", "# changed\n")
	write("main.go", "package main\n")
	res := Result{Content: "ok\n"}
	w.Undo(context.Background(), before, &res, rel,
		PathChange{Path: p("pkg/reasonix.toml")},
		PathChange{Path: p("deep/er/.mcp.json"), Created: true},
		PathChange{Path: p("deep/er/.vscode/tasks.json"), Created: true},
		PathChange{Path: p("fresh/.git"), Created: true},
		PathChange{Path: p("other/reasonix.toml")},
		PathChange{Path: p("main.go"), Created: true},
	)
	for rel, want := range map[string]string{
		"pkg/reasonix.toml":             "# mine\n",
		"pkg/.claude/skills/x/SKILL.md": "mine\n",
		"pkg/.claude/commands/y.md":     "<gone>",
		"lib/.git/config":               "[core]\n",
		"deep/er/.mcp.json":             "<gone>",
		"deep/er/.vscode/tasks.json":    "<gone>",
		"fresh/.git/config":             "<gone>",
		"fresh/.git/objects/ab/cd":      "blob",
		"main.go":                       "package main\n",
	} {
		if got := read(rel); got != want {
			t.Errorf("%s: %q, want %q", rel, got, want)
		}
	}
	// A change to one the caller did not know of is told, not guessed at.
	if !strings.Contains(res.Content, "undoing it failed") || !strings.Contains(res.Content, "other/reasonix.toml") {
		t.Errorf("content: %q", res.Content)
	}

	// Held while processes run: the known ones stay watched, and an
	// approved change to one is kept.
	before = w.Snapshot(before.Known()...)
	w.Hold(w.Snapshot(before.Known()...))
	write("pkg/reasonix.toml", "# approved\n")
	w.Accept(p("pkg/reasonix.toml"), p("main.go"))
	write("pkg/.claude/skills/x/SKILL.md", "late\n")
	note, notice := w.Settle(context.Background(), false, rel)
	if !strings.Contains(notice, filepath.Join("pkg", ".claude")) || note == "" {
		t.Errorf("settle: %q, %q", note, notice)
	}
	if got := read("pkg/reasonix.toml"); got != "# approved\n" {
		t.Errorf("the approved change was undone: %q", got)
	}
	if got := read("pkg/.claude/skills/x/SKILL.md"); got != "mine\n" {
		t.Errorf("a late change stayed: %q", got)
	}
	if !w.Under(p("a/b/.vscode/settings.json")) || w.Under(p("a/b/settings.json")) {
		t.Error("Under")
	}
}

// BenchmarkControlWatchSnapshot is what the watch records before and
// after every command in this repository's work tree: its control files
// and those of its git directories, whose objects, refs and logs it does
// not go into, whatever the history.
func BenchmarkControlWatchSnapshot(b *testing.B) {
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	w := &ControlWatch{Paths: []string{filepath.Join(root, "reasonix.toml"), filepath.Join(root, ".reasonix")}, GitDirs: gitdir.Dirs(root), Root: root}
	for b.Loop() {
		s := w.Snapshot()
		b.ReportMetric(float64(len(s.entries)), "entries")
	}
}
