package agent_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/tools/hooks"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// newTaskAgent is newScriptedAgent with the task and exit_plan_mode tools
// offered, recording its events with the time each arrived.
func newTaskAgent(tb testing.TB, script string) (*agent.Agent, *scripted.Server, *eventLog) {
	tb.Helper()
	a, srv := newScriptedAgent(tb, script)
	reg, err := a.Tools.With(agent.TaskTool(), agent.ExitPlanTool())
	if err != nil {
		tb.Fatal(err)
	}
	a.Tools = reg
	log := &eventLog{}
	a.Sink = log.add
	return a, srv, log
}

type eventLog struct {
	mu     sync.Mutex // guards the fields below
	events []agent.Event
	times  []time.Time
}

func (l *eventLog) add(e agent.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	l.times = append(l.times, time.Now())
}

// toolTime is when the tool event of kind for the call id arrived.
func (l *eventLog) toolTime(tb testing.TB, kind agent.EventKind, id string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, e := range l.events {
		if e.Kind == kind && e.Tool != nil && e.Tool.CallID == id && e.Parent == "" {
			return l.times[i]
		}
	}
	tb.Fatalf("no %s event for %s", kind, id)
	return time.Time{}
}

// conversations groups the requests by the conversation they belong to,
// told apart by their first user message.
func conversations(tb testing.TB, reqs []scripted.Request) map[string][]scripted.Request {
	out := map[string][]scripted.Request{}
	for _, r := range reqs {
		if len(r.Messages) < 2 {
			tb.Fatalf("request %d has no user message", r.Seq)
		}
		key := r.Messages[1].Content
		out[key] = append(out[key], r)
	}
	return out
}

// TestReadOnlyTasksRunInParallelWithLogsOfTheirOwn runs two read-only
// tasks from one step: they overlap in time, each child's requests are
// its own conversation and append-only, the parent's log holds only the
// calls and the reports, and the children's tool calls reach the events
// under their task's call id.
func TestReadOnlyTasksRunInParallelWithLogsOfTheirOwn(t *testing.T) {
	a, srv, log := newTaskAgent(t, `
match investigate
call task {"description": "main", "prompt": "alpha: what does main.go print?"}
call task {"description": "util", "prompt": "beta: how many helpers in util.go?"}
---
match alpha:
expect system sub-task
delay 20ms
call read_file {"path": "main.go"}
---
match beta:
expect system sub-task
delay 20ms
call grep {"pattern": "func helper", "path": "util.go"}
---
match alpha:
expect tool fmt.Println
delay 20ms
text main.go prints helper1().
---
match beta:
delay 20ms
text util.go has 40 helpers.
---
match investigate
expect tool main.go prints helper1().
expect tool util.go has 40 helpers.
expect tool [task done: 2 model requests, 1 tool call,
text Both answered.
`)
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), s, "investigate the project")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Both answered." || res.Steps != 2 || res.ToolCalls != 2 {
		t.Fatalf("result %+v", res)
	}

	reqs := srv.Requests()
	ids := []string{}
	msgs := s.Messages()
	for _, c := range msgs[2].ToolCalls {
		ids = append(ids, c.ID)
	}
	if len(ids) != 2 {
		t.Fatalf("parent's calls: %+v", msgs[2])
	}
	// Each task ran while the other did.
	a0, a1 := log.toolTime(t, agent.EventToolStart, ids[0]), log.toolTime(t, agent.EventToolResult, ids[0])
	b0, b1 := log.toolTime(t, agent.EventToolStart, ids[1]), log.toolTime(t, agent.EventToolResult, ids[1])
	if !b0.Before(a1) || !a0.Before(b1) {
		t.Errorf("tasks did not overlap: a %v–%v, b %v–%v", a0, a1, b0, b1)
	}

	// Three conversations, each append-only; the children's are their own.
	convs := conversations(t, reqs)
	if len(convs) != 3 {
		t.Fatalf("%d conversations, want 3", len(convs))
	}
	for name, rs := range convs {
		if len(rs) != 2 {
			t.Errorf("%q: %d requests, want 2", name, len(rs))
		}
		agenttest.Check(t, rs) // append-only, the same tools
		if strings.HasPrefix(name, "alpha") || strings.HasPrefix(name, "beta") {
			for _, tool := range rs[0].Tools {
				if tool == "task" || tool == "edit_file" || tool == "bash" || tool == "ask" {
					t.Errorf("%q: a read-only child is offered %s", name, tool)
				}
			}
			if rs[0].Messages[0].Content == convs["investigate the project"][0].Messages[0].Content {
				t.Errorf("%q: the child has the parent's system prompt", name)
			}
		}
	}

	// The parent's log: system, user, the calls, two reports, the answer.
	if len(msgs) != 6 {
		t.Fatalf("parent log has %d messages, want 6", len(msgs))
	}
	for _, m := range msgs {
		if m.Role == provider.RoleTool && m.Name != "task" {
			t.Errorf("a child's %s result is in the parent's log", m.Name)
		}
	}

	// The children's tool calls are events under their task call.
	nested := map[string]string{}
	for _, e := range log.events {
		if e.Parent != "" {
			if e.SessionID != s.ID {
				t.Errorf("child event with session %q", e.SessionID)
			}
			if e.Kind == agent.EventText || e.Kind == agent.EventUsage || e.Kind == agent.EventTurnDone {
				t.Errorf("child's %s event reached the sink", e.Kind)
			}
			if e.Kind == agent.EventToolResult {
				nested[e.Parent] = e.Tool.Name
			}
		}
		// The task's row speaks as the turn's accounting line does.
		if e.Kind == agent.EventToolResult && e.Tool.Name == "task" && e.Tool.Summary != "done: 2 requests, 1 tool call" {
			t.Errorf("task row summary %q", e.Tool.Summary)
		}
	}
	if nested[ids[0]] != "read_file" || nested[ids[1]] != "grep" {
		t.Errorf("nested tool results by task = %v", nested)
	}
}

