package builtin

import (
	"strings"
	"testing"
)

// TestCodeActionAndFormatArguments: what the model is told of arguments
// that cannot work, and of a graph that is turned off, before any server
// is asked. The servers' own answers are tested in graph and agent.
func TestCodeActionAndFormatArguments(t *testing.T) {
	env := testEnv(t, map[string]string{"calc.go": "package calc\n"})
	tests := []struct {
		tool string
		args string
		want string
	}{
		{"code_action", `{"path": "calc.go"}`, "path and line (from 1) are required"},
		{"code_action", `{"path": "calc.go", "line": 0}`, "path and line (from 1) are required"},
		{"code_action", `{"path": "calc.go", "line": 5, "end_line": 2}`, "end_line 2 is before line 5"},
		{"code_action", `{"path": "calc.go", "line": 1, "apply": 3}`, "invalid arguments"},
		{"code_action", `{"path": "calc.go", "line": 1, "title": "x"}`, `unknown field "title"`},
		{"code_action", `{"path": "calc.go", "line": 1}`, "the project graph is turned off"},
		{"format", `{}`, "path is required"},
		{"format", `{"path": "calc.go", "end_line": 3}`, "end_line needs line"},
		{"format", `{"path": "calc.go", "line": 4, "end_line": 3}`, "end_line 3 is before line 4"},
		{"format", `{"path": "calc.go"}`, "the project graph is turned off"},
	}
	for _, tt := range tests {
		res := call(t, env, tt.tool, tt.args)
		if !res.IsError || !strings.Contains(res.Content, tt.want) {
			t.Errorf("%s %s = %q, want an error saying %q", tt.tool, tt.args, res.Content, tt.want)
		}
	}
}
