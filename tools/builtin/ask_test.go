package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
)

// fakeAsker answers every question with answer, or fails with err, and
// keeps the questions.
type fakeAsker struct {
	answer string
	err    error
	asked  []tools.Question
}

func (f *fakeAsker) Ask(ctx context.Context, q tools.Question) (string, error) {
	f.asked = append(f.asked, q)
	return f.answer, f.err
}

func TestAsk(t *testing.T) {
	args := map[string]any{"question": "Which database?", "options": []string{"Postgres", " SQLite "}}
	for _, tc := range []struct {
		name   string
		asker  *fakeAsker
		want   string
		assume bool
	}{
		{"unattended", nil, "No user available: this run is unattended", true},
		{"picked", &fakeAsker{answer: "SQLite"}, "The user picked: SQLite", false},
		{"typed", &fakeAsker{answer: "  whatever is simplest "}, "The user answered, in their own words: whatever is simplest", false},
		{"dismissed", &fakeAsker{}, "No answer: the user dismissed the question or left it unanswered.", true},
		{"failed", &fakeAsker{err: errors.New("the editor went away")}, "The question could not be shown (the editor went away)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t, nil)
			if tc.asker != nil {
				env.Asker = tc.asker
			}
			tool := lookup(t, "ask")
			res, err := tool.Execute(tools.WithSession(context.Background(), "s1"), env, mustJSON(t, args))
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || !strings.HasPrefix(res.Content, tc.want) {
				t.Fatalf("result %+v, want it to start with %q", res, tc.want)
			}
			if tc.assume != strings.Contains(res.Content, `labelled "Assumption:"`) {
				t.Errorf("the result should say to proceed on a labelled assumption: %v\n%s", tc.assume, res.Content)
			}
			if tc.asker != nil {
				q := tc.asker.asked[0]
				if q.SessionID != "s1" || q.Question != "Which database?" || strings.Join(q.Options, "|") != "Postgres|SQLite" {
					t.Errorf("asked %+v", q)
				}
			}
		})
	}
}

func TestAskArguments(t *testing.T) {
	env := testEnv(t, nil)
	env.Asker = &fakeAsker{answer: "a"}
	for args, want := range map[string]string{
		`{"question":"","options":["a","b"]}`:              "question is required",
		`{"question":"q","options":["a"]}`:                 "give 2 to 4 options, not 1",
		`{"question":"q","options":["a","b","c","d","e"]}`: "give 2 to 4 options, not 5",
		`{"question":"q","options":["a","a"]}`:             `option "a" is given twice`,
		`{"question":"q","options":["a","  "]}`:            "option 2 is empty",
	} {
		if res := call(t, env, "ask", args); !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s: %+v, want %q", args, res, want)
		}
	}
	if tool := lookup(t, "ask"); !tool.ReadOnly() || !tool.(tools.Exclusive).Exclusive() {
		t.Error("ask must be read-only and exclusive")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
