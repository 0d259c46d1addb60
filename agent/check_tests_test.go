package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/permission"
)

// runTested runs one turn of script over testdata/gotest/calc.txtar with
// the tests of edits on and the permission rules given; no language
// server is configured, so only the tests judge the edits.
func runTested(t *testing.T, script string, mode string, allow ...string) (agent.TurnResult, *recorder, string, int) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	a, srv := newScriptedAgent(t, script)
	root := a.Env.Root
	for _, name := range []string{"go.mod", "main.go", "util.go"} {
		os.Remove(filepath.Join(root, name)) // another module's files
	}
	ar, err := txtar.ParseFile("../testdata/gotest/calc.txtar")
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := txtar.FS(ar)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(root, fsys); err != nil {
		t.Fatal(err)
	}
	policy, err := permission.NewPolicy(mode, allow, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Gate = &permission.Checker{Policy: policy}
	a.TestEdits = true
	r := &recorder{}
	a.Sink = r.add
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), s, "go")
	if err != nil {
		t.Fatal(err)
	}
	return res, r, root, len(srv.Requests())
}

// TestTestsPassAfterFix: the edit that fixes Add ends the turn with the
// tests that reach Add, here and in the importing package, passing.
func TestTestsPassAfterFix(t *testing.T) {
	const script = `call edit_file {"path": "calc/calc.go", "old_string": "a - b", "new_string": "a + b"}
---
text fixed
`
	res, r, _, n := runTested(t, script, "ask", "Bash(go test:*)", "Edit")
	const want = "TestAdd passes; TestTwice passes; TestQuad passes"
	if got := agent.TestsSummary(res.Tests); got != want || res.Text != "fixed" || n != 2 {
		t.Fatalf("tests %q, answer %q after %d requests; want %q, the script's answer after 2", got, res.Text, n, want)
	}
	checks := r.of(agent.EventCheck)
	if len(checks) != 1 || checks[0].Text != "tested: "+want || checks[0].Tests == nil {
		t.Errorf("check events %+v", checks)
	}
}

// TestTestsRepairBreakingEdit: an edit that breaks TestTwice gets the
// model the failure, with the test's own message, for one repair round.
func TestTestsRepairBreakingEdit(t *testing.T) {
	const script = `call multi_edit {"path": "calc/calc.go", "edits": [{"old_string": "a - b", "new_string": "a + b"}, {"old_string": "return Add(x, x)", "new_string": "return Add(x, x) + 1"}]}
---
text done
---
expect user Tests that reach your changes fail with them:
expect user TestTwice fails: calc_test.go:13: Twice(2) = 5, want 4
call edit_file {"path": "calc/calc.go", "old_string": "return Add(x, x) + 1", "new_string": "return Add(x, x)"}
---
text repaired
`
	res, r, _, n := runTested(t, script, "allow")
	if res.Text != "repaired" || n != 4 || res.Tests == nil || res.Tests.Failed() {
		t.Fatalf("answer %q after %d requests, tests %+v; want the repaired answer after 4, passing", res.Text, n, res.Tests)
	}
	checks := r.of(agent.EventCheck)
	if len(checks) != 2 || !strings.Contains(checks[0].Text, "TestTwice fails: calc_test.go:13: Twice(2) = 5, want 4; ") ||
		!strings.HasSuffix(checks[0].Text, "asking the model to fix them") || checks[1].Text != "tested: TestAdd passes; TestTwice passes; TestQuad passes" {
		t.Errorf("check events %+v", checks)
	}
}

// TestTestsNeedPermission: where `go test` would be asked about, the
// tests do not run, and the turn says so.
func TestTestsNeedPermission(t *testing.T) {
	const script = `call edit_file {"path": "calc/calc.go", "old_string": "a - b", "new_string": "a + b"}
---
text fixed
`
	res, r, _, _ := runTested(t, script, "ask", "Edit")
	if res.Tests != nil {
		t.Errorf("tests ran: %+v", res.Tests)
	}
	checks := r.of(agent.EventCheck)
	if len(checks) != 1 || !strings.HasPrefix(checks[0].Text, "tests not run: running `go test ./...` needs a person's approval") {
		t.Errorf("check events %+v", checks)
	}
}
