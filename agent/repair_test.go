package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reasonix/reasonix/agent"
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
	a, _ := newScriptedAgent(t, script)
	a.NoRepair = off
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
	return res, r, a.Env.Root
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
