package agent_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/graph"
	"github.com/reasonix/reasonix/tools"
)

// calcGo compiles but for one error the user already had: the check
// must not lay it at the turn's door.
const calcGo = `package calc

// Add adds.
func Add(a, b int) int {
	return a + b
}

var broken int = "already broken"
`

// recorder keeps a run's events.
type recorder struct {
	mu     sync.Mutex // guards events
	events []agent.Event
}

func (r *recorder) add(e agent.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) of(kind agent.EventKind) []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.Event
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// requireGopls skips the test when gopls is missing, or fails it when
// REASONIX_REQUIRE_PEERS=1.
func requireGopls(t *testing.T) {
	t.Helper()
	if _, err := graph.LookPath("gopls"); err != nil {
		if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
			t.Fatalf("%v; REASONIX_REQUIRE_PEERS=1 requires it", err)
		}
		t.Skip(err)
	}
}

// runChecked runs one turn of script over a Go module holding calc.go,
// with the check of edits on and the real gopls as the project graph.
func runChecked(t *testing.T, script string) (agent.TurnResult, *recorder, string, []scripted.Request) {
	t.Helper()
	return runCheckedWith(t, script, nil)
}

// runCheckedWith is runChecked with the agent set up by setup, if not nil.
func runCheckedWith(t *testing.T, script string, setup func(*agent.Agent)) (agent.TurnResult, *recorder, string, []scripted.Request) {
	t.Helper()
	a, srv := newScriptedAgent(t, script)
	root := a.Env.Root
	for name, body := range map[string]string{"go.mod": "module example.com/calc\n\ngo 1.21\n", "calc.go": calcGo, "old.txt": "old\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"main.go", "util.go"} {
		os.Remove(filepath.Join(root, name)) // another package: not this test's
	}
	a.CheckEdits = true
	a.CheckTimeout = 2 * time.Minute // a cold gopls on a busy machine
	if setup != nil {
		setup(a)
	}
	if a.Env.Graph == nil {
		requireGopls(t)
		g := graph.New(graph.Options{Root: root})
		t.Cleanup(func() { g.Close() })
		a.Env.Graph = g
	}
	r := &recorder{}
	a.Sink = r.add
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), s, "go")
	if err != nil {
		t.Fatal(err)
	}
	return res, r, root, srv.Requests()
}

// TestCheckRepairsNewError: an edit that breaks the build is diagnosed
// before the turn ends; the model's next request carries the error, its
// fix ends the turn clean, and the error that was there before the turn
// is not counted.
func TestCheckRepairsNewError(t *testing.T) {
	const script = `call edit_file {"path": "calc.go", "old_string": "return a + b", "new_string": "return a + c"}
---
text done
---
expect user Your changes introduced a new error
expect user calc.go:5:13: undefined: c
call edit_file {"path": "calc.go", "old_string": "return a + c", "new_string": "return a + b"}
---
text fixed
`
	res, r, _, reqs := runChecked(t, script)
	if res.Text != "fixed" || len(res.NewErrors) != 0 {
		t.Fatalf("answer %q, new errors %v; want the repaired answer and none", res.Text, res.NewErrors)
	}
	if len(reqs) != 4 {
		t.Errorf("%d model requests, want 4", len(reqs))
	}
	if last := reqs[2].Body; strings.Contains(last, "already broken") && strings.Contains(last, "cannot use") {
		t.Error("the repair message lists the error that was there before the turn")
	}
	checks := r.of(agent.EventCheck)
	if len(checks) != 2 || len(checks[0].Check) != 1 || checks[0].Check[0].Message != "undefined: c" {
		t.Errorf("check events %+v", checks)
	}
	if len(res.Changes) != 0 {
		t.Errorf("changes %+v; the file is back as it was", res.Changes)
	}
}