// TestTaskLimitsStopTheChildCleanly stops a child at its step limit and
// at its token budget — after the response that passed it, or before a
// request that does not fit — the parent gets a report saying so and
// finishes its own turn.
func TestTaskLimitsStopTheChildCleanly(t *testing.T) {
	// The child's answer is long, so a budget can hold its prompt and
	// not its answer.
	words := strings.Repeat("lorem ", 400)
	script := func(args, expect string, sent bool) string {
		child := ""
		if sent {
			child = fmt.Sprintf("match gamma:\ntext Looking at main.go first. %s\ncall read_file {\"path\": \"main.go\"}\n---\n", words)
		}
		last := "expect tool Looking at main.go first.\n"
		if !sent {
			last = ""
		}
		return fmt.Sprintf("match start\ncall task %s\n---\n%smatch start\nexpect tool %s\n%stext The helper ran out.\n", args, child, expect, last)
	}
	look := `{"description": "d", "prompt": "gamma: look"}`
	for _, tc := range []struct {
		name   string
		limit  func(a *agent.Agent, childPrompt int)
		args   string
		expect string
		sent   bool // the child sends its first request
	}{
		{"task_max_steps", func(a *agent.Agent, _ int) { a.TaskMaxSteps = 1 }, look, "stopped after 1 model requests", true},
		{"max_steps argument", func(a *agent.Agent, _ int) { a.TaskMaxSteps = 10 }, `{"description": "d", "prompt": "gamma: look", "max_steps": 1}`, "stopped after 1 model requests", true},
		{"task_token_budget", func(a *agent.Agent, p int) { a.TaskTokenBudget = p + 200 }, look, "used up its token budget", true},
		{"task_token_budget below its prompt", func(a *agent.Agent, _ int) { a.TaskTokenBudget = 10 }, look, "used up its token budget (10 tokens)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The child's prompt, from a run without limits.
			childPrompt := unlimited(t, script(look, "Looking", true), func(*agent.Agent) {})[1].Usage.PromptTokens
			a, srv, _ := newTaskAgent(t, script(tc.args, tc.expect, tc.sent))
			tc.limit(a, childPrompt)
			s, err := a.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Run(t.Context(), s, "start")
			if err != nil || res.Text != "The helper ran out." {
				t.Fatalf("res %+v, err %v", res, err)
			}
			if n := srv.Remaining(); n != 0 {
				t.Errorf("%d script steps left", n)
			}
		})
	}
}

