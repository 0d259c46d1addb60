package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/tools"
)

// repairs records the repair events of a run.
type repairs struct {
	mu     sync.Mutex // guards events
	events []agent.Event
}

func (r *repairs) add(e agent.Event) {
	if e.Kind == agent.EventRepair {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
	}
}

// passes lists the passes that fired, in order.
func (r *repairs) passes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Repair)
	}
	return out
}

// runRepair runs one turn of script with the repair passes on unless off,
// and returns the answer, the repairs and the workspace.
func runRepair(t *testing.T, script string, off bool) (agent.TurnResult, *repairs, string) {
	t.Helper()
	res, r, root, _ := runRepairOn(t, script, func(a *agent.Agent) { a.NoRepair = off })
	return res, r, root
}

// runRepairOn is runRepair with the agent set up by setup, if not nil;
// it also returns the requests the model got.
func runRepairOn(t *testing.T, script string, setup func(*agent.Agent)) (agent.TurnResult, *repairs, string, []scripted.Request) {
	t.Helper()
	a, srv := newScriptedAgent(t, script)
	if setup != nil {
		setup(a)
	}
	r := &repairs{}
	a.Sink = r.add
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), s, "go")
	if err != nil {
		t.Fatal(err)
	}
	return res, r, a.Env.Root, srv.Requests()
}

func readLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestStormSuppressesRepeats: four identical commands in a row run once;
// the model reads why the others did not.
func TestStormSuppressesRepeats(t *testing.T) {
	const storm = `call bash {"command": "echo storm >> storm.txt"}
---
call bash {"command":"echo storm >> storm.txt"}
---
call bash {"command": "echo storm >> storm.txt"}
expect tool already called bash with these arguments 1 call ago
---
call bash {"command": "echo storm >> storm.txt"}
---
text done
expect tool 3 calls ago
`
	res, r, root := runRepair(t, storm, false)
	if res.Text != "done" {
		t.Fatalf("answer %q", res.Text)
	}
	if n := readLines(t, filepath.Join(root, "storm.txt")); n != 1 {
		t.Errorf("the command ran %d times, want 1", n)
	}
	if got := strings.Join(r.passes(), ","); got != "storm,storm,storm" {
		t.Errorf("repairs %q", got)
	}

	// Off, every call runs (the script's expectations are the repairs',
	// so leave them out).
	var plain []string
	for _, l := range strings.Split(storm, "\n") {
		if !strings.HasPrefix(l, "expect") {
			plain = append(plain, l)
		}
	}
	_, r, root = runRepair(t, strings.Join(plain, "\n"), true)
	if n := readLines(t, filepath.Join(root, "storm.txt")); n != 4 || len(r.passes()) != 0 {
		t.Errorf("with repair off: %d runs, repairs %v", n, r.passes())
	}
}

// TestStormAfterAChange: a read repeated after a write runs again (the
// file may have changed); reads repeated with no change between, in one
// response, do not.
func TestStormAfterAChange(t *testing.T) {
	const script = `call read_file {"path": "main.go"}
---
call edit_file {"path": "main.go", "old_string": "helper1()", "new_string": "helper2()"}
---
call read_file {"path": "main.go"}
---
call read_file {"path": "main.go"}
call read_file {"path":"main.go"}
expect tool helper2()
---
text done
expect tool already called read_file
`
	_, r, _ := runRepair(t, script, false)
	if got := strings.Join(r.passes(), ","); got != "storm,storm" {
		t.Errorf("repairs %q", got)
	}
}

// TestScavenge: a call written in the answer or the reasoning instead of
// tool_calls runs, and the next request replays it as a proper call.
func TestScavenge(t *testing.T) {
	tests := []struct {
		name, step, answer string
		off                bool // nothing to recover: the step is the answer
	}{
		{name: "tool_call element", step: `text <tool_call>{"name": "bash", "arguments": {"command": "echo found"}}</tool_call>`},
		{name: "arguments as a string", step: `text I will run it. <tool_call>{"name": "bash", "arguments": "{\"command\": \"echo found\"}"}</tool_call>`},
		{name: "function element", step: "text Let me look.\ntext <function=bash>{\"command\": \"echo found\"}</function>"},
		{name: "json fence", step: "text ```json\ntext {\"name\": \"bash\", \"arguments\": {\"command\": \"echo found\"}}\ntext ```"},
		{name: "bare object in the reasoning", step: "reasoning I should call {\"name\": \"bash\", \"arguments\": {\"command\": \"echo found\"}} now\ntext Running the command."},
		{name: "a tool not offered", step: `text <tool_call>{"name": "launch", "arguments": {}}</tool_call>`,
			answer: `<tool_call>{"name": "launch", "arguments": {}}</tool_call>`, off: true},
		{name: "arguments that do not parse", step: `text <function=bash>{"command": </function>`,
			answer: `<function=bash>{"command": </function>`, off: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := tt.step + "\n---\n" + `expect tool found
expect request "tool_calls"
text done
`
			if tt.off {
				script = tt.step + "\n"
			}
			res, r, _, reqs := runRepairOn(t, script, nil)
			want, passes := "done", "scavenge"
			if tt.off {
				want, passes = tt.answer, ""
			}
			if res.Text != want || strings.Join(r.passes(), ",") != passes {
				t.Fatalf("answer %q, repairs %v", res.Text, r.passes())
			}
			if tt.off {
				return
			}
			// The replayed answer keeps the prose, not the markup.
			replayed := reqs[1].Messages[len(reqs[1].Messages)-2]
			if len(replayed.ToolCalls) != 1 || strings.ContainsAny(replayed.Content, "<{`") {
				t.Errorf("replayed %+v", replayed)
			}
		})
	}
}

