package agent_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/provider/openai"
	"github.com/reasonix/reasonix/agent/provider/scripted"
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
	reqs := unlimited(t, taskBudgetScript, func(a *agent.Agent) { a.TaskMaxSteps = 0 })
	if len(reqs) != 1+3*6+1 {
		t.Fatalf("%d requests without a budget", len(reqs))
	}
	// Enough for the parent's first request and one of a child's.
	budget := 0
	for _, r := range reqs[:2] {
		budget += r.Usage.PromptTokens + r.Usage.CompletionTokens
	}

	a, srv, _ := newTaskAgent(t, taskBudgetScript)
	a.TaskMaxSteps = 0
	a.TokenBudget = budget
	s, err := a.NewSession()
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

// parallelScript has the parent start three tasks at once, each of which
// answers at once with about answer tokens.
func parallelScript(answer int) string {
	var b strings.Builder
	b.WriteString("match start\n")
	for i := range 3 {
		fmt.Fprintf(&b, "call task {\"description\": \"d%d\", \"prompt\": \"gamma: look at part %d\"}\n", i, i)
	}
	b.WriteString("---\n")
	// "abcd " is two tokens to the scripted server.
	b.WriteString(strings.Repeat("match gamma:\ntext Found it. "+strings.Repeat("abcd ", answer/2)+"\n---\n", 3))
	b.WriteString("match start\ntext All done.\n")
	return b.String()
}

// TestParallelTasksHoldToTheBudget: three tasks started at once send
// their first requests together, and each response reports usage that
// would, all three together, pass the session's token budget. Every
// request reserves its prompt and its max_tokens before it is sent, so
// only two go at once, the third waits for them to settle, and then does
// not fit: what the session spends never passes its budget. The gate
// holds the children's requests until the third one either arrives (it
// did before reservations) or waits, so the three are in flight together
// however fast the server answers.
func TestParallelTasksHoldToTheBudget(t *testing.T) {
	const maxTokens, answer = 1000, 990
	reqs := unlimited(t, parallelScript(answer), func(a *agent.Agent) { a.MaxTokens = maxTokens })
	if len(reqs) != 5 {
		t.Fatalf("%d requests without a budget", len(reqs))
	}
	first, child := reqs[0].Usage, reqs[1].Usage
	if child.CompletionTokens < answer || child.CompletionTokens > maxTokens {
		t.Fatalf("a child's answer is %d tokens, want about %d", child.CompletionTokens, answer)
	}
	// Room for the parent's first request and two children's
	// reservations, not three; after two children's answers, not even
	// for the third's prompt.
	budget := first.PromptTokens + first.CompletionTokens + 2*(child.PromptTokens+maxTokens) + child.PromptTokens/2

	a, srv, log := newTaskAgent(t, parallelScript(answer))
	gate := agenttest.NewGate(srv, func(body string) bool { return strings.Contains(body, `"content":"gamma:`) })
	prov, err := openai.New(provider.Config{Name: "scripted", BaseURL: gate.Start(t), Model: "deepseek-flash"})
	if err != nil {
		t.Fatal(err)
	}
	a.Provider, a.MaxTokens, a.TokenBudget = prov, maxTokens, budget
	waits := make(chan struct{}, 3)
	a.Sink = func(e agent.Event) {
		log.add(e)
		if e.Kind == agent.EventNotice && strings.Contains(e.Text, "waits for requests in flight") {
			waits <- struct{}{}
		}
	}
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		res agent.TurnResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := a.Run(t.Context(), s, "start")
		done <- outcome{res, err}
	}()
	var out outcome
	for finished := false; !finished; {
		select {
		case n := <-gate.Arrived():
			if n == 3 {
				gate.Open()
			}
		case <-waits:
			gate.Open()
		case out = <-done:
			finished = true
		}
	}
	if !errors.Is(out.err, agent.ErrBudgetExceeded) || out.res.Stop != agent.StopBudget {
		t.Fatalf("err %v, stop %q; want the budget to stop the turn", out.err, out.res.Stop)
	}
	if n := gate.Held(); n > 2 {
		t.Errorf("%d children's requests in flight at once, want at most 2", n)
	}
	spent := 0
	for _, r := range srv.Requests() {
		if r.Usage != nil {
			spent += r.Usage.PromptTokens + r.Usage.CompletionTokens
		}
	}
	if used, _ := s.Usage(); spent > budget || used.Total() > budget {
		t.Errorf("%d tokens spent (%d counted) with a budget of %d", spent, used.Total(), budget)
	}
}

// unlimited runs script's turn "start" on a task agent that set adjusts,
// without a budget, to learn what its requests cost, and returns them.
func unlimited(t *testing.T, script string, set func(*agent.Agent)) []scripted.Request {
	t.Helper()
	a, srv, _ := newTaskAgent(t, script)
	set(a)
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(t.Context(), s, "start"); err != nil {
		t.Fatal(err)
	}
	return srv.Requests()
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
