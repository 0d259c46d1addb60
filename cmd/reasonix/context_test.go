package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider"
)

// TestRunContext: `reasonix run /context` shows where a new session's
// tokens go without asking the model (and without a key); after a turn,
// `--resume ID /context` counts the conversation too, and gives the
// provider's figure for the last request as measured.
func TestRunContext(t *testing.T) {
	srv, url := startServer(t, "text Hello there.\n")
	home, work, cfg := windowedWorkspace(t, url, 64_000)
	writeTree(t, work, map[string]string{"AGENTS.md": "Run the tests before you finish.\n"})

	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "/context")
	for _, want := range []string{"Context of session ", "of 64k tokens (", "system prompt", "memory files (AGENTS.md)", "tool schemas (",
		"user messages", "free", "Compacts before a request reaching 51k tokens", "Estimated: every figure, at assumed"} {
		if r.exit != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("/context: exit %d, stdout lacks %q:\n%s\nstderr:\n%s", r.exit, want, r.stdout, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("/context sent %d requests to the model", n)
	}

	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "hello")
	m := regexp.MustCompile(`session (\d{8}-\d{6}-[0-9a-f]{6})`).FindStringSubmatch(r.stderr)
	if r.exit != 0 || m == nil {
		t.Fatalf("hello: exit %d\nstderr:\n%s", r.exit, r.stderr)
	}
	// The closing line says how full the window is.
	if !regexp.MustCompile(` · \d+% of 64k context · `).MatchString(r.stderr) {
		t.Errorf("the closing line does not say how full the window is:\n%s", r.stderr)
	}
	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "--resume", m[1], "/context")
	for _, want := range []string{"user messages (1)", "assistant messages (1)", "Measured: the last request's prompt was ", "as the session's last request measured it"} {
		if r.exit != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("resumed /context: exit %d, stdout lacks %q:\n%s\nstderr:\n%s", r.exit, want, r.stdout, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests reached the model, want hello's alone", n)
	}
}

// TestClosingLineContext: the accounting line says how full the window
// is when the window is known, and nothing of it when it is not.
func TestClosingLineContext(t *testing.T) {
	cases := []struct {
		fill agent.ContextFill
		want string
	}{
		{agent.ContextFill{ContextWindow: 128_000, ContextTokens: 53_760}, "— turn 1 · 1 request · 0 tool calls · 100 in (0.0% cache hit) + 10 out · 42% of 128k context · session s1\n"},
		{agent.ContextFill{ContextWindow: 128_000, ContextTokens: 140_000}, "— turn 1 · 1 request · 0 tool calls · 100 in (0.0% cache hit) + 10 out · 100% of 128k context · session s1\n"},
		{agent.ContextFill{ContextTokens: 53_760}, "— turn 1 · 1 request · 0 tool calls · 100 in (0.0% cache hit) + 10 out · session s1\n"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		r := newRenderer(&out, &errb, false, false, false)
		r.finish(agent.TurnResult{Turn: 1, Steps: 1, SessionID: "s1", Usage: provider.Usage{PromptTokens: 100, CompletionTokens: 10}, ContextFill: c.fill})
		if errb.String() != c.want {
			t.Errorf("%+v:\n%q\nwant\n%q", c.fill, errb.String(), c.want)
		}
	}
}
