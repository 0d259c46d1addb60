package agent_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
)

// taskBudgetScript has the parent start three read-only tasks at once,
// each of which would go on for six requests.
var taskBudgetScript = func() string {
	var b strings.Builder
	b.WriteString("match start\n")
	for i := range 3 {
		fmt.Fprintf(&b, "call task {\"description\": \"d%d\", \"prompt\": \"gamma: look at part %d\"}\n", i, i)
	}
	b.WriteString("---\n")
	for i := range 15 {
		fmt.Fprintf(&b, "match gamma:\ncall read_file {\"path\": \"part%d.go\"}\n---\n", i)
	}
	b.WriteString(strings.Repeat("match gamma:\ntext Looked.\n---\n", 3))
	b.WriteString("match start\ntext All done.\n")
	return b.String()
}()

// TestTaskSpendsFromTheSessionBudget: a child's requests count against
// the session's token budget as they are made, not only once the child
// reports, so a model cannot spend past the budget by handing the work to
// tasks (several at once, each within its own task limits): once the
// session's budget is used up, no child sends another request.
func TestTaskSpendsFromTheSessionBudget(t *testing.T) {
	// A run without a budget, to learn what the requests cost.
	a, srv, _ := newTaskAgent(t, taskBudgetScript)
	a.TaskMaxSteps = 0
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(t.Context(), s, "start"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1+3*6+1 {
		t.Fatalf("%d requests without a budget", len(reqs))
	}
	// Enough for the parent's first request and one of a child's.
	budget := 0
	for _, r := range reqs[:2] {
		budget += r.Usage.PromptTokens + r.Usage.CompletionTokens
	}

	a, srv, _ = newTaskAgent(t, taskBudgetScript)
	a.TaskMaxSteps = 0
	a.TokenBudget = budget
	s, err = a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), s, "start")
	if !errors.Is(err, agent.ErrBudgetExceeded) || res.Stop != agent.StopBudget {
		t.Fatalf("err %v, stop %q; want the budget to stop the turn", err, res.Stop)
	}
	// The three children run in parallel: each may have its first
	// request under way when the budget runs out, none a second.
	if n := len(srv.Requests()); n > 1+3 {
		t.Errorf("%d requests sent with a budget of two; the children spent past it", n)
	}
	if used, _ := s.Usage(); used.Total() > 2*budget {
		t.Errorf("%d tokens used with a budget of %d", used.Total(), budget)
	}
}

// TestTaskHeldToTheRules: a rule about task holds like any tool's — the
// loop runs task calls itself, but only once the gate allows them: a deny
// rule refuses every one, a read-only one included, before a child
// starts.
func TestTaskHeldToTheRules(t *testing.T) {
	a, srv := builtAgent(t, `
match look around
call task {"description": "peek", "prompt": "gamma: look"}
---
match look around
expect tool Permission denied: denied by the rule "task"
text Not allowed.
`, `default_model = "scripted"
[permissions]
deny = ["task"]
`, t.TempDir())
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), s, "look around")
	if err != nil || res.Text != "Not allowed." {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d script steps left", n)
	}
}
