package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentConfig writes the scripted config with extra [agent] lines.
func agentConfig(t *testing.T, url, agent string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(scriptedConfig(url)+"\n[agent]\n"+agent), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestRunEscalation: an answer that begins with the marker is asked
// again of escalation_model with the same messages; the marker never
// reaches the user or the log, and a notice says so.
func TestRunEscalation(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	srv, url := startServer(t, `expect request "model":"deepseek-flash"
text <<<NEEDS_PRO: the proof is subtle>>> partial
---
expect request "model":"deepseek-pro"
text the strong answer
---
expect request "model":"deepseek-flash"
expect user second
text cheap again
`)
	cfg := agentConfig(t, url, "escalation_model = \"scripted/deepseek-pro\"\n")
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "prove it")
	noTrace(t, r)
	if r.exit != exitOK || strings.TrimSpace(r.stdout) != "the strong answer" || strings.Contains(r.stdout+r.stderr, "NEEDS_PRO") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "note: escalated to scripted/deepseek-pro: the proof is subtle") {
		t.Fatalf("no escalation notice:\n%s", r.stderr)
	}
	// The accounting line names the model that answered.
	if !strings.Contains(r.stderr, "· scripted/deepseek-pro (escalated from scripted/deepseek-flash) · session ") {
		t.Fatalf("the accounting line does not name the model that answered:\n%s", r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	a, _ := json.Marshal(reqs[0].Messages)
	b, _ := json.Marshal(reqs[1].Messages)
	if string(a) != string(b) {
		t.Fatalf("the escalated request has other messages:\n%s\n%s", a, b)
	}

	// The next turn is on the session's model again, and its log holds
	// the strong answer, not the marker.
	r = runReasonix(t, work, home, nil, "sessions", "--json")
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions: %v %s", err, r.stdout)
	}
	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "--resume", list[0].ID, "second")
	if r.exit != exitOK || strings.TrimSpace(r.stdout) != "cheap again" {
		t.Fatalf("second turn: exit %d\n%s\n%s", r.exit, r.stdout, r.stderr)
	}
	reqs = srv.Requests()
	last := reqs[len(reqs)-1].Messages
	c, _ := json.Marshal(last[:len(reqs[0].Messages)])
	all, _ := json.Marshal(last)
	if string(a) != string(c) || !strings.Contains(string(all), "the strong answer") || strings.Contains(string(all), "NEEDS_PRO") {
		t.Fatalf("second turn's messages:\n%s", all)
	}
}

// TestRunEscalationUnconfigured: without escalation_model the marker is
// stripped and a notice says no stronger model is configured.
func TestRunEscalationUnconfigured(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	srv, url := startServer(t, "text <<<NEEDS_PRO>>> my best try\n")
	cfg := agentConfig(t, url, "")
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "prove it")
	noTrace(t, r)
	if r.exit != exitOK || strings.TrimSpace(r.stdout) != "my best try" || strings.Contains(r.stdout, "NEEDS_PRO") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "no escalation_model is configured") || len(srv.Requests()) != 1 {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
}
