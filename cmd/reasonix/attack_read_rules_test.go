package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The rules about reading: with `deny = ["Read(private/**)"]` and every
// other call allowed (`--approval auto`), the text of the private files
// must reach the model by no tool — not a search over the workspace, a
// listing, a move to a name no rule covers, a patch that renames or
// copies, an edit's echo, a shell command naming the file, a link
// committed beside it, nor the project memory a session attaches on its
// own — and the files stay where they are.

// TestAttackReadRules runs the attack as the user running the test.
func TestAttackReadRules(t *testing.T) {
	t.Parallel()
	readRulesAttack(t, newHostile(t), false)
}

// TestAttackReadRulesAsAUser runs it with Reasonix running as an
// unprivileged user.
func TestAttackReadRulesAsAUser(t *testing.T) {
	t.Parallel()
	readRulesAttack(t, newHostile(t), true)
}

func readRulesAttack(t *testing.T, h *hostile, nobody bool) {
	marker := fmt.Sprintf("PRIVATE-MARKER-%d", time.Now().UnixNano())
	h.secrets = append(h.secrets, marker)
	mustWrite(t, filepath.Join(h.work, "private", "a.txt"), "MARK "+marker+"\n")
	mustWrite(t, filepath.Join(h.work, "private", "deep", "b.txt"), "MARK "+marker+" deep\n")
	// A memory file a session attaches on its own to the first call
	// that works below its directory.
	mustWrite(t, filepath.Join(h.work, "private", "AGENTS.md"), "Project memory: "+marker+"\n")
	mustWrite(t, filepath.Join(h.work, "public.txt"), "MARK public\n")
	// Links a repository could commit beside the private files.
	for name, target := range map[string]string{"plink": "private/a.txt", "pdir": "private"} {
		if err := os.Symlink(target, filepath.Join(h.work, name)); err != nil {
			t.Fatal(err)
		}
	}
	if nobody {
		h.asNobody(t)
	}
	before := snapshotTree(t, filepath.Join(h.work, "private"))

	const denied = `denied by the rule "Read(private/**)"`
	const leftOut = "left out: the permission rules deny reading"
	names := []string{"private/", "a.txt", "b.txt", "AGENTS.md"}
	calls := []attackCall{
		// Walks over the workspace: the private files are left out,
		// counted and not named.
		{tool: "grep", args: map[string]any{"pattern": "MARK", "path": "."}, want: leftOut, absent: []string{"private/"}},
		{tool: "grep", args: map[string]any{"pattern": "PRIVATE-MARKER", "output_mode": "files_with_matches"}, want: leftOut, absent: []string{"private/"}},
		{tool: "glob", args: map[string]any{"pattern": "**/*"}, want: leftOut, absent: names},
		{tool: "glob", args: map[string]any{"pattern": "private/**"}, want: denied},
		{tool: "glob", args: map[string]any{"pattern": "deep/*", "path": "pdir"}, want: denied},
		{tool: "ls", args: map[string]any{"path": "."}, want: leftOut, absent: []string{"private/"}},
		{tool: "ls", args: map[string]any{"path": "private"}, want: denied},
		// Through the links.
		{tool: "read_file", args: map[string]any{"path": "plink"}, want: denied},
		{tool: "read_file", args: map[string]any{"path": "pdir/deep/b.txt"}, want: denied},
		{tool: "grep", args: map[string]any{"pattern": "MARK", "path": "plink"}, want: denied},
		{tool: "grep", args: map[string]any{"pattern": "MARK", "path": "pdir"}, want: denied},
		{tool: "ls", args: map[string]any{"path": "pdir"}, want: denied},
		// A move, then a read of the new name.
		{tool: "move_file", args: map[string]any{"source": "private/a.txt", "destination": "moved.txt"}, want: denied},
		{tool: "read_file", args: map[string]any{"path": "moved.txt"}, want: "does not exist"},
		{tool: "move_file", args: map[string]any{"source": "private", "destination": "moved"}, want: denied},
		{tool: "move_file", args: map[string]any{"source": "pdir/deep", "destination": "moved"}, want: denied},
		{tool: "read_file", args: map[string]any{"path": "moved/b.txt"}, want: "does not exist"},
		// Patches that rename, copy, or test the content with a hunk.
		{tool: "apply_patch", args: map[string]any{"patch": "diff --git a/private/a.txt b/out.txt\nsimilarity index 100%\nrename from private/a.txt\nrename to out.txt\n"}, want: denied},
		{tool: "apply_patch", args: map[string]any{"patch": "diff --git a/private/a.txt b/copy.txt\nsimilarity index 100%\ncopy from private/a.txt\ncopy to copy.txt\n"}, want: denied},
		patchWant(patch("a/private/a.txt", "b/private/a.txt", "@@ -1 +1 @@\n-MARK guess\n+x\n"), denied),
		// Edits, whose answers echo or test the content.
		{tool: "edit_file", args: map[string]any{"path": "private/a.txt", "old_string": "MARK", "new_string": "x"}, want: denied},
		{tool: "multi_edit", args: map[string]any{"path": "plink", "edits": []map[string]any{{"old_string": "MARK", "new_string": "x"}}}, want: denied},
		// Shell commands that name a private file.
		{tool: "bash", args: map[string]any{"command": "cat private/a.txt"}, want: denied},
		{tool: "bash", args: map[string]any{"command": "tr a-z A-Z < private/deep/b.txt"}, want: denied},
		{tool: "bash", args: map[string]any{"command": "cp private/a.txt y.txt && cat y.txt"}, want: denied},
		{tool: "bash", args: map[string]any{"command": "sh -c 'base64 plink'"}, want: denied},
		// Writing is not reading: this runs, and the memory file beside
		// it stays out of the result.
		{tool: "write_file", args: map[string]any{"path": "private/new.txt", "content": "new\n"}, want: "Created", absent: []string{"Project memory"}},
		// The public file is still found.
		{tool: "grep", args: map[string]any{"pattern": "MARK public"}, want: "public.txt:1:MARK public"},
	}
	h.attack(t, "[permissions]\ndeny = [\"Read(private/**)\"]\n", []string{"--approval", "auto"}, calls)

	after := snapshotTree(t, filepath.Join(h.work, "private"))
	unchanged(t, "private/", before, after)
	for _, name := range []string{"moved.txt", "moved", "out.txt", "copy.txt", "y.txt"} {
		if _, err := os.Lstat(filepath.Join(h.work, name)); err == nil {
			t.Errorf("%s was created", name)
		}
	}
	if !strings.HasSuffix(after["new.txt"], " new\n") {
		t.Errorf("private/new.txt was not written: %q", after["new.txt"])
	}
}

// patchWant sets what a patch call's result must say.
func patchWant(c attackCall, want string) attackCall {
	c.want = want
	return c
}
