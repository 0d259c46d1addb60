package gotest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/gotest"
	"github.com/reasonix/reasonix/tools/testrun/testruntest"
)

// calcModule writes testdata/gotest/calc.txtar under a temporary
// directory and returns it.
func calcModule(tb testing.TB) string {
	return testModule(tb, "calc.txtar")
}

// testModule writes testdata/gotest/name under a temporary directory and
// returns it.
func testModule(tb testing.TB, name string) string {
	tb.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		tb.Skip(err)
	}
	return testruntest.Extract(tb, "../../testdata/gotest/"+name, "")
}

// change is the change of root's calc/calc.go from its text to one with
// each old of oldNew replaced by the new after it.
func change(tb testing.TB, root string, oldNew ...string) gotest.Change {
	tb.Helper()
	return changeFile(tb, filepath.Join(root, "calc", "calc.go"), oldNew...)
}

// changeFile is change of the file p.
func changeFile(tb testing.TB, p string, oldNew ...string) gotest.Change {
	tb.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	after := string(data)
	for i := 0; i+1 < len(oldNew); i += 2 {
		next := strings.Replace(after, oldNew[i], oldNew[i+1], 1)
		if next == after {
			tb.Fatalf("%q not in %s", oldNew[i], p)
		}
		after = next
	}
	return gotest.Change{Path: p, Before: string(data), BeforeExisted: true, After: after}
}

func TestRun(t *testing.T) {
	root := calcModule(t)
	for _, tc := range []struct {
		name     string
		oldNew   []string
		proposed bool
		want     string
		failed   bool
		// regressed is the summary of what the change broke, when it broke
		// something: failures from before it are not.
		regressed string
	}{{
		name:   "fixing Add runs the tests that reach it, here and in the importer",
		oldNew: []string{"a - b", "a + b"}, proposed: true,
		want: "TestAdd passes if accepted\nTestTwice passes if accepted\nTestQuad passes if accepted",
	}, {
		name:   "breaking Twice is said with the failure's line; Add broke it before",
		oldNew: []string{"return Add(x, x)", "return Add(x, x) + 1"},
		want: "TestTwice fails (already failing before this turn): calc_test.go:13: Twice(2) = 1, want 4\n" +
			"TestQuad fails (already failing before this turn): app_test.go:7: Quad(1) = 1, want 4", failed: true,
	}, {
		name:   "a test failing before and after is told apart from one the change breaks",
		oldNew: []string{"a - b", "b - a", "return -x", "return x"}, proposed: true,
		want: "TestAdd fails if accepted (already failing before this turn): calc_test.go:7: Add(2, 3) = 1, want 5\n" +
			"TestTwice fails if accepted (already failing before this turn): calc_test.go:13: Twice(2) = 0, want 4\n" +
			"TestNeg fails if accepted: calc_test.go:19: Neg(1) != -1\n" +
			"TestQuad fails if accepted (already failing before this turn): app_test.go:7: Quad(1) = 0, want 4", failed: true,
		regressed: "TestNeg fails if accepted: calc_test.go:19: Neg(1) != -1",
	}, {
		name:   "a change no test reaches is said so",
		oldNew: []string{"// Neg returns -x.", "// Inc returns x+1.\nfunc Inc(x int) int { return x + 1 }\n\n// Neg returns -x."},
		want:   "no tests reach func Inc",
	}, {
		name:   "a change that does not build says so",
		oldNew: []string{"return -x", "return -y"}, proposed: true,
		want: "tests of func Neg cannot run if accepted: the package does not build: calc/calc.go:10:31: undefined: y", failed: true,
		regressed: "tests of func Neg cannot run if accepted: the package does not build: calc/calc.go:10:31: undefined: y",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := change(t, root, tc.oldNew...)
			rep, err := gotest.Run(context.Background(), gotest.Options{Root: root}, []gotest.Change{c})
			if err != nil {
				t.Fatal(err)
			}
			rep.Proposed = tc.proposed
			if got := rep.Summary(); got != tc.want {
				t.Errorf("summary:\n%s\nwant:\n%s", got, tc.want)
			}
			if rep.Failed() != tc.failed {
				t.Errorf("Failed() = %v, want %v", rep.Failed(), tc.failed)
			}
			if rep.Regressed() != (tc.regressed != "") {
				t.Errorf("Regressed() = %v, want %v", rep.Regressed(), tc.regressed != "")
			} else if got := rep.Regressions().Summary(); tc.regressed != "" && got != tc.regressed {
				t.Errorf("regressions:\n%s\nwant:\n%s", got, tc.regressed)
			}
			if data, _ := os.ReadFile(c.Path); string(data) != c.Before {
				t.Errorf("calc.go on disk changed to:\n%s", data)
			}
		})
	}
}

