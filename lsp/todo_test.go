package lsp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/lsp/lsptest"
)

// TestTodoOverLSP: a todo_write call reaches a client that streams
// events as a reasonix/event of kind "todo" holding the whole list, and
// the turn's progress names the step in hand.
func TestTodoOverLSP(t *testing.T) {
	root, _ := workspace(t, `call todo_write {"todos":[{"content":"Read calc.go","status":"completed"},{"content":"Fix Add","status":"in_progress","activeForm":"Fixing Add"}]}
---
text Fixed.
`, "")
	ed := lsptest.New(t, lsptest.Options{Root: root, Events: true})
	if res := askWith(t, ed, map[string]any{"prompt": "fix Add"}); res["text"] != "Fixed." {
		t.Fatalf("ask: %v", res)
	}
	var todo map[string]any
	ed.Await("the todo event", 5*time.Second, func(r *lsptest.Recorded) bool {
		i := slices.IndexFunc(r.Events, func(e map[string]any) bool { return e["kind"] == "todo" })
		if i >= 0 {
			todo = r.Events[i]
		}
		return i >= 0
	})
	b, _ := json.Marshal(todo["todos"])
	if want := `[{"content":"Read calc.go","status":"completed"},{"activeForm":"Fixing Add","content":"Fix Add","status":"in_progress"}]`; string(b) != want {
		t.Errorf("the todo event's list (keys sorted):\n%s\nwant\n%s", b, want)
	}
	progress := ed.Snapshot().Progress
	if !slices.ContainsFunc(progress, func(p lsptest.Progress) bool { return strings.Contains(p.Message, "→ Fixing Add") }) {
		t.Errorf("no progress names the step in hand: %+v", progress)
	}
}
