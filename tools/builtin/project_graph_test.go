package builtin

import (
	"strings"
	"testing"
)

// TestProjectGraphNavigationArgs: the navigation actions take a symbol
// name or a position and reach the graph with it; without either they are
// refused before the graph is asked.
func TestProjectGraphNavigationArgs(t *testing.T) {
	env := testEnv(t, map[string]string{"a.go": "package a\n"})
	for _, action := range []string{"incoming_calls", "outgoing_calls", "implementations", "type_hierarchy", "hover"} {
		g := &queryGraph{}
		env.Graph = g
		if res := call(t, env, "project_graph", map[string]any{"action": action, "symbol": "Add"}); res.IsError || g.q.Action != action || g.q.Symbol != "Add" {
			t.Errorf("%s by name: %+v, query %+v", action, res, g.q)
		}
		if res := call(t, env, "project_graph", map[string]any{"action": action, "path": "a.go", "line": 1, "column": 9}); res.IsError || g.q.Path != env.Abs("a.go") || g.q.Line != 1 || g.q.Column != 9 {
			t.Errorf("%s at a position: %+v, query %+v", action, res, g.q)
		}
		g.q.Action = ""
		res := call(t, env, "project_graph", map[string]any{"action": action, "path": "a.go"})
		if !res.IsError || !strings.Contains(res.Content, action+" needs symbol, or path + line + column") || g.q.Action != "" {
			t.Errorf("%s with neither: %+v, query %+v", action, res, g.q)
		}
	}
	res := call(t, env, "project_graph", map[string]any{"action": "callers"})
	if !res.IsError || !strings.Contains(res.Content, "incoming_calls") {
		t.Errorf("unknown action: %+v", res)
	}
}
