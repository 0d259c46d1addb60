package testrun_test

import (
	"testing"

	"github.com/reasonix/reasonix/tools/testrun"
)

func TestMerge(t *testing.T) {
	goRep := testrun.Report{Symbols: []string{"func Add"}, Outcomes: []testrun.Outcome{{Test: "TestAdd", Passed: true}}, Proposed: true}
	pyRep := testrun.Report{Symbols: []string{"func add"}, Outcomes: []testrun.Outcome{{Test: "test_add", Why: "test_ops.py:5: assert -1 == 5"}}, Left: 2}
	for _, tc := range []struct {
		name   string
		a, b   testrun.Report
		want   string
		failed bool
	}{
		{"one after the other", goRep, pyRep,
			"TestAdd passes if accepted\ntest_add fails if accepted: test_ops.py:5: assert -1 == 5\n2 more reaching tests not run", true},
		{"an empty one adds nothing", goRep, testrun.Report{}, "TestAdd passes if accepted", false},
		{"failures on one line", testrun.Report{Symbols: []string{"func Neg"}, Failure: "it does not build"},
			testrun.Report{Symbols: []string{"module calc"}, Failure: "collecting fails"},
			"tests of func Neg, module calc cannot run: it does not build; collecting fails", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := testrun.Merge(tc.a, tc.b)
			if got.Summary() != tc.want || got.Failed() != tc.failed {
				t.Errorf("Merge: %q (failed %v), want %q (failed %v)", got.Summary(), got.Failed(), tc.want, tc.failed)
			}
		})
	}
}
