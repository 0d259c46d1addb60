package agent

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
)

// The todo list: the model keeps a list of the task's steps with the
// todo_write tool, in Claude Code's TodoWrite shape, and every front end
// shows it as the turn goes on (EventTodo). Each call writes the whole
// list, so the list is the last call's: it lives in the session (and,
// for a resumed session, is read back from the last call in its log).
// The tool is always offered, so the tool schemas (part of the cached
// prefix) stay as they are whether a task uses it or not.

// TodoToolName is the todo tool's name.
const TodoToolName = "todo_write"

//go:embed todo_write.md
var todoDescription string

// TodoStatus is where an item of the todo list stands.
type TodoStatus string

const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoCompleted  TodoStatus = "completed"
)

// Todo is one item of the todo list.
type Todo struct {
	Content string     `json:"content"`
	Status  TodoStatus `json:"status"`
	// ActiveForm is the item as it runs ("Running the tests").
	ActiveForm string `json:"activeForm,omitempty"`
}

// maxTodos bounds the list: it is shown whole on every change.
const maxTodos = 50

// todoTool is the todo_write tool. It is a turnTool: the list is the
// session's.
type todoTool struct{}

var (
	_ turnTool        = todoTool{}
	_ tools.Exclusive = todoTool{}
)

func (todoTool) Name() string        { return TodoToolName }
func (todoTool) Description() string { return todoDescription }

// ReadOnly is true: the list is the session's own and changes nothing
// outside the process, so no permission is asked for it.
func (todoTool) ReadOnly() bool { return true }

// Exclusive: two calls of one step running at once would race for which
// list is the last.
func (todoTool) Exclusive() bool { return true }

func (todoTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{` +
		`"content":{"type":"string"},"status":{"type":"string","enum":["pending","in_progress","completed"]},"activeForm":{"type":"string"}},` +
		`"required":["content","status"],"additionalProperties":false}}},"required":["todos"],"additionalProperties":false}`)
}

// gated is false: a todo list is not something to permit.
func (todoTool) gated() bool { return false }

// Execute replaces the session's list and tells the front ends.
func (todoTool) Execute(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Result, error) {
	k, ok := toolCallOf(ctx)
	if !ok {
		return tools.Result{}, errors.New("todo_write runs only in an agent's turn")
	}
	list, err := parseTodos(args)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	k.t.s.setTodos(list)
	k.t.event(Event{Kind: EventTodo, Todos: list})
	summary := todoSummary(list)
	return tools.Result{Content: "The todo list is updated: " + summary + ".", Summary: summary}, nil
}

// parseTodos reads a todo_write call's arguments; the error is worded
// for the model.
func parseTodos(args json.RawMessage) ([]Todo, error) {
	var a struct {
		Todos []Todo `json:"todos"`
	}
	if err := tools.DecodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.Todos == nil {
		return nil, errors.New("todos is required (an empty array clears the list)")
	}
	if len(a.Todos) > maxTodos {
		return nil, fmt.Errorf("%d items: keep the list to %d, the steps that matter", len(a.Todos), maxTodos)
	}
	for i, t := range a.Todos {
		if strings.TrimSpace(t.Content) == "" {
			return nil, fmt.Errorf("item %d has no content", i+1)
		}
		if !slices.Contains([]TodoStatus{TodoPending, TodoInProgress, TodoCompleted}, t.Status) {
			return nil, fmt.Errorf("item %d: status must be pending, in_progress or completed, not %q", i+1, t.Status)
		}
	}
	return a.Todos, nil
}

// todoSummary counts a list: "2 of 5 completed, 1 in progress".
func todoSummary(list []Todo) string {
	if len(list) == 0 {
		return "empty"
	}
	done, running := 0, 0
	for _, t := range list {
		switch t.Status {
		case TodoCompleted:
			done++
		case TodoInProgress:
			running++
		}
	}
	s := fmt.Sprintf("%d of %d completed", done, len(list))
	if running > 0 {
		s += fmt.Sprintf(", %d in progress", running)
	}
	return s
}

// TodoInHand is the item of list in progress, in its active form; ok is
// false when none is.
func TodoInHand(list []Todo) (text string, ok bool) {
	for _, t := range list {
		if t.Status == TodoInProgress {
			return cmp.Or(t.ActiveForm, t.Content), true
		}
	}
	return "", false
}

// Todos returns the session's todo list: the last one todo_write wrote.
func (s *Session) Todos() []Todo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.todos)
}

func (s *Session) setTodos(list []Todo) {
	s.mu.Lock()
	s.todos = slices.Clone(list)
	s.mu.Unlock()
}

// lastTodos finds the list of the last todo_write call in msgs that ran
// (its result is no error), for a resumed session.
func lastTodos(msgs []provider.Message) []Todo {
	failed := map[string]bool{}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role == provider.RoleTool && m.Name == TodoToolName && strings.HasPrefix(m.Content, "Error: ") {
			failed[m.ToolCallID] = true
		}
		for j := len(m.ToolCalls) - 1; j >= 0; j-- {
			c := m.ToolCalls[j]
			if c.Name != TodoToolName || failed[c.ID] {
				continue
			}
			if list, err := parseTodos(json.RawMessage(c.Arguments)); err == nil {
				return list
			}
		}
	}
	return nil
}

// TodoTool returns the todo_write tool, for registries.
func TodoTool() tools.Tool { return todoTool{} }