// TestScavengeOff: with repair off the markup is the answer, as before.
func TestScavengeOff(t *testing.T) {
	const step = `text <tool_call>{"name": "bash", "arguments": {"command": "echo found"}}</tool_call>`
	res, r, _ := runRepair(t, step+"\n", true)
	if res.Text != strings.TrimPrefix(step, "text ") || len(r.passes()) != 0 {
		t.Fatalf("answer %q, repairs %v", res.Text, r.passes())
	}
}

// TestScavengeBounded: a model that only ever writes its calls as text
// still ends its turn.
func TestScavengeBounded(t *testing.T) {
	var b strings.Builder
	for i := range 5 {
		fmt.Fprintf(&b, "text <tool_call>{\"name\": \"bash\", \"arguments\": {\"command\": \"echo %d\"}}</tool_call>\n---\n", i)
	}
	res, r, _ := runRepair(t, strings.TrimSuffix(b.String(), "---\n"), false)
	if len(r.passes()) != 4 || !strings.Contains(res.Text, "echo 4") {
		t.Fatalf("answer %q, repairs %v", res.Text, r.passes())
	}
}

// TestTruncation: arguments the output limit cut off are closed when
// nothing was lost, and otherwise sent back to the model to retry in
// smaller pieces instead of as "not valid JSON".
func TestTruncation(t *testing.T) {
	const closable = `call-raw write_file {"path": "a.txt", "content": "hello\n"
finish length
---
expect tool a.txt
text done
`
	res, r, root := runRepair(t, closable, false)
	if b, err := os.ReadFile(filepath.Join(root, "a.txt")); err != nil || string(b) != "hello\n" || res.Text != "done" {
		t.Fatalf("a.txt %q (%v), answer %q", b, err, res.Text)
	}
	if got := strings.Join(r.passes(), ","); got != "truncation" {
		t.Errorf("repairs %q", got)
	}

	const cut = `call-raw write_file {"path": "big.txt", "content": "part one, part tw
finish length
---
expect tool cut off at your output limit
expect tool smaller pieces
text done
`
	res, r, root = runRepair(t, cut, false)
	if _, err := os.Stat(filepath.Join(root, "big.txt")); err == nil || res.Text != "done" {
		t.Fatalf("big.txt written (%v), answer %q", err, res.Text)
	}
	if got := strings.Join(r.passes(), ","); got != "truncation" {
		t.Errorf("repairs %q", got)
	}

	// Off: the old answer, not valid JSON.
	_, r, _ = runRepair(t, strings.Replace(closable, "expect tool a.txt", "expect tool not valid JSON", 1), true)
	if len(r.passes()) != 0 {
		t.Errorf("repairs %v with repair off", r.passes())
	}
}

// deepTool is a tool with a schema three levels deep, as MCP servers
// offer; it answers with the arguments it got.
type deepTool struct{}

func (deepTool) Name() string        { return "mcp__cloud__deploy" }
func (deepTool) Description() string { return "Deploys." }
func (deepTool) ReadOnly() bool      { return true }
func (deepTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type": "object", "properties": {
		"name": {"type": "string"},
		"config": {"type": "object", "properties": {
			"retry": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
		}, "required": ["retry"]}
	}, "required": ["name", "config"]}`)
}
func (deepTool) Execute(_ context.Context, _ *tools.Env, args json.RawMessage) (tools.Result, error) {
	return tools.Result{Content: "got " + string(args)}, nil
}

// TestFlatten: the model sees a deep schema in dot-notation, and the tool
// gets its arguments nested as its schema says.
func TestFlatten(t *testing.T) {
	const script = `expect request "config.retry.count":{"type":"integer"}
call mcp__cloud__deploy {"name": "web", "config.retry.count": 3}
---
expect tool got {"config":{"retry":{"count":3}},"name":"web"}
text done
`
	reg, err := tools.NewRegistry(deepTool{})
	if err != nil {
		t.Fatal(err)
	}
	res, r, _, _ := runRepairOn(t, script, func(a *agent.Agent) { a.Tools = reg })
	if res.Text != "done" {
		t.Fatalf("answer %q", res.Text)
	}
	if got := strings.Join(r.passes(), ","); got != "flatten" {
		t.Errorf("repairs %q", got)
	}
}
