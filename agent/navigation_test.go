package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonix/reasonix/graph"
)

// TestModelFindsCallerThroughGraph: a model asking project_graph for the
// incoming calls of Add learns, from the real gopls, that Twice calls it,
// and where.
func TestModelFindsCallerThroughGraph(t *testing.T) {
	requireGopls(t)
	const script = `call project_graph {"action": "incoming_calls", "symbol": "Add"}
---
expect tool "path":"calc/calc.go","line":7,
expect tool "caller":"Twice"
text Twice calls Add, at calc/calc.go:7.
`
	a, srv := newScriptedAgent(t, script)
	calc := "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int { return a + b }\n\n// Twice returns x doubled.\nfunc Twice(x int) int { return Add(x, x) }\n"
	dir := filepath.Join(a.Env.Root, "calc")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte(calc), 0o644); err != nil {
		t.Fatal(err)
	}
	g := graph.New(graph.Options{Root: a.Env.Root})
	t.Cleanup(func() { g.Close() })
	a.Env.Graph = g
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), s, "who calls Add?")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 2 || res.Text != "Twice calls Add, at calc/calc.go:7." {
		t.Errorf("%d requests, answer %q; want 2 and the script's answer", n, res.Text)
	}
}