// TestCheckReportsRemainingError: a repair that does not fix the error
// ends the turn with it reported.
func TestCheckReportsRemainingError(t *testing.T) {
	const script = `call edit_file {"path": "calc.go", "old_string": "return a + b", "new_string": "return a + c"}
---
text done
---
expect user undefined: c
text I could not fix it
`
	res, _, _, _ := runChecked(t, script)
	if len(res.NewErrors) != 1 || res.NewErrors[0].String() != "calc.go:5:13: undefined: c" {
		t.Fatalf("new errors %v", res.NewErrors)
	}
	if got := agent.NewErrorsSummary(res.NewErrors); got != "1 new error in calc.go" {
		t.Errorf("summary %q", got)
	}
	if len(res.Changes) != 1 || res.Changes[0].Path != "calc.go" || res.Changes[0].Status != agent.FileModified ||
		!strings.Contains(string(res.Changes[0].After), "a + c") || string(res.Changes[0].BeforeData) != calcGo {
		t.Errorf("changes %+v", res.Changes)
	}
}

// TestCheckRepairRoundIsBounded: a repair round that uses its requests
// up while the model still calls tools ends the turn with the first
// answer and the errors that remain, and leaves a log the next request
// can send.
func TestCheckRepairRoundIsBounded(t *testing.T) {
	const script = `call edit_file {"path": "calc.go", "old_string": "return a + b", "new_string": "return a + c"}
---
text done
---
expect user undefined: c
call read_file {"path": "calc.go"}
`
	res, _, _, reqs := runCheckedWith(t, script, func(a *agent.Agent) { a.CheckRepairSteps = 1 })
	if res.Text != "done" || res.Stop != agent.StopDone || len(res.NewErrors) != 1 {
		t.Fatalf("answer %q, stop %s, new errors %v", res.Text, res.Stop, res.NewErrors)
	}
	if len(reqs) != 3 {
		t.Errorf("%d model requests, want 3: the repair round had one", len(reqs))
	}
}

// heldFS holds the agent's writes in memory, as an FS that keeps edits
// for review does: the disk never sees them.
type heldFS struct {
	tools.DiskFS
	mu   sync.Mutex // guards held
	held map[string][]byte
}

func (h *heldFS) ReadFile(name string) ([]byte, error) {
	h.mu.Lock()
	data, ok := h.held[name]
	h.mu.Unlock()
	if ok {
		return data, nil
	}
	return h.DiskFS.ReadFile(name)
}

func (h *heldFS) Apply(_ context.Context, changes []tools.Change) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range changes {
		if c.Kind != tools.Write {
			return fmt.Errorf("heldFS holds writes only, not %v", c.Kind)
		}
		h.held[c.Path] = c.Content
	}
	return nil
}

// TestCheckSeesTheAgentsView: edits held out of the disk are what the
// check diagnoses, and what the turn's changes show.
func TestCheckSeesTheAgentsView(t *testing.T) {
	const script = `call edit_file {"path": "calc.go", "old_string": "return a + b", "new_string": "return a + c"}
---
text done
---
expect user calc.go:5:13: undefined: c
call edit_file {"path": "calc.go", "old_string": "return a + c", "new_string": "return a * b"}
---
text fixed
`
	res, _, root, _ := runCheckedWith(t, script, func(a *agent.Agent) {
		a.Env.FS = &heldFS{held: map[string][]byte{}}
	})
	if res.Text != "fixed" || len(res.NewErrors) != 0 {
		t.Fatalf("answer %q, new errors %v", res.Text, res.NewErrors)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(disk) != calcGo {
		t.Errorf("the disk changed:\n%s", disk)
	}
	if len(res.Changes) != 1 || !strings.Contains(string(res.Changes[0].After), "return a * b") {
		t.Errorf("changes %+v", res.Changes)
	}
}

// TestCheckSkipsMissingServer: without its language server the check is
// skipped, silently for the model, and the turn ends as it would have.
func TestCheckSkipsMissingServer(t *testing.T) {
	const script = `call edit_file {"path": "calc.go", "old_string": "return a + b", "new_string": "return a + c"}
---
text done
`
	res, r, _, reqs := runCheckedWith(t, script, func(a *agent.Agent) {
		g := graph.New(graph.Options{Root: a.Env.Root, Servers: []graph.ServerSpec{
			{Name: "gopls", Command: []string{filepath.Join(t.TempDir(), "no-such-gopls")}},
		}})
		t.Cleanup(func() { g.Close() })
		a.Env.Graph = g
	})
	if res.Text != "done" || len(res.NewErrors) != 0 || len(reqs) != 2 || len(r.of(agent.EventCheck)) != 0 {
		t.Errorf("answer %q, new errors %v, %d requests, check events %v", res.Text, res.NewErrors, len(reqs), r.of(agent.EventCheck))
	}
	if len(res.Changes) != 1 || res.Changes[0].Source != agent.SourceTool {
		t.Errorf("changes %+v", res.Changes)
	}
}

// TestCheckSkipsSilentServer: a language server that never answers holds
// the turn up only until the check's bound.
func TestCheckSkipsSilentServer(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip(err)
	}
	const script = `call edit_file {"path": "calc.go", "old_string": "return a + b", "new_string": "return a + c"}
---
text done
`
	res, r, _, _ := runCheckedWith(t, script, func(a *agent.Agent) {
		g := graph.New(graph.Options{Root: a.Env.Root, Servers: []graph.ServerSpec{
			{Name: "gopls", Command: []string{sleep, "600"}},
		}})
		t.Cleanup(func() { g.Close() })
		a.Env.Graph = g
		a.CheckTimeout = time.Second
	})
	if res.Text != "done" || len(res.NewErrors) != 0 || len(r.of(agent.EventCheck)) != 0 {
		t.Errorf("answer %q, new errors %v, check events %v", res.Text, res.NewErrors, r.of(agent.EventCheck))
	}
}

