package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// withPlanner gives a a planner on the model "planner-model" of the same
// scripted server.
func withPlanner(a *agent.Agent) {
	p := *a
	p.Model, p.ModelRef = "planner-model", "scripted/planner-model"
	a.Planner = &p
}

// plansAnswered approves plans by a list of answers: "" approves, any
// other text refuses with that feedback, "-" refuses without any.
type plansAnswered struct {
	answers []string
	shown   []string
}

func (p *plansAnswered) ApprovePlan(ctx context.Context, sessionID, plan string) (bool, string, error) {
	p.shown = append(p.shown, plan)
	a := p.answers[0]
	p.answers = p.answers[1:]
	if a == "-" {
		return false, "", nil
	}
	return a == "", a, nil
}

// TestPlannerHandsThePlanToTheExecutor runs a planner and an executor on
// two models: the planner works read-only in its own session, its plan
// reaches the executor's user message, and each session's requests are
// append-only byte for byte.
func TestPlannerHandsThePlanToTheExecutor(t *testing.T) {
	a, srv, log := newTaskAgent(t, `
expect request "model":"planner-model"
expect system Reasonix's planner
call read_file {"path": "main.go"}
---
expect request "model":"planner-model"
expect tool fmt.Println
text 1. In main.go, print helper2() instead.
---
expect request "model":"planner-model"
expect user Their feedback: also check util.go
call grep {"pattern": "func helper2", "path": "util.go"}
---
expect request "model":"planner-model"
text 1. In main.go, print helper2(), defined in util.go.
---
expect request "model":"deepseek-flash"
expect user <plan>
expect user The user approved it.
expect user print helper2(), defined in util.go.
call edit_file {"path": "main.go", "old_string": "helper1()", "new_string": "helper2()"}
---
expect request "model":"deepseek-flash"
text Done as planned.
`)
	withPlanner(a)
	plans := &plansAnswered{answers: []string{"also check util.go", ""}}
	a.Plans = plans
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), s, "make main print helper2")
	if err != nil || res.Text != "Done as planned." {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if len(plans.shown) != 2 {
		t.Fatalf("%d plans shown", len(plans.shown))
	}
	reqs := srv.Requests()
	var planner, executor []scripted.Request
	for _, r := range reqs {
		if r.Model == "planner-model" {
			planner = append(planner, r)
		} else {
			executor = append(executor, r)
		}
	}
	if len(planner) != 4 || len(executor) != 2 {
		t.Fatalf("%d planner and %d executor requests", len(planner), len(executor))
	}
	agenttest.Check(t, planner)
	agenttest.Check(t, executor)
	for _, tool := range planner[0].Tools {
		if tool == "edit_file" || tool == "bash" || tool == "task" {
			t.Errorf("the planner is offered %s", tool)
		}
	}
	if planner[0].Messages[0].Content == executor[0].Messages[0].Content {
		t.Error("the planner has the executor's system prompt")
	}
	// The executor's log holds no trace of the planner's work but the plan.
	for _, m := range s.Messages() {
		if m.Name == "grep" || strings.Contains(m.Content, "Revise the plan") {
			t.Errorf("the planner's work is in the executor's log: %q", m.Content)
		}
	}
	var nested int
	for _, e := range log.events {
		if e.Parent == "planner" && e.Kind == agent.EventToolResult {
			nested++
		}
	}
	if nested != 2 {
		t.Errorf("%d planner tool results in the events, want 2", nested)
	}
	// The plan's notice counts as the other notices do (13.6k tokens).
	heading := regexp.MustCompile(`^plan by scripted/planner-model \(2 model requests, \d+(\.\d)?k tokens\):\n\n1\. `)
	var notices int
	for _, e := range log.events {
		if e.Kind == agent.EventNotice && strings.HasPrefix(e.Text, "plan by") {
			notices++
			if !heading.MatchString(e.Text) {
				t.Errorf("plan notice %q", e.Text)
			}
		}
	}
	if notices != 2 {
		t.Errorf("%d plan notices, want 2", notices)
	}
}

// TestRefusedPlanEndsTheTurn: a plan refused without feedback ends the
// turn before the executor runs, and the session's log is untouched.
func TestRefusedPlanEndsTheTurn(t *testing.T) {
	a, srv, _ := newTaskAgent(t, `
expect request "model":"planner-model"
text 1. Delete everything.
`)
	withPlanner(a)
	a.Plans = &plansAnswered{answers: []string{"-"}}
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), s, "tidy up")
	if err != nil || !strings.Contains(res.Text, "not approved") {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want the planner's 1", n)
	}
	if n := len(s.Messages()); n != 1 {
		t.Errorf("the session's log has %d messages, want the system message alone", n)
	}
}

// TestPlannerMaxStepsIsHonoured: [agent] planner_max_steps = 2 stops the
// planner after its second model request, though the agent's own
// max_steps would allow more; a planner stopped without a plan leaves the
// executor to work without one, and says so.
func TestPlannerMaxStepsIsHonoured(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, srv := builtAgent(t, `
expect request "model":"planner-model"
call read_file {"path": "main.go"}
---
expect request "model":"planner-model"
expect tool func main
call grep {"pattern": "func", "path": "main.go"}
---
expect request "model":"deepseek-flash"
expect user tidy main.go
text Nothing to tidy.
`, `default_model = "scripted"
[agent]
max_steps = 10
planner_model = "scripted/planner-model"
planner_max_steps = 2
`, dir)
	var notices []string
	a.Sink = func(e agent.Event) {
		if e.Kind == agent.EventNotice {
			notices = append(notices, e.Text)
		}
	}
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), s, "tidy main.go")
	if err != nil || res.Text != "Nothing to tidy." {
		t.Fatalf("res %+v, err %v", res, err)
	}
	var planner int
	for _, r := range srv.Requests() {
		if r.Model == "planner-model" {
			planner++
		}
	}
	if planner != 2 {
		t.Errorf("%d planner requests, want planner_max_steps = 2", planner)
	}
	if !slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "gave no plan") }) {
		t.Errorf("no notice that the planner gave no plan: %q", notices)
	}
}