// TestTaskInPlanMode refuses a writer task in plan mode and runs a
// read-only one.
func TestTaskInPlanMode(t *testing.T) {
	a, _, log := newTaskAgent(t, `
match plan
call task {"description": "fix", "prompt": "delta: fix it", "read_only": false}
---
match plan
expect tool Plan mode: a task that may change files was not run
call task {"description": "look", "prompt": "epsilon: look"}
---
match epsilon:
text Nothing to fix.
---
match plan
expect tool Nothing to fix.
text Plan: nothing to do.
`)
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	s.SetPlanMode(true)
	if _, err := a.Run(t.Context(), s, "plan the fix"); err != nil {
		t.Fatal(err)
	}
	var denied, readOnly int
	for _, e := range log.events {
		if e.Kind == agent.EventToolResult && e.Tool.Name == "task" {
			if e.Tool.Denied {
				denied++
			}
			if e.Tool.ReadOnly {
				readOnly++
			}
		}
	}
	if denied != 1 || readOnly != 1 {
		t.Errorf("denied %d, read-only %d task results; want 1 and 1", denied, readOnly)
	}
}

// TestWriterTaskEdits lets a writer child edit a file under the parent's
// gate; the parent learns what changed.
func TestWriterTaskEdits(t *testing.T) {
	a, _, log := newTaskAgent(t, `
match rename
call task {"description": "edit", "prompt": "zeta: change marker 3", "read_only": false}
---
match zeta:
call edit_file {"path": "util.go", "old_string": "// marker 3\n", "new_string": "// marker three\n"}
---
match zeta:
expect tool util.go
text Changed util.go.
---
match rename
text Done.
`)
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(t.Context(), s, "rename the marker"); err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, e := range log.events {
		if e.Kind == agent.EventToolResult && e.Tool.Name == "task" {
			changed = e.Tool.Changed
			if e.Tool.ReadOnly {
				t.Error("a writer task reported as read-only")
			}
		}
	}
	if len(changed) != 1 || !strings.HasSuffix(changed[0], "util.go") {
		t.Errorf("task changed %v", changed)
	}
	b, err := a.Env.FS.ReadFile(a.Env.Root + "/util.go")
	if err != nil || !bytes.Contains(b, []byte("// marker three\n")) {
		t.Errorf("util.go not edited: %v", err)
	}
}

// BenchmarkTask measures what a task costs beyond the model's time: a
// parent request that calls task, the child's session and its one
// request, and the parent's request with the report. harness-ms/task
// excludes the time inside the provider.
func BenchmarkTask(b *testing.B) {
	var script strings.Builder
	for i := range b.N {
		if i > 0 {
			script.WriteString("---\n")
		}
		script.WriteString(`call task {"description": "d", "prompt": "look at main.go"}` + "\n---\ntext main.go is small.\n---\ntext done\n")
	}
	a, _, _ := newTaskAgent(b, script.String())
	a.Sink = nil
	tp := &timedProvider{Provider: a.Provider}
	a.Provider = tp
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		s, err := a.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Run(context.Background(), s, "delegate"); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	total := time.Since(start)
	b.ReportMetric(float64((total-tp.spent).Microseconds())/1000/float64(b.N), "harness-ms/task")
}

