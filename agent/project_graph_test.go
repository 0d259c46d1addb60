package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
)

// fakeGraph records what the loop tells the project graph.
type fakeGraph struct {
	mu       sync.Mutex
	verified [][]string
	disk     int
	closed   int
}

func (f *fakeGraph) Query(context.Context, tools.GraphQuery) (string, error) { return "{}", nil }
func (f *fakeGraph) Rename(context.Context, string, int, int, string) ([]tools.Change, string, error) {
	return nil, "", nil
}
func (f *fakeGraph) Verify(_ context.Context, paths []string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.verified = append(f.verified, paths)
	return "\n\nDiagnostics after the edit:\n" + strings.Join(paths, ",") + ":1:1: error: broken"
}
func (f *fakeGraph) DiskChanged() { f.mu.Lock(); f.disk++; f.mu.Unlock() }
func (f *fakeGraph) Close() error { f.mu.Lock(); f.closed++; f.mu.Unlock(); return nil }

// changeTool is a writer that reports the file named in its arguments as
// changed, and records the files the turn had changed before it ran.
type changeTool struct {
	mu     sync.Mutex
	before [][]string
}

func (*changeTool) Name() string            { return "change" }
func (*changeTool) Description() string     { return "change" }
func (*changeTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (*changeTool) ReadOnly() bool          { return false }
func (c *changeTool) Execute(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Result, error) {
	var a struct{ Path string }
	json.Unmarshal(args, &a)
	c.mu.Lock()
	c.before = append(c.before, tools.ChangedIn(ctx))
	c.mu.Unlock()
	return tools.Result{Content: "changed " + a.Path, Changed: []string{a.Path}}, nil
}

func TestTheLoopKeepsTheGraphInformed(t *testing.T) {
	changer := &changeTool{}
	shell := &probeTool{name: "shell"}
	reader := &probeTool{name: "look", readOnly: true}
	h := newHarness(t, []provider.Response{
		calls(tc("1", "change", `{"path":"/w/a.go"}`)),
		calls(tc("2", "shell", `{}`)),
		calls(tc("3", "look", `{}`)),
		calls(tc("4", "change", `{"path":"/w/b.go"}`)),
		answer("done"),
	}, changer, shell, reader)
	fake := &fakeGraph{}
	h.a.Env.Graph = fake
	h.a.VerifyAfterEdit = true
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}

	if want := [][]string{{"/w/a.go"}, {"/w/b.go"}}; !slices.EqualFunc(fake.verified, want, slices.Equal) {
		t.Errorf("verified %v, want %v", fake.verified, want)
	}
	// The edit's result carries the diagnostics Verify found.
	msgs := h.prov.requests[1].Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "changed /w/a.go") || !strings.Contains(got, "/w/a.go:1:1: error: broken") {
		t.Errorf("edit result = %q", got)
	}
	// The turn's start and the shell command, which may change anything,
	// mark the disk; reads and edits that name their files do not.
	if fake.disk != 2 {
		t.Errorf("DiskChanged called %d times, want 2 (at the turn's start and after the shell command)", fake.disk)
	}
	// A tool sees the files the turn changed before it.
	if want := [][]string{{}, {"/w/a.go"}}; !slices.EqualFunc(changer.before, want, slices.Equal) {
		t.Errorf("changed files seen by tools: %v, want %v", changer.before, want)
	}
	// The agent does not own this graph: Close leaves it alone.
	h.a.Close()
	if fake.closed != 0 {
		t.Errorf("Close closed a graph the agent does not own")
	}
}

func TestVerifyAfterEditOff(t *testing.T) {
	h := newHarness(t, []provider.Response{
		calls(tc("1", "change", `{"path":"/w/a.go"}`)),
		answer("done"),
	}, &changeTool{})
	fake := &fakeGraph{}
	h.a.Env.Graph = fake
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	if len(fake.verified) != 0 {
		t.Errorf("Verify ran with verify_after_edit off: %v", fake.verified)
	}
}

func TestServicesShareAndReplace(t *testing.T) {
	var p Services
	var made []*fakeGraph
	mk := func() tools.ProjectGraph { n := &fakeGraph{}; made = append(made, n); return n }
	on := config.GraphConfig{}
	a := p.graph("/w", on, mk)
	if b := p.graph("/w", on, mk); b != a || len(made) != 1 {
		t.Fatalf("same root and settings: got a second graph")
	}
	other := p.graph("/v", on, mk)
	if other == a {
		t.Fatalf("another root shares a graph")
	}
	changed := config.GraphConfig{SettleMS: 10}
	if c := p.graph("/w", changed, mk); c == a {
		t.Fatalf("new settings kept the old graph")
	}
	if made[0].closed != 1 {
		t.Errorf("the replaced graph was not closed")
	}
	p.Close()
	if made[1].closed != 1 || made[2].closed != 1 {
		t.Errorf("Close left graphs open: %d %d", made[1].closed, made[2].closed)
	}
	if n := p.graph("/w", on, mk); n != nil {
		t.Errorf("a closed pool handed out a graph")
	}
}

// TestServicesBuildOutsideTheLock: a slow build for one root (MCP servers
// starting) holds up neither another root nor a second build for the same
// root, and of two builds for the same settings one is kept, the other
// closed.
func TestServicesBuildOutsideTheLock(t *testing.T) {
	var p Services
	on := config.GraphConfig{}
	release := make(chan struct{})
	started := make(chan *fakeGraph, 2)
	slow := func() tools.ProjectGraph {
		n := &fakeGraph{}
		started <- n
		<-release
		return n
	}
	got := make(chan tools.ProjectGraph, 2)
	for range 2 {
		go func() { got <- p.graph("/w", on, slow) }()
	}
	first, second := <-started, <-started // both builds under way at once

	// Meanwhile another root is served.
	quick := &fakeGraph{}
	if n := p.graph("/v", on, func() tools.ProjectGraph { return quick }); n != quick {
		t.Fatalf("/v: got %v", n)
	}

	close(release)
	a, b := <-got, <-got
	if a != b {
		t.Fatalf("two builds for the same root and settings handed out different graphs")
	}
	kept, dropped := first, second
	if a != tools.ProjectGraph(first) {
		kept, dropped = second, first
	}
	if kept.closed != 0 || dropped.closed != 1 {
		t.Errorf("closed: kept %d, dropped %d; want 0 and 1", kept.closed, dropped.closed)
	}
	p.Close()
	if kept.closed != 1 || quick.closed != 1 {
		t.Errorf("Close left graphs open")
	}
}
