package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Attacks through what a session reads on its own, before and beside the
// model's calls: memory files, notes, skills, custom commands, the
// session store.

// noSecretUnder fails when a file below dir holds one of the secrets as
// written: what Reasonix keeps on disk (sessions, outputs, steps) is
// redacted as what it sends is.
func (h *hostile) noSecretUnder(t *testing.T, dir string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		n++
		for _, s := range h.secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%s holds a secret (%q):\n%s", p, s, excerptAround(string(data), s))
			}
		}
		return nil
	})
	if n == 0 {
		t.Errorf("no file under %s to check", dir)
	}
}

// TestAttackKeyInTheSystemPrompt: the API key written in a file that the
// session's system prompt takes in — a project memory file that a
// repository committed as a link to the user's shell profile, a note of
// the user's whose description holds it — is redacted there as in every
// tool result, in what the model is sent and in the session file.
func TestAttackKeyInTheSystemPrompt(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	mustWrite(t, filepath.Join(h.home, ".profile"), "export "+attackKeyVar+"="+h.key+"\n")
	if err := os.Symlink(filepath.Join("homelink", ".profile"), filepath.Join(h.work, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(h.rhome, "memory", "deploy.md"), "---\ndescription: deploy with "+h.key+"\n---\n\nrun make deploy\n")
	h.attack(t, "", []string{"--approval", "auto"}, []attackCall{
		// The same file through a read tool: redacted.
		{tool: "read_file", args: map[string]any{"path": "AGENTS.md"}, want: "[redacted " + attackKeyVar + "]"},
	})
	h.noSecretUnder(t, filepath.Join(h.rhome, "sessions"))
}

// TestAttackKeyInSavedOutputs: a result too long for the conversation is
// saved whole beside the session, for read_file; the key it holds is
// redacted there as in the conversation — a command's output and another
// tool's result alike.
func TestAttackKeyInSavedOutputs(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	var b strings.Builder
	pad := strings.Repeat("=", 180)
	for i := range 2000 {
		fmt.Fprintf(&b, "line %d of the build log %s\n", i, pad)
		if i == 120 {
			// In the middle of what a capped result leaves out.
			b.WriteString("line token " + h.key + "\n")
		}
	}
	mustWrite(t, filepath.Join(h.work, "build.log"), b.String())
	results := h.attack(t, "", []string{"--approval", "auto"}, []attackCall{
		{tool: "bash", args: map[string]any{"command": "cat build.log"}, want: "the whole output is saved"},
		{tool: "grep", args: map[string]any{"pattern": "line|token", "path": "build.log"}, want: "the whole output is saved"},
	})
	for _, r := range results {
		if !strings.Contains(r, ".outputs") {
			t.Errorf("the result names no saved output:\n%s", r)
		}
	}
	h.noSecretUnder(t, filepath.Join(h.rhome, "sessions"))
}