// TestTaskUsageCountsForTheSession checks that what children spend is the
// session's: the turn's and the session's usage are the sum of every
// request the server answered, the session file reads it back, and the
// session's token budget stops the parent once children used it up.
func TestTaskUsageCountsForTheSession(t *testing.T) {
	const script = `
match investigate
call task {"description": "main", "prompt": "alpha: what does main.go print?"}
call task {"description": "util", "prompt": "beta: how many helpers in util.go?"}
---
match alpha:
text main.go prints helper1().
---
match beta:
text util.go has 40 helpers.
---
match investigate
text Both answered.
`
	a, srv, _ := newTaskAgent(t, script)
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), s, "investigate the project")
	if err != nil {
		t.Fatal(err)
	}
	var want provider.Usage
	for _, r := range srv.Requests() {
		want.PromptTokens += r.Usage.PromptTokens
		want.CompletionTokens += r.Usage.CompletionTokens
	}
	if len(srv.Requests()) != 4 {
		t.Fatalf("%d requests, want 4", len(srv.Requests()))
	}
	used, _ := s.Usage()
	if res.Usage.Total() != want.Total() || used.Total() != want.Total() {
		t.Errorf("turn %d, session %d tokens; the server answered %d", res.Usage.Total(), used.Total(), want.Total())
	}
	s.Close()
	l, err := a.Store.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if l.Usage.Total() != want.Total() {
		t.Errorf("the session file holds %d tokens, want %d", l.Usage.Total(), want.Total())
	}
	// The children's requests are in the parent's step records, under
	// their task call and the parent's turn, and add up with the
	// parent's to what the session file holds.
	steps, err := a.Store.ReadSteps(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var recorded provider.Usage
	tasks := map[string]int{}
	for _, r := range steps {
		if r.Kind == agent.StepRequest && r.Usage != nil {
			recorded.Add(*r.Usage)
			tasks[r.Task]++
		}
		if r.Turn != 1 {
			t.Errorf("a record of turn %d: %+v", r.Turn, r)
		}
	}
	if recorded.Total() != want.Total() || len(tasks) != 3 || tasks[""] != 2 {
		t.Errorf("step records: %d tokens, requests by task %v", recorded.Total(), tasks)
	}

	// A budget the parent's first request fits in, used up by its
	// children: no further request is sent once the tasks report.
	budget := 0
	for _, r := range srv.Requests()[:3] {
		budget += r.Usage.PromptTokens + r.Usage.CompletionTokens
	}
	a, srv, _ = newTaskAgent(t, script)
	a.TokenBudget = budget
	s, err = a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err = a.Run(t.Context(), s, "investigate the project")
	if !errors.Is(err, agent.ErrBudgetExceeded) || res.Stop != agent.StopBudget {
		t.Fatalf("err %v, stop %q; want the budget to stop the turn", err, res.Stop)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (the parent's first and the two children's)", n)
	}
}

// TestWriterTaskShellStaysInTheParentsJail: a writer task's shell commands
// run under the parent's permissions and in its shell jail, built from
// the config as the commands build it: a command the rules deny is
// refused, and one that reads a [sandbox] forbid_read file through a
// script the rules cannot see into is stopped by the jail, while writing
// in the workspace works.
func TestWriterTaskShellStaysInTheParentsJail(t *testing.T) {
	if err := sandbox.Available(); err != nil {
		t.Skipf("no shell jail here: %v", err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	private, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(private, "secret", "key")
	if err := os.MkdirAll(filepath.Dir(secret), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "peek.sh"), []byte("cat "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, srv := builtAgent(t, `
match look around
call task {"description": "peek", "prompt": "gamma: run peek.sh, then fetch the page", "read_only": false}
---
match gamma:
call bash {"command": "sh peek.sh; echo inside > made.txt"}
---
match gamma:
expect tool Permission denied
call bash {"command": "curl -s http://127.0.0.1:1/"}
---
match gamma:
expect tool Permission denied: 
expect tool The call was not run.
text The key is out of reach and curl is denied.
---
match look around
expect tool The key is out of reach and curl is denied.
text Done.
`, fmt.Sprintf(`default_model = "scripted"
[permissions]
allow = ["Bash"]
deny = ["Bash(curl:*)"]
[sandbox]
forbid_read = [%q]
`, filepath.Dir(secret)), dir)
	log := &eventLog{}
	a.Sink = log.add
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), s, "look around")
	if err != nil || res.Text != "Done." {
		t.Fatalf("res %+v, err %v", res, err)
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r.Body, "hunter2") {
			t.Errorf("request %d holds the forbidden file's text", r.Seq)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "made.txt")); err != nil || string(b) != "inside\n" {
		t.Errorf("the child's write in the workspace: %q, %v", b, err)
	}
	var denied int
	for _, e := range log.events {
		if e.Kind == agent.EventToolResult && e.Parent != "" && e.Tool.Name == "bash" && e.Tool.Denied {
			denied++
		}
	}
	if denied != 1 {
		t.Errorf("%d of the child's bash calls denied, want the curl one", denied)
	}
}

