package main

import (
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// budgetScript asks for one read-only tool call, then answers.
const budgetScript = "call read_file {\"path\":\"a.txt\"}\n---\ntext done\n"

// stoppedByBudget checks that r stopped cleanly on a budget after the
// first response, the tool call it asked for unrun, stderr saying each
// of want.
func stoppedByBudget(t *testing.T, srv *scripted.Server, r run, want ...string) {
	t.Helper()
	noTrace(t, r)
	if r.exit != exitBudget {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", r.exit, exitBudget, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Fatalf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests after the budget ran out, want 1", n)
	}
}

// TestRunBudgetFlag: --budget stops the run after the response that
// reaches it, with a notice and exit 2; the tool call it asked for is not
// run and no further request is sent. Without it the same script finishes.
func TestRunBudgetFlag(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	writeTree(t, work, map[string]string{"a.txt": "hello\n"})

	srv, cfg := startScripted(t, budgetScript)
	stoppedByBudget(t, srv, runReasonix(t, work, home, nil, "run", "--config", cfg, "--budget", "1", "read a.txt"),
		"note: token budget exhausted:", "of 1 tokens used")

	srv, cfg = startScripted(t, budgetScript)
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "--budget", "1000000", "read a.txt")
	if r.exit != exitOK || strings.TrimSpace(r.stdout) != "done" || len(srv.Requests()) != 2 {
		t.Fatalf("--budget 1000000: exit %d, %d requests\nstdout:\n%s\nstderr:\n%s", r.exit, len(srv.Requests()), r.stdout, r.stderr)
	}

	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "--budget", "-3", "read a.txt")
	if r.exit != exitUsage || !strings.Contains(r.stderr, "--budget") {
		t.Fatalf("--budget -3: exit %d\n%s", r.exit, r.stderr)
	}
}

// TestRunCostBudget: [agent] cost_budget stops a run on a priced model
// once the session's cost reaches it, with a notice and exit 2.
func TestRunCostBudget(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	writeTree(t, work, map[string]string{"a.txt": "hello\n"})

	srv, url := startServer(t, budgetScript)
	cfg := agentConfig(t, url, "cost_budget = 0.0000001\n")
	stoppedByBudget(t, srv, runReasonix(t, work, home, nil, "run", "--config", cfg, "read a.txt"),
		"note: cost budget exhausted: $", "exceeded its budget")

	// A generous cost budget does not stop the run.
	srv, url = startServer(t, budgetScript)
	cfg = agentConfig(t, url, "cost_budget = 100.0\n")
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "read a.txt")
	if r.exit != exitOK || len(srv.Requests()) != 2 {
		t.Fatalf("cost_budget 100: exit %d\nstderr:\n%s", r.exit, r.stderr)
	}
}
