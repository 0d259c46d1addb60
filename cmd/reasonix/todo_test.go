package main

import (
	"strings"
	"testing"
)

// TestRunTodo: `reasonix run` prints the todo list on stderr each time
// the model writes it, compactly — a count, then a line an item, the one
// in progress in its active form — instead of the call's own row; the
// answer alone reaches stdout.
func TestRunTodo(t *testing.T) {
	_, cfg := startScripted(t, `expect tools todo_write
call todo_write {"todos":[{"content":"Read calc.go","status":"in_progress","activeForm":"Reading calc.go"},{"content":"Fix Add","status":"pending"}]}
---
call todo_write {"todos":[{"content":"Read calc.go","status":"completed"},{"content":"Fix Add","status":"completed"}]}
---
text Fixed.
`)
	home, work := t.TempDir(), t.TempDir()
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "fix Add")
	if r.exit != 0 || strings.TrimSpace(r.stdout) != "Fixed." {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	want := "todo: 0 of 2 done\n  → Reading calc.go\n  · Fix Add\n" +
		"todo: 2 of 2 done\n  ✓ Read calc.go\n  ✓ Fix Add\n"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks\n%s\nin:\n%s", want, r.stderr)
	}
	if strings.Contains(r.stderr, "todo_write") {
		t.Errorf("stderr shows the calls' rows besides the list:\n%s", r.stderr)
	}
}
