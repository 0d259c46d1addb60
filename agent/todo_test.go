package agent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider"
)

// TestTodoWrite: each todo_write call replaces the session's list and
// tells the front ends with EventTodo; a malformed list is the model's
// to fix and leaves the list as it was; a resumed session has the list
// of the last call that ran.
func TestTodoWrite(t *testing.T) {
	const list = `{"todos":[{"content":"Read the code","status":"completed"},{"content":"Fix the bug","status":"in_progress","activeForm":"Fixing the bug"},{"content":"Run the tests","status":"pending"}]}`
	h := newHarness(t, []provider.Response{
		calls(tc("c1", TodoToolName, list)),
		calls(tc("c2", TodoToolName, `{"todos":[{"content":"Fix it","status":"doing"}]}`)),
		answer("done"),
	}, TodoTool())
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.a.Run(t.Context(), s, "fix the bug"); err != nil {
		t.Fatal(err)
	}
	want := []Todo{
		{Content: "Read the code", Status: TodoCompleted},
		{Content: "Fix the bug", Status: TodoInProgress, ActiveForm: "Fixing the bug"},
		{Content: "Run the tests", Status: TodoPending},
	}
	events := h.kinds(EventTodo)
	if len(events) != 1 || !reflect.DeepEqual(events[0].Todos, want) || events[0].SessionID != s.ID {
		t.Errorf("todo events %+v", events)
	}
	if got := s.Todos(); !reflect.DeepEqual(got, want) {
		t.Errorf("the session's list %+v", got)
	}
	results := map[string]string{}
	for _, m := range s.Messages() {
		if m.Role == provider.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	if results["c1"] != "The todo list is updated: 1 of 3 completed, 1 in progress." {
		t.Errorf("the first call's result: %q", results["c1"])
	}
	if !strings.Contains(results["c2"], `status must be pending, in_progress or completed, not "doing"`) {
		t.Errorf("the malformed call's result: %q", results["c2"])
	}
	b, _ := json.Marshal(events[0])
	if !strings.Contains(string(b), `"kind":"todo"`) || !strings.Contains(string(b), `"activeForm":"Fixing the bug"`) {
		t.Errorf("the event on the wire: %s", b)
	}

	r, err := h.a.Resume(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Todos(); !reflect.DeepEqual(got, want) {
		t.Errorf("the resumed session's list %+v", got)
	}
}

// TestParseTodos: what a todo_write call may hold.
func TestParseTodos(t *testing.T) {
	cases := []struct {
		args, err string
		n         int
	}{
		{`{"todos":[]}`, "", 0},
		{`{"todos":[{"content":"a","status":"pending"}]}`, "", 1},
		{`{}`, "todos is required", 0},
		{`{"todos":[{"content":" ","status":"pending"}]}`, "item 1 has no content", 0},
		{`{"todos":[{"content":"a","status":"pending","priority":"high"}]}`, "unknown field", 0},
		{`{"todos":[` + strings.Repeat(`{"content":"a","status":"pending"},`, maxTodos) + `{"content":"a","status":"pending"}]}`, "keep the list to 50", 0},
	}
	for _, c := range cases {
		list, err := parseTodos(json.RawMessage(c.args))
		switch {
		case c.err == "" && (err != nil || len(list) != c.n):
			t.Errorf("%s: %v, %v", c.args, list, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.args, err, c.err)
		}
	}
}
