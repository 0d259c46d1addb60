package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// budgetScript asks for one read-only tool call, then answers.
const budgetScript = "call read_file {\"path\":\"a.txt\"}\n---\ntext done\n"

// stoppedByBudget checks that r stopped cleanly on a budget after sent
// requests, stderr saying each of want.
func stoppedByBudget(t *testing.T, srv *scripted.Server, r run, sent int, want ...string) {
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
	if n := len(srv.Requests()); n != sent {
		t.Fatalf("%d requests before the budget ran out, want %d", n, sent)
	}
}

// TestRunBudgetFlag: --budget stops the run, with a notice and exit 2,
// before a request that does not fit what is left of it: with a budget
// below the first prompt nothing is sent, and with one the first request
// fits and the second does not, only the first is. Without it the same
// script finishes.
func TestRunBudgetFlag(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	writeTree(t, work, map[string]string{"a.txt": "hello\n"})

	srv, cfg := startScripted(t, budgetScript)
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "--budget", "1000000", "read a.txt")
	if r.exit != exitOK || strings.TrimSpace(r.stdout) != "done" || len(srv.Requests()) != 2 {
		t.Fatalf("--budget 1000000: exit %d, %d requests\nstdout:\n%s\nstderr:\n%s", r.exit, len(srv.Requests()), r.stdout, r.stderr)
	}
	first := srv.Requests()[0].Usage

	srv, cfg = startScripted(t, budgetScript)
	stoppedByBudget(t, srv, runReasonix(t, work, home, nil, "run", "--config", cfg, "--budget", "1", "read a.txt"), 0,
		"note: token budget exhausted: 0 of 1 tokens used, too few for the next request")

	// Room for the first request, and a quarter of its prompt more.
	budget := first.PromptTokens + first.CompletionTokens + first.PromptTokens/4
	srv, cfg = startScripted(t, budgetScript)
	stoppedByBudget(t, srv, runReasonix(t, work, home, nil, "run", "--config", cfg, "--budget", fmt.Sprint(budget), "read a.txt"), 1,
		"note: token budget exhausted:", fmt.Sprintf("of %d tokens used, too few for the next request", budget))

	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "--budget", "-3", "read a.txt")
	if r.exit != exitUsage || !strings.Contains(r.stderr, "--budget") {
		t.Fatalf("--budget -3: exit %d\n%s", r.exit, r.stderr)
	}
}

// TestRunCostBudget: [agent] cost_budget stops a run on a priced model
// before a request whose prompt costs more than is left, with a notice
// and exit 2.
func TestRunCostBudget(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	writeTree(t, work, map[string]string{"a.txt": "hello\n"})

	srv, url := startServer(t, budgetScript)
	cfg := agentConfig(t, url, "cost_budget = 0.0000001\n")
	stoppedByBudget(t, srv, runReasonix(t, work, home, nil, "run", "--config", cfg, "read a.txt"), 0,
		"note: cost budget exhausted: $", "too little for the next request", "exceeded its budget")

	// A generous cost budget does not stop the run.
	srv, url = startServer(t, budgetScript)
	cfg = agentConfig(t, url, "cost_budget = 100.0\n")
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "read a.txt")
	if r.exit != exitOK || len(srv.Requests()) != 2 {
		t.Fatalf("cost_budget 100: exit %d\nstderr:\n%s", r.exit, r.stderr)
	}
}
