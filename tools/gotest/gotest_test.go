package gotest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/reasonix/reasonix/tools/gotest"
)

// calcModule writes testdata/gotest/calc.txtar under a temporary
// directory and returns it.
func calcModule(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		tb.Skip(err)
	}
	ar, err := txtar.ParseFile("../../testdata/gotest/calc.txtar")
	if err != nil {
		tb.Fatal(err)
	}
	root := tb.TempDir()
	fsys, err := txtar.FS(ar)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.CopyFS(root, fsys); err != nil {
		tb.Fatal(err)
	}
	return root
}

// change is the change of root's calc/calc.go from its text to one with
// old replaced by new.
func change(tb testing.TB, root, old, new string) gotest.Change {
	tb.Helper()
	p := filepath.Join(root, "calc", "calc.go")
	data, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	after := strings.Replace(string(data), old, new, 1)
	if after == string(data) {
		tb.Fatalf("%q not in calc.go", old)
	}
	return gotest.Change{Path: p, Before: string(data), BeforeExisted: true, After: after}
}

func TestRun(t *testing.T) {
	root := calcModule(t)
	for _, tc := range []struct {
		name     string
		old, new string
		proposed bool
		want     string
		failed   bool
	}{{
		name: "fixing Add runs the tests that reach it, here and in the importer",
		old:  "a - b", new: "a + b", proposed: true,
		want: "TestAdd passes if accepted\nTestTwice passes if accepted\nTestQuad passes if accepted",
	}, {
		name: "breaking Twice is said with the failure's line",
		old:  "return Add(x, x)", new: "return Add(x, x) + 1",
		want: "TestTwice fails: calc_test.go:13: Twice(2) = 1, want 4\nTestQuad fails: app_test.go:7: Quad(1) = 1, want 4", failed: true,
	}, {
		name: "a change no test reaches is said so",
		old:  "// Neg returns -x.", new: "// Inc returns x+1.\nfunc Inc(x int) int { return x + 1 }\n\n// Neg returns -x.",
		want: "no tests reach func Inc",
	}, {
		name: "a change that does not build says so",
		old:  "return -x", new: "return -y", proposed: true,
		want: "tests of func Neg cannot run if accepted: the package does not build: calc/calc.go:10:31: undefined: y", failed: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := change(t, root, tc.old, tc.new)
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
			if data, _ := os.ReadFile(c.Path); string(data) != c.Before {
				t.Errorf("calc.go on disk changed to:\n%s", data)
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
// warm: listing, parsing, and `go test` of the three tests that reach Add.
func BenchmarkRun(b *testing.B) {
	root := calcModule(b)
	c := change(b, root, "a - b", "a + b")
	for b.Loop() {
		rep, err := gotest.Run(context.Background(), gotest.Options{Root: root}, []gotest.Change{c})
		if err != nil || len(rep.Outcomes) != 3 {
			b.Fatalf("Run = %+v, %v", rep, err)
		}
	}
}
