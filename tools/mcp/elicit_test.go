package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// A scriptedAsker answers questions with its answers in order, "" when
// they run out, and records the questions.
type scriptedAsker struct {
	mu        sync.Mutex // guards the fields below
	answers   []string
	questions []tools.Question
	err       error // returned instead of an answer when set
}

func (a *scriptedAsker) Ask(_ context.Context, q tools.Question) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.questions = append(a.questions, q)
	if a.err != nil {
		return "", a.err
	}
	if len(a.answers) == 0 {
		return "", nil
	}
	ans := a.answers[0]
	a.answers = a.answers[1:]
	return ans, nil
}

// profileSchema is the form the eliciting server (mcptest.ServeEliciting)
// asks for: one field of
// each kind, one required without a default.
var profileSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":     map[string]any{"type": "string", "title": "Name"},
		"age":      map[string]any{"type": "integer", "default": 30},
		"status":   map[string]any{"type": "string", "enum": []string{"active", "inactive"}, "default": "active"},
		"verified": map[string]any{"type": "boolean", "default": true},
	},
	"required": []string{"name"},
}

// TestElicitation runs elicitations through a Manager: the answers given
// to the call's asker reach the server as the result.
func TestElicitation(t *testing.T) {
	t.Parallel()
	url := mcptest.ServeEliciting(t, profileSchema)
	m := start(t, Options{Servers: []ServerConfig{{Name: "el", Type: "http", URL: url}}})
	res := call(t, t.Context(), m, "mcp__el__caps", nil)
	wantContent(t, res, `"form":{}`)

	for _, tc := range []struct {
		name    string
		answers []string
		err     error
		noAsker bool
		want    map[string]any // the server's ElicitResult
	}{
		{name: "defaults", answers: []string{"Accept", "", "Ann"},
			want: map[string]any{"action": "accept", "content": map[string]any{"name": "Ann", "age": 30.0, "status": "active", "verified": true}}},
		{name: "typed", answers: []string{"Accept", "41", "Bo", "inactive", "No"},
			want: map[string]any{"action": "accept", "content": map[string]any{"name": "Bo", "age": 41.0, "status": "inactive", "verified": false}}},
		{name: "decline", answers: []string{"Decline"}, want: map[string]any{"action": "decline"}},
		{name: "dismissed", answers: nil, want: map[string]any{"action": "cancel"}},
		{name: "required left empty", answers: []string{"Accept", "", ""}, want: map[string]any{"action": "cancel"}},
		{name: "not a number", answers: []string{"Accept", "old"}, want: map[string]any{"action": "cancel"}},
		{name: "not a choice", answers: []string{"Accept", "", "Cy", "retired"}, want: map[string]any{"action": "cancel"}},
		{name: "cannot ask", err: errors.New("no dialogs"), want: map[string]any{"action": "decline"}},
		{name: "no one to ask", noAsker: true, want: map[string]any{"action": "decline"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asker := &scriptedAsker{answers: tc.answers, err: tc.err}
			env := &tools.Env{Asker: asker}
			if tc.noAsker {
				env.Asker = nil
			}
			ctx := tools.WithSession(t.Context(), "s1")
			res, err := findTool(t, m, "mcp__el__profile").Execute(ctx, env, json.RawMessage(`{}`))
			if err != nil || res.IsError {
				t.Fatalf("profile: %+v %v", res, err)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(res.Content), &got); err != nil {
				t.Fatalf("result %q: %v", res.Content, err)
			}
			if !jsonEqual(got, tc.want) {
				t.Errorf("server got %v, want %v", got, tc.want)
			}
			for _, q := range asker.questions {
				if q.SessionID != "s1" {
					t.Errorf("question %q names session %q, want s1", q.Question, q.SessionID)
				}
			}
		})
	}
}

// TestElicitationQuestions checks what the user is asked: whether to
// answer, then a field at a time with its choices, or its default as the
// one suggested answer.
func TestElicitationQuestions(t *testing.T) {
	t.Parallel()
	url := mcptest.ServeEliciting(t, profileSchema)
	m := start(t, Options{Servers: []ServerConfig{{Name: "el", Type: "http", URL: url}}})
	asker := &scriptedAsker{answers: []string{"Accept", "", "Ann"}}
	if _, err := findTool(t, m, "mcp__el__profile").Execute(t.Context(), &tools.Env{Asker: asker}, nil); err != nil {
		t.Fatal(err)
	}
	want := []tools.Question{
		{Question: `MCP server "el" asks: Your profile, please (it wants: age, Name, status, verified)`, Options: []string{"Accept", "Decline"}},
		{Question: "age (default: 30)", Options: []string{"30"}},
		{Question: "Name"},
		{Question: "status (default: active)", Options: []string{"active", "inactive"}},
		{Question: "verified (default: true)", Options: []string{"Yes", "No"}},
	}
	if len(asker.questions) != len(want) {
		t.Fatalf("asked %+v, want %+v", asker.questions, want)
	}
	for i, q := range asker.questions {
		if q.Question != want[i].Question || !slices.Equal(q.Options, want[i].Options) {
			t.Errorf("question %d: got %q %q, want %q %q", i, q.Question, q.Options, want[i].Question, want[i].Options)
		}
	}
}

// jsonEqual compares two values as JSON.
func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
