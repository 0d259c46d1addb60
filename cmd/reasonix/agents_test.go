package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// TestCustomAgentThroughTask: a workspace's .claude/agents/reviewer.md,
// in Claude Code's format, is run by the task tool's subagent_type. The
// parent's task tool lists it; the helper's requests carry its
// instructions in their system prompt, offer only its tools (Read and
// Grep, as Reasonix names them) and go to its model, ahead of
// subagent_model, on which a task without subagent_type runs.
func TestCustomAgentThroughTask(t *testing.T) {
	t.Parallel()
	work, home := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{
		".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews Go code for bugs\ntools: Read, Grep\nmodel: scripted/reviewer-model\n---\nYou are the reviewer. Quote the line of each bug.\n",
		"calc.go":                    "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
	} {
		path := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv, url := startServer(t, `match review calc
expect request - reviewer: Reviews Go code for bugs
call task {"description": "review calc.go", "prompt": "reviewer: review calc.go", "subagent_type": "reviewer"}
---
match reviewer:
expect system You are the reviewer. Quote the line of each bug.
call read_file {"path": "calc.go"}
---
match reviewer:
expect tool return a - b
text Add subtracts: "return a - b".
---
match review calc
expect tool Add subtracts
expect tool , agent reviewer on scripted/reviewer-model]
call task {"description": "list", "prompt": "general: list the files"}
---
match general:
text calc.go
---
match review calc
expect tool , on scripted/helper-model]
text Add subtracts.
`)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(scriptedConfig(url)+"\n[agent]\nsubagent_model = \"scripted/helper-model\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "review calc.go")
	if r.exit != 0 || !strings.Contains(r.stdout, "Add subtracts.") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	byModel := map[string][]scripted.Request{}
	for _, req := range srv.Requests() {
		byModel[req.Model] = append(byModel[req.Model], req)
	}
	reviewer, general, parent := byModel["reviewer-model"], byModel["helper-model"], byModel["deepseek-flash"]
	if len(reviewer) != 2 || len(general) != 1 || len(parent) != 3 {
		t.Fatalf("requests by model: %d reviewer-model, %d helper-model, %d deepseek-flash; want 2, 1, 3", len(reviewer), len(general), len(parent))
	}
	for _, req := range reviewer {
		if !slices.Equal(req.Tools, []string{"grep", "read_file"}) {
			t.Errorf("the reviewer is offered %q, want only read_file and grep", req.Tools)
		}
		if sys := req.Messages[0]; sys.Role != "system" || !strings.Contains(sys.Content, "You act as the agent \"reviewer\"") {
			t.Errorf("the reviewer's system prompt: %.300q", sys.Content)
		}
	}
	if tools := general[0].Tools; slices.Contains(tools, "task") || !slices.Contains(tools, "read_file") || strings.Contains(general[0].Messages[0].Content, "You are the reviewer") {
		t.Errorf("the general helper: tools %q, system %.200q", tools, general[0].Messages[0].Content)
	}
	if !slices.Contains(parent[0].Tools, "task") {
		t.Errorf("the parent is offered %q", parent[0].Tools)
	}
}

// TestReasoningEffortInRun: [agent] reasoning_effort is sent as the
// request's reasoning_effort and named on the closing line; /effort LEVEL
// PROMPT asks for another for one run; /effort alone says which is in
// force; /effort LEVEL alone means nothing in a run of one prompt.
func TestReasoningEffortInRun(t *testing.T) {
	t.Parallel()
	work, home := t.TempDir(), t.TempDir()
	srv, url := startServer(t, "match first\ntext one\n---\nmatch second\ntext two\n")
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(scriptedConfig(url)+"\n[agent]\nreasoning_effort = \"high\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "first")
	if r.exit != 0 || !strings.Contains(r.stderr, " · effort high") {
		t.Errorf("exit %d, closing line without the effort:\n%s", r.exit, r.stderr)
	}
	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "/effort low second")
	if r.exit != 0 || !strings.Contains(r.stderr, " · effort low") {
		t.Errorf("/effort low second: exit %d\n%s", r.exit, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].ReasoningEffort != "high" || !strings.Contains(reqs[0].Body, `"reasoning_effort":"high"`) || reqs[1].ReasoningEffort != "low" {
		t.Fatalf("requests: %d, efforts %q", len(reqs), effortsOf(reqs))
	}
	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "/effort")
	if r.exit != 0 || !strings.Contains(r.stdout, "Reasoning effort: high ([agent] reasoning_effort)") {
		t.Errorf("/effort: exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "/effort medium")
	if r.exit != exitUsage || !strings.Contains(r.stderr, "/effort medium alone has no effect in reasonix run") {
		t.Errorf("/effort medium: exit %d\nstderr:\n%s", r.exit, r.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want the 2 of the prompts", n)
	}
}

func effortsOf(reqs []scripted.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.ReasoningEffort)
	}
	return out
}
