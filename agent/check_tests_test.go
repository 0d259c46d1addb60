package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/testrun/testruntest"
)

// runTested runs one turn of script over testdata/gotest/calc.txtar with
// the tests of edits on and the permission rules given; no language
// server is configured, so only the tests judge the edits.
func runTested(t *testing.T, script string, mode string, allow ...string) (agent.TurnResult, *recorder, string, []scripted.Request) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	a, srv := newScriptedAgent(t, script)
	root := a.Env.Root
	for _, name := range []string{"go.mod", "main.go", "util.go"} {
		os.Remove(filepath.Join(root, name)) // another module's files
	}
	testruntest.Extract(t, "../testdata/gotest/calc.txtar", root)
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
	return res, r, root, srv.Requests()
}

// TestTestsPassAfterFix: the edit that fixes Add ends the turn with the
// tests that reach Add, here and in the importing package, passing.
func TestTestsPassAfterFix(t *testing.T) {
	const script = `call edit_file {"path": "calc/calc.go", "old_string": "a - b", "new_string": "a + b"}
---
text fixed
`
	res, r, _, reqs := runTested(t, script, "ask", "Bash(go test:*)", "Edit")
	const want = "TestAdd passes; TestTwice passes; TestQuad passes"
	if got := agent.TestsSummary(res.Tests); got != want || res.Text != "fixed" || len(reqs) != 2 {
		t.Fatalf("tests %q, answer %q after %d requests; want %q, the script's answer after 2", got, res.Text, len(reqs), want)
	}
	checks := r.of(agent.EventCheck)
	if len(checks) != 1 || checks[0].Text != "tested: "+want || checks[0].Tests == nil {
		t.Errorf("check events %+v", checks)
	}
}

// breakingNeg is the script of a turn whose one multi_edit makes edit and
// breaks Neg; told that TestNeg fails, the model restores Neg and answers.
func breakingNeg(edit, answer string) string {
	return `call multi_edit {"path": "calc/calc.go", "edits": [` + edit + `, {"old_string": "return -x", "new_string": "return x"}]}
---
text done
---
expect user Tests that reach your changes fail with them:
expect user TestNeg fails: calc_test.go:19: Neg(1) != -1
call edit_file {"path": "calc/calc.go", "old_string": "return x", "new_string": "return -x"}
---
text ` + answer + "\n"
}

// TestTestsRepairOnlyWhatTheTurnBroke: a failing test is run again on
// the text from before the turn; one that failed there too is said to be
// already failing and gets no repair round; one the turn broke gets the
// model its failure, with the test's own message, for one round.
func TestTestsRepairOnlyWhatTheTurnBroke(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		// answer and requests are the turn's answer and how many model
		// requests it took; checks are the texts of its check events.
		answer   string
		requests int
		checks   []string
		// untold is what the model must not have been asked to repair.
		untold string
	}{{
		name:   "fixing Add and breaking Neg: a round for Neg",
		script: breakingNeg(`{"old_string": "a - b", "new_string": "a + b"}`, "repaired"),
		answer: "repaired", requests: 4,
		checks: []string{
			"tested: TestAdd passes; TestTwice passes; TestNeg fails: calc_test.go:19: Neg(1) != -1; TestQuad passes; asking the model to fix them",
			"tested: TestAdd passes; TestTwice passes; TestQuad passes",
		},
	}, {
		name: "Add still wrong: its tests were failing already, no round",
		script: `call edit_file {"path": "calc/calc.go", "old_string": "a - b", "new_string": "b - a"}
---
text reordered
`,
		answer: "reordered", requests: 2,
		checks: []string{"tested: TestAdd fails (already failing before this turn): calc_test.go:7: Add(2, 3) = 1, want 5; " +
			"TestTwice fails (already failing before this turn): calc_test.go:13: Twice(2) = 0, want 4; " +
			"TestQuad fails (already failing before this turn): app_test.go:7: Quad(1) = 0, want 4"},
	}, {
		name:   "Add still wrong and Neg broken: the round is for Neg alone",
		script: breakingNeg(`{"old_string": "a - b", "new_string": "b - a"}`, "Neg repaired"),
		answer: "Neg repaired", requests: 4,
		checks: []string{
			"tested: TestAdd fails (already failing before this turn): calc_test.go:7: Add(2, 3) = 1, want 5; " +
				"TestTwice fails (already failing before this turn): calc_test.go:13: Twice(2) = 0, want 4; " +
				"TestNeg fails: calc_test.go:19: Neg(1) != -1; " +
				"TestQuad fails (already failing before this turn): app_test.go:7: Quad(1) = 0, want 4; asking the model to fix them",
			"tested: TestAdd fails (already failing before this turn): calc_test.go:7: Add(2, 3) = 1, want 5; " +
				"TestTwice fails (already failing before this turn): calc_test.go:13: Twice(2) = 0, want 4; " +
				"TestQuad fails (already failing before this turn): app_test.go:7: Quad(1) = 0, want 4",
		},
		untold: "TestAdd fails",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res, r, _, reqs := runTested(t, tc.script, "allow")
			if res.Text != tc.answer || len(reqs) != tc.requests {
				t.Fatalf("answer %q after %d requests; want %q after %d", res.Text, len(reqs), tc.answer, tc.requests)
			}
			var checks []string
			for _, e := range r.of(agent.EventCheck) {
				checks = append(checks, e.Text)
			}
			if !slices.Equal(checks, tc.checks) {
				t.Errorf("check events:\n%s\nwant:\n%s", strings.Join(checks, "\n"), strings.Join(tc.checks, "\n"))
			}
			if tc.untold != "" && strings.Contains(reqs[len(reqs)-1].Body, tc.untold) {
				t.Errorf("the model was asked to repair %q:\n%s", tc.untold, reqs[len(reqs)-1].Body)
			}
		})
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
