package agent_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/provider/openai"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// fastRetries points a's provider at url with retries a few
// milliseconds apart.
func fastRetries(tb testing.TB, a *agent.Agent, url string) {
	tb.Helper()
	prov, err := openai.New(provider.Config{Name: "scripted", BaseURL: url, Model: "deepseek-flash",
		Options: map[string]any{"retry_base_ms": 10, "retry_max_ms": 20}})
	if err != nil {
		tb.Fatal(err)
	}
	a.Provider = prov
}

// TestStepRecords: a turn whose first request the server refuses with a
// 429 leaves one record per attempt, the retried one naming its cause,
// then the tool call with its arguments redacted as the session is, then
// the last request; the figures are the server's.
func TestStepRecords(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	t.Setenv("STEP_TEST_KEY", secret)
	a, srv := newScriptedAgent(t, "fault 429\n---\n"+
		`call bash {"command": "echo `+secret+`"}`+"\n---\ntext done\n")
	fastRetries(t, a, srv.URL())
	a.Secrets = []agent.Secret{{Name: "STEP_TEST_KEY", Value: secret}}
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), s, "echo the key"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	steps, err := a.Store.ReadSteps(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, r := range steps {
		shape = append(shape, strings.Join([]string{r.Kind, r.Retry, r.Tool, r.Finish}, ":"))
	}
	if got := strings.Join(shape, " "); got != "request:429:: request:::tool_calls tool::bash: request:::stop" {
		t.Fatalf("records: %s", got)
	}
	first, second, tool, last := steps[0], steps[1], steps[2], steps[3]
	if first.Attempt != 1 || second.Attempt != 2 || first.Step != 1 || second.Step != 1 || last.Step != 2 || last.Attempt != 1 {
		t.Fatalf("attempts %d %d %d, steps %d %d %d", first.Attempt, second.Attempt, last.Attempt, first.Step, second.Step, last.Step)
	}
	if !strings.Contains(first.Error, "HTTP 429") || first.Usage != nil || second.Error != "" {
		t.Fatalf("the refused attempt: %+v", first)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[1].Usage == nil || reqs[2].Usage == nil {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, c := range []struct {
		rec agent.StepRecord
		req scripted.Request
	}{{second, reqs[1]}, {last, reqs[2]}} {
		u, w := c.rec.Usage, c.req.Usage
		if u == nil || u.PromptTokens != w.PromptTokens || u.CompletionTokens != w.CompletionTokens || u.CacheHitTokens != w.PromptCacheHitTokens {
			t.Fatalf("usage %+v, the server reported %+v", u, w)
		}
		if c.rec.Model != "scripted/deepseek-flash" || c.rec.Messages == 0 || c.rec.Bytes == 0 {
			t.Fatalf("request record %+v", c.rec)
		}
	}
	if strings.Contains(string(tool.Arguments), secret) || !strings.Contains(string(tool.Arguments), "[redacted STEP_TEST_KEY]") ||
		tool.ResultBytes == 0 || tool.Error != "" {
		t.Fatalf("tool record %+v", tool)
	}
	data, _ := os.ReadFile(a.Store.StepsPath(s.ID))
	if strings.Contains(string(data), secret) {
		t.Fatal("the step records hold the secret")
	}
}

// TestStepRecordsNeverFailARun: a step file that cannot be written
// loses the records, not the turn.
func TestStepRecordsNeverFailARun(t *testing.T) {
	a, _ := newScriptedAgent(t, `call read_file {"path": "main.go"}`+"\n---\ntext done\n")
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A directory where the file would go.
	if err := os.MkdirAll(a.Store.StepsPath(s.ID), 0o700); err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), s, "read it")
	if err != nil || res.Text != "done" {
		t.Fatalf("%q, %v", res.Text, err)
	}
}

// TestFailedSessionLeavesNoSteps: a new session whose model never
// answered is removed on close, its step records with it.
func TestFailedSessionLeavesNoSteps(t *testing.T) {
	a, srv := newScriptedAgent(t, "fault 401\n")
	fastRetries(t, a, srv.URL())
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), s, "hi"); err == nil {
		t.Fatal("the turn did not fail")
	}
	if _, err := os.Stat(a.Store.StepsPath(s.ID)); err != nil {
		t.Fatalf("no step records while the session is open: %v", err)
	}
	s.Close()
	if _, err := os.Stat(a.Store.StepsPath(s.ID)); !os.IsNotExist(err) {
		t.Fatalf("step records outlive their session: %v", err)
	}
}

// escalationAgent builds an agent from a config whose models are served
// by one scripted server playing script.
func escalationAgent(t *testing.T, script, defaultModel string) (*agent.Agent, *scripted.Server) {
	t.Helper()
	return builtAgent(t, script, `default_model = "`+defaultModel+`"
[agent]
escalation_model = "scripted/deepseek-pro"
`, t.TempDir())
}

// builtAgent builds an agent as the commands do (agent.Build) in dir,
// from a config whose provider "scripted" (model deepseek-flash, any
// other by "scripted/<model>") is a scripted server playing script, with
// toml after it (top-level keys first, then tables). REASONIX_HOME is a
// fresh directory.
func builtAgent(t *testing.T, script, toml, dir string) (*agent.Agent, *scripted.Server) {
	t.Helper()
	return builtAgentWith(t, script, toml, agent.Options{Dir: dir})
}