// TestShellChangesAreReportedAndChecked: files a shell command creates,
// changes and deletes are reported as the turn's, with their text
// before; the error the command brought in is caught by the check.
func TestShellChangesAreReportedAndChecked(t *testing.T) {
	const script = `call bash {"command": "sed -i 's/a + b/a + y/' calc.go && echo note > notes.txt && rm old.txt"}
---
text done
---
expect user undefined: y
call bash {"command": "sed -i 's/a + y/a + b/' calc.go"}
---
text fixed
`
	res, r, _, _ := runChecked(t, script)
	if res.Text != "fixed" || len(res.NewErrors) != 0 {
		t.Fatalf("answer %q, new errors %v", res.Text, res.NewErrors)
	}
	byPath := map[string]*agent.FileChange{}
	for _, e := range r.of(agent.EventFileChanged) {
		if e.File.Source != agent.SourceShell {
			t.Errorf("event from %s, want shell: %+v", e.File.Source, e.File)
		}
		if _, ok := byPath[e.File.Path]; !ok {
			byPath[e.File.Path] = e.File
		}
	}
	calc := byPath["calc.go"]
	if calc == nil || calc.Status != agent.FileModified || calc.Before == nil || *calc.Before != calcGo {
		t.Errorf("calc.go change %+v", calc)
	}
	if n := byPath["notes.txt"]; n == nil || n.Status != agent.FileCreated || n.Before != nil {
		t.Errorf("notes.txt change %+v", n)
	}
	if o := byPath["old.txt"]; o == nil || o.Status != agent.FileDeleted || o.Before == nil || *o.Before != "old\n" {
		t.Errorf("old.txt change %+v", o)
	}
	// The turn's result keeps notes.txt (created) but not calc.go,
	// which the repair put back.
	var got []string
	for _, c := range res.Changes {
		got = append(got, c.Path+" "+string(c.Status)+" "+string(c.Source))
	}
	if strings.Join(got, ";") != "notes.txt created shell;old.txt deleted shell" {
		t.Errorf("turn changes %q", got)
	}
}

// TestShellChangeBeforeIsRedacted: the text before of a changed file is
// redacted in events as every other text is.
func TestShellChangeBeforeIsRedacted(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	a, _ := newScriptedAgent(t, `call bash {"command": "echo more >> env.txt"}
---
text done
`)
	a.Secrets = []agent.Secret{{Name: "DEEPSEEK_API_KEY", Value: key}}
	if err := os.WriteFile(filepath.Join(a.Env.Root, "env.txt"), []byte("KEY="+key+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	a.Sink = r.add
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	changed := r.of(agent.EventFileChanged)
	if len(changed) != 1 || changed[0].File.Before == nil || *changed[0].File.Before != "KEY=[redacted DEEPSEEK_API_KEY]\n" {
		t.Fatalf("file_changed events %+v", changed)
	}
}
