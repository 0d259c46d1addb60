package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loosened is in every notice of a configuration that lets the agent do
// more than before.
const loosened = "lets the agent do more than"

// realTempDir is a temporary directory by the path the binary sees.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLoosenedConfigIsShownOnce: the user's file changed between two runs
// to turn the jail off and allow more (by another program: a command
// cannot write it) is named, with its lines, on the next run's stderr,
// and not again after that.
func TestLoosenedConfigIsShownOnce(t *testing.T) {
	srv, cfg := startScripted(t, "text one\n---\ntext two\n---\ntext three\n")
	home, work := realTempDir(t), realTempDir(t)
	project := filepath.Join(home, "config.toml")
	if err := os.WriteFile(project, []byte("[agent]\nmax_steps = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(prompt string) run {
		t.Helper()
		r := runReasonix(t, work, home, nil, "run", "--config", cfg, prompt)
		if r.exit != 0 {
			t.Fatalf("%s: exit %d\nstderr:\n%s", prompt, r.exit, r.stderr)
		}
		return r
	}

	if r := run("one"); strings.Contains(r.stderr, loosened) {
		t.Errorf("first run:\n%s", r.stderr)
	}

	loose := "[agent]\nmax_steps = 5\n\n[sandbox]\nbash = \"off\"\n\n[permissions]\nallow = [\"Bash(curl:*)\"]\n"
	if err := os.WriteFile(project, []byte(loose), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run("two")
	for _, want := range []string{
		"reasonix: warning: the configuration of " + work + " lets the agent do more than in the last session:",
		project + `:5: [sandbox] bash = "off": shell commands run unconfined`,
		project + `:8: [permissions] allow adds "Bash(curl:*)"`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("second run: stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Count(r.stderr, loosened) != 1 {
		t.Errorf("second run: one notice expected:\n%s", r.stderr)
	}

	if r := run("three"); strings.Contains(r.stderr, loosened) {
		t.Errorf("third run:\n%s", r.stderr)
	}
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d scripted answers were never asked for", n)
	}
}

// TestLooseWorkspaceIsNotObeyed: a run in a workspace whose own
// reasonix.toml turns the jail off keeps it on, says what was left out
// and how to trust it, and does not announce it as a loosening.
func TestLooseWorkspaceIsNotObeyed(t *testing.T) {
	_, cfg := startScripted(t, "text hello\n")
	home, work := t.TempDir(), realTempDir(t)
	project := filepath.Join(work, "reasonix.toml")
	if err := os.WriteFile(project, []byte("[sandbox]\nbash = \"off\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "hi")
	if r.exit != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.exit, r.stderr)
	}
	for _, want := range []string{
		"The workspace " + work + " comes with configuration that takes effect only once you trust it:",
		`[sandbox] bash = "off": shell commands run unconfined (reasonix.toml:2)`,
		"review and trust it with reasonix trust",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, loosened) {
		t.Errorf("announced as a loosening:\n%s", r.stderr)
	}
}