// builtAgentWith is builtAgent with the options Build gets.
func builtAgentWith(t *testing.T, script, toml string, opts agent.Options) (*agent.Agent, *scripted.Server) {
	t.Helper()
	t.Setenv("REASONIX_HOME", t.TempDir())
	srv, url := agenttest.Serve(t, script, scripted.Options{})
	cfg, err := config.Load(config.Options{SkipUser: true})
	if err != nil {
		t.Fatal(err)
	}
	top, tables := toml, ""
	if i := strings.Index(toml, "["); i >= 0 {
		top, tables = toml[:i], toml[i:]
	}
	src := top + `
[[providers]]
name = "scripted"
kind = "openai"
base_url = "` + url + `"
model = "deepseek-flash"
options = { retry_base_ms = 10, retry_max_ms = 20 }
` + tables
	if err := cfg.OverlayTOML("test", src); err != nil {
		t.Fatal(err)
	}
	a, err := agent.Build(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, srv
}

// runText runs one prompt and returns the result with the answer's
// text as the user saw it stream, and the notices.
func runText(t *testing.T, a *agent.Agent, s *agent.Session, prompt string) (agent.TurnResult, string, string) {
	t.Helper()
	var shown, notices strings.Builder
	a.Sink = func(e agent.Event) {
		switch e.Kind {
		case agent.EventText:
			shown.WriteString(e.Text)
		case agent.EventNotice:
			notices.WriteString(e.Text + "\n")
		}
	}
	res, err := a.Run(context.Background(), s, prompt)
	if err != nil {
		t.Fatal(err)
	}
	return res, shown.String(), notices.String()
}

// TestEscalationAcrossModelSwitch: after /model, escalation_model stays
// configured for the other models, the escalation model itself does not
// escalate, and the result names the model that answered.
func TestEscalationAcrossModelSwitch(t *testing.T) {
	t.Run("onto the escalation model", func(t *testing.T) {
		a, srv := escalationAgent(t, `expect request "model":"deepseek-pro"
text <<<NEEDS_PRO>>> my own try
---
expect request "model":"deepseek-flash"
text <<<NEEDS_PRO: hard>>>
---
expect request "model":"deepseek-pro"
text the strong answer
`, "scripted/deepseek-flash")
		s, err := a.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, shown, notices := runText(t, a, s, "/model scripted/deepseek-pro prove it")
		if res.Text != "my own try" || shown != "my own try" || res.Model != "scripted/deepseek-pro" || res.EscalatedFrom != "" ||
			!strings.Contains(notices, "it is the escalation_model itself") || len(srv.Requests()) != 1 {
			t.Fatalf("%+v shown %q notices %q", res, shown, notices)
		}
		res, shown, _ = runText(t, a, s, "again")
		if res.Text != "the strong answer" || shown != "the strong answer" ||
			res.Model != "scripted/deepseek-pro" || res.EscalatedFrom != "scripted/deepseek-flash" || !res.Priced {
			t.Fatalf("%+v shown %q", res, shown)
		}
		steps, err := a.Store.ReadSteps(s.ID)
		if err != nil || len(steps) != 3 || steps[2].Purpose != "escalation" || steps[2].Model != "scripted/deepseek-pro" || steps[1].Model != "scripted/deepseek-flash" {
			t.Fatalf("steps %+v, %v", steps, err)
		}
	})
	t.Run("off the escalation model", func(t *testing.T) {
		// The session starts on the escalation model, which has none;
		// a switch to a weaker one gains it.
		a, _ := escalationAgent(t, `expect request "model":"deepseek-flash"
text <<<NEEDS_PRO>>>
---
expect request "model":"deepseek-pro"
text the strong answer
`, "scripted/deepseek-pro")
		if a.Escalation != nil {
			t.Fatalf("escalation on its own model: %+v", a.Escalation)
		}
		s, err := a.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, shown, _ := runText(t, a, s, "/model scripted/deepseek-flash prove it")
		if res.Text != "the strong answer" || shown != "the strong answer" || res.EscalatedFrom != "scripted/deepseek-flash" {
			t.Fatalf("%+v shown %q", res, shown)
		}
	})
}

// TestMarkerAfterRetry: a stream that began with the marker and broke
// off is sent again; the new answer, without the marker, is shown and
// kept, and is not escalated.
func TestMarkerAfterRetry(t *testing.T) {
	a, srv := escalationAgent(t, `fault drop
text <<<NEEDS_PRO: hard>>> and a long try that the connection cuts off somewhere in the middle of it
---
text a plain answer after the retry
`, "scripted/deepseek-flash")
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, shown, _ := runText(t, a, s, "prove it")
	if res.Text != "a plain answer after the retry" || !strings.HasSuffix(shown, "a plain answer after the retry") ||
		strings.Contains(shown, "NEEDS_PRO") || len(srv.Requests()) != 2 || res.EscalatedFrom != "" {
		t.Fatalf("%+v shown %q, %d requests", res, shown, len(srv.Requests()))
	}
	steps, err := a.Store.ReadSteps(s.ID)
	if err != nil || len(steps) != 2 || steps[0].Retry != provider.RetryTransport || steps[1].Attempt != 2 {
		t.Fatalf("steps %+v, %v", steps, err)
	}
}