// TestTaskRunsACustomAgent: a task naming an agent no file defines is a
// tool error listing those there are; one naming an agent of the
// workspace runs with its instructions and, the call being read-only,
// only the trusted readers among its tools; Claude Code's "sonnet",
// which no provider serves here, leaves it on the session's model, with
// a notice.
func TestTaskRunsACustomAgent(t *testing.T) {
	a, srv, log := newTaskAgent(t, `match check it
call task {"description": "critic", "prompt": "critic: look", "subagent_type": "critic"}
---
match check it
expect tool unknown subagent_type "critic": the agents are tester
call task {"description": "test", "prompt": "tester: run the tests", "subagent_type": "tester"}
---
match tester:
expect system Run go test and report failures.
text No failures.
---
match check it
expect tool No failures.
text Checked.
`)
	root := a.Env.Root
	if err := os.MkdirAll(filepath.Join(root, ".claude", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".claude", "agents", "tester.md"),
		[]byte("---\nname: tester\ndescription: Runs the tests\ntools: Bash, Read\nmodel: sonnet\n---\nRun go test and report failures.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.AgentDirs = agent.AgentDirs(root, t.TempDir(), "")
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), s, "check it")
	if err != nil || res.Text != "Checked." {
		t.Fatalf("%q, %v", res.Text, err)
	}
	var child []scripted.Request
	for _, r := range srv.Requests() {
		if strings.Contains(r.Messages[1].Content, "tester:") {
			child = append(child, r)
		}
	}
	if len(child) != 1 || strings.Join(child[0].Tools, ",") != "read_file" || child[0].Model != "deepseek-flash" {
		t.Fatalf("the helper's requests: %+v", child)
	}
	noted := false
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, e := range log.events {
		noted = noted || e.Kind == agent.EventNotice && strings.Contains(e.Text, `agent tester names the model "sonnet", which no configured provider serves`)
	}
	if !noted {
		t.Error("no notice of the model the agent names")
	}
}

// TestSubagentStopHook: a task's helper starts with its SubagentStart
// hooks' context in its prompt, and one that stops runs the SubagentStop
// hooks, not the Stop hooks, which are the user's turn's; one that
// blocks sends the helper back with its reason, and the parent gets the
// helper's last answer.
func TestSubagentStopHook(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hooks of this test are sh scripts")
	}
	a, _, _ := newTaskAgent(t, `match check it
call task {"description": "look", "prompt": "helper: look around"}
---
match helper:
expect user Context from the user's hooks:
expect user the branch is main
text Looked.
---
match The user's SubagentStop hook asks you to go on: say more
text Looked harder.
---
match check it
expect tool Looked harder.
text Checked.
`)
	root := a.Env.Root
	a.Hooks = &hooks.Runner{Dir: root, Hooks: []hooks.Hook{
		{Event: hooks.SubagentStop, Matcher: "general-purpose", Command: `in=$(cat); echo "$in" >> sub.jsonl; case "$in" in *stop_hook_active*) exit 0;; esac; echo 'say more' >&2; exit 2`},
		{Event: hooks.Stop, Command: `cat >> stop.jsonl`},
		{Event: hooks.SubagentStart, Matcher: "general-purpose", Command: `cat > start.json; echo 'the branch is main'`},
	}}
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if res, err := a.Run(context.Background(), s, "check it"); err != nil || res.Text != "Checked." {
		t.Fatalf("%q, %v", res.Text, err)
	}
	sub, _ := os.ReadFile(filepath.Join(root, "sub.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(sub)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"hook_event_name":"SubagentStop"`) || !strings.Contains(lines[0], `"agent_type":"general-purpose"`) ||
		!strings.Contains(lines[0], `"last_assistant_message":"Looked."`) || !strings.Contains(lines[1], `"stop_hook_active":true`) {
		t.Errorf("the SubagentStop hook read %q", lines)
	}
	start, _ := os.ReadFile(filepath.Join(root, "start.json"))
	if !strings.Contains(string(start), `"hook_event_name":"SubagentStart"`) || !strings.Contains(string(start), `"agent_type":"general-purpose"`) || !strings.Contains(string(start), `"agent_id":"`) {
		t.Errorf("the SubagentStart hook read %s", start)
	}
	stop, _ := os.ReadFile(filepath.Join(root, "stop.jsonl"))
	if lines := strings.Split(strings.TrimSpace(string(stop)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"last_assistant_message":"Checked."`) {
		t.Errorf("the Stop hook read %q; want the parent's stop only", lines)
	}
}
