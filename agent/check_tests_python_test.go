package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/pytest/pytesttest"
	"github.com/reasonix/reasonix/tools/sandbox"
	"github.com/reasonix/reasonix/tools/testrun/testruntest"
)

// runPyTested runs one turn of script over testdata/pytest/calc.txtar
// with the tests of edits on and the permission rules given. No language
// server is configured, so the test files that import a changed module
// are the ones that run.
func runPyTested(t *testing.T, script string, mode string, allow ...string) (agent.TurnResult, *recorder, int) {
	t.Helper()
	pytesttest.Require(t)
	a, srv := newScriptedAgent(t, script)
	root := a.Env.Root
	for _, name := range []string{"go.mod", "main.go", "util.go"} {
		os.Remove(filepath.Join(root, name)) // a Go module's files
	}
	testruntest.Extract(t, "../testdata/pytest/calc.txtar", root)
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
	return res, r, len(srv.Requests())
}

// TestPythonTestsPassAfterFix: the edit that fixes add ends the turn with
// the tests of the files that import its module passing.
func TestPythonTestsPassAfterFix(t *testing.T) {
	const script = `call edit_file {"path": "calc/ops.py", "old_string": "a - b", "new_string": "a + b"}
---
text fixed
`
	res, r, n := runPyTested(t, script, "ask", "Bash(python3 -m pytest:*)", "Edit")
	const want = "test_neg passes; test_add passes; TestTwice.test_twice passes"
	if got := agent.TestsSummary(res.Tests); got != want || res.Text != "fixed" || n != 2 {
		t.Fatalf("tests %q, answer %q after %d requests; want %q, the script's answer after 2", got, res.Text, n, want)
	}
	checks := r.of(agent.EventCheck)
	if len(checks) != 1 || checks[0].Text != "tested: "+want || checks[0].Tests == nil {
		t.Errorf("check events %+v", checks)
	}
}

// TestPythonTestsRepairBreakingEdit: an edit that breaks neg gets the
// model the failing assertion for one repair round; twice, whose test
// failed before the turn as well, is not held against it.
func TestPythonTestsRepairBreakingEdit(t *testing.T) {
	const script = `call multi_edit {"path": "calc/ops.py", "edits": [{"old_string": "return add(x, x)", "new_string": "return add(x, x) + 1"}, {"old_string": "return -x", "new_string": "return x"}]}
---
text done
---
expect user Tests that reach your changes fail with them:
expect user test_neg fails: test_neg.py:5: assert 1 == -1
call edit_file {"path": "calc/ops.py", "old_string": "return x", "new_string": "return -x"}
---
text repaired
`
	res, r, n := runPyTested(t, script, "allow")
	if res.Text != "repaired" || n != 4 || res.Tests == nil || res.Tests.Regressed() {
		t.Fatalf("answer %q after %d requests, tests %+v; want the repaired answer after 4, no regression", res.Text, n, res.Tests)
	}
	checks := r.of(agent.EventCheck)
	if len(checks) != 2 || !strings.Contains(checks[0].Text, "test_neg fails: test_neg.py:5: assert 1 == -1; ") ||
		!strings.Contains(checks[0].Text, "TestTwice.test_twice fails (already failing before this turn)") ||
		!strings.HasSuffix(checks[0].Text, "asking the model to fix them") {
		t.Errorf("check events %+v", checks)
	}
}

// TestPythonTestsNeedPermission: where pytest would be asked about, the
// tests do not run, and the turn says so.
func TestPythonTestsNeedPermission(t *testing.T) {
	const script = `call edit_file {"path": "calc/ops.py", "old_string": "a - b", "new_string": "a + b"}
---
text fixed
`
	res, r, _ := runPyTested(t, script, "ask", "Edit", "Bash(go test:*)")
	if res.Tests != nil {
		t.Errorf("tests ran: %+v", res.Tests)
	}
	checks := r.of(agent.EventCheck)
	if len(checks) != 1 || checks[0].Text != "tests not run: running `python3 -m pytest` needs a person's approval here; allow Bash(python3 -m pytest) to have them run" {
		t.Errorf("check events %+v", checks)
	}
}

// TestPythonTestsRunInTheJail: with the bash tool confined, pytest runs
// in its jail, and reads the mirror there.
func TestPythonTestsRunInTheJail(t *testing.T) {
	if err := sandbox.Available(); err != nil {
		t.Skipf("no shell jail here: %v", err)
	}
	pytesttest.Require(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testruntest.Extract(t, "../testdata/pytest/calc.txtar", dir)
	a, _ := builtAgent(t, `call edit_file {"path": "calc/ops.py", "old_string": "a - b", "new_string": "a + b"}
---
text fixed
`, `default_model = "scripted"
[permissions]
allow = ["Edit", "Bash(python3 -m pytest:*)"]
`, dir)
	if a.Env.Jail == nil {
		t.Fatal("the agent has no jail")
	}
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), s, "fix add")
	if err != nil {
		t.Fatal(err)
	}
	const want = "test_neg passes; test_add passes; TestTwice.test_twice passes"
	if got := agent.TestsSummary(res.Tests); got != want {
		t.Errorf("tests %q, want %q", got, want)
	}
}
