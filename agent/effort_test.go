package agent_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
)

// TestEffortIsARequestParameter runs turns around /effort: a session
// without an effort sends no reasoning_effort; /effort high sets it for
// the session's later requests, /effort low PROMPT for one turn; the
// turn's result names it; and each request extends the previous one's
// messages byte for byte with the same tools, so a change of effort
// keeps the cached prefix.
func TestEffortIsARequestParameter(t *testing.T) {
	a, srv := newScriptedAgent(t, "match one\ntext 1\n---\nmatch two\ntext 2\n---\nmatch three\ntext 3\n---\nmatch four\ntext 4\n")
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(prompt string) agent.TurnResult {
		t.Helper()
		res, err := a.Run(ctx, s, prompt)
		if err != nil {
			t.Fatalf("%s: %v", prompt, err)
		}
		return res
	}
	if res := run("one"); res.Effort != "" {
		t.Errorf("turn one: effort %q, want none", res.Effort)
	}
	if res := run("/effort high"); res.Action == nil || res.Action.Kind != agent.ActionEffort || res.Action.Effort != "high" || res.Steps != 0 {
		t.Fatalf("/effort high: %+v", res)
	}
	if res := run("two"); res.Effort != "high" {
		t.Errorf("turn two: effort %q, want high", res.Effort)
	}
	if res := run("/effort low three"); res.Effort != "low" || res.Action != nil {
		t.Errorf("/effort low three: effort %q, action %+v", res.Effort, res.Action)
	}
	if res := run("four"); res.Effort != "high" {
		t.Errorf("turn four: effort %q, want high again", res.Effort)
	}
	if res := run("/effort"); !strings.Contains(res.Text, "Reasoning effort: high (set by /effort)") {
		t.Errorf("/effort answered %q", res.Text)
	}

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, want := range []string{"", "high", "low", "high"} {
		if got := reqs[i].ReasoningEffort; got != want {
			t.Errorf("request %d: reasoning_effort %q, want %q", i+1, got, want)
		}
	}
	if strings.Contains(reqs[0].Body, "reasoning_effort") {
		t.Errorf("a request without an effort names one: %.300s", reqs[0].Body)
	}
	for i := 1; i < len(reqs); i++ {
		prev := bytes.TrimSuffix(rawField(t, reqs[i-1].Body, "messages"), []byte("]"))
		if !bytes.HasPrefix(rawField(t, reqs[i].Body, "messages"), prev) {
			t.Errorf("request %d does not extend request %d byte for byte", i+1, i)
		}
		if !bytes.Equal(rawField(t, reqs[i-1].Body, "tools"), rawField(t, reqs[i].Body, "tools")) {
			t.Errorf("the tools of request %d differ from request %d's", i+1, i)
		}
	}
}

// TestEffortRefusesOtherLevels: /effort takes only the levels it knows,
// and no second /effort after the first's level.
func TestEffortRefusesOtherLevels(t *testing.T) {
	a, srv := newScriptedAgent(t, "text unused\n")
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for prompt, want := range map[string]string{
		"/effort max":              `/effort takes low, medium, high, not "max"`,
		"/effort low /effort high": "cannot be an /effort",
	} {
		if _, err := a.Run(context.Background(), s, prompt); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", prompt, err, want)
		}
	}
	if s.Effort() != "" || len(srv.Requests()) != 0 {
		t.Errorf("effort %q after refusals, %d requests", s.Effort(), len(srv.Requests()))
	}
}