// TestRunFindsTheModule: the module is the nearest go.mod above the
// changed file, and the tests run are those of the changed package and of
// its importers, and theirs, that reach the change; an importer that uses
// nothing that does (report) passes nothing on (to top).
func TestRunFindsTheModule(t *testing.T) {
	root := testModule(t, "nested.txtar")
	calc := filepath.Join(root, "svc", "calc", "calc.go")
	for _, tc := range []struct {
		name   string
		change gotest.Change
		want   string
	}{{
		name:   "fixing Add reaches app's and, through app, web's test",
		change: changeFile(t, calc, "a - b", "a + b"),
		want:   "TestAdd passes\nTestQuad passes\nTestPage passes",
	}, {
		name:   "breaking Neg reaches report's and, through report, top's test",
		change: changeFile(t, calc, "return -x", "return x"),
		want:   "TestLoss fails: report_test.go:7: Loss(1) != -1\nTestGain fails: top_test.go:7: Gain(1) != 1",
	}, {
		name:   "a build error names the file from the workspace root",
		change: changeFile(t, calc, "return -x", "return -y"),
		want:   "tests of func Neg cannot run: the package does not build: svc/calc/calc.go:7:31: undefined: y",
	}, {
		name:   "a Go file in no module is left out",
		change: gotest.Change{Path: filepath.Join(root, "tools", "gen.go"), After: "package main\n\nfunc main() {}\n"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := gotest.Run(context.Background(), gotest.Options{Root: root}, []gotest.Change{tc.change})
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Summary(); got != tc.want {
				t.Errorf("summary:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestRunCapsTheTests(t *testing.T) {
	root := calcModule(t)
	c := change(t, root, "a - b", "a + b")
	rep, err := gotest.Run(context.Background(), gotest.Options{Root: root, MaxTests: 1}, []gotest.Change{c})
	if err != nil {
		t.Fatal(err)
	}
	if want := "TestAdd passes\n2 more reaching tests not run"; rep.Summary() != want {
		t.Errorf("summary %q, want %q", rep.Summary(), want)
	}
}

func TestRunIsCancelled(t *testing.T) {
	root := calcModule(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := change(t, root, "a - b", "a + b")
	if _, err := gotest.Run(ctx, gotest.Options{Root: root}, []gotest.Change{c}); err == nil {
		t.Error("a cancelled run reported no error")
	}
}

func TestRunLeavesOutWhatIsNotGo(t *testing.T) {
	root := calcModule(t)
	rep, err := gotest.Run(context.Background(), gotest.Options{Root: root},
		[]gotest.Change{{Path: filepath.Join(root, "notes.txt"), After: "x"}})
	if err != nil || rep.Summary() != "" {
		t.Errorf("Run = %+v, %v; want nothing", rep, err)
	}
}

// BenchmarkRun measures one run on the calc module with the build cache
// warm: listing, parsing, and `go test` of the three tests that reach Add
// (passing); and, with Neg broken as well, the same plus the second run
// of the failing TestNeg on the text from before (failing).
func BenchmarkRun(b *testing.B) {
	root := calcModule(b)
	for _, bc := range []struct {
		name   string
		change gotest.Change
		tests  int
	}{
		{"passing", change(b, root, "a - b", "a + b"), 3},
		{"failing", change(b, root, "a - b", "a + b", "return -x", "return x"), 4},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				rep, err := gotest.Run(context.Background(), gotest.Options{Root: root}, []gotest.Change{bc.change})
				if err != nil || len(rep.Outcomes) != bc.tests {
					b.Fatalf("Run = %+v, %v", rep, err)
				}
			}
		})
	}
}
