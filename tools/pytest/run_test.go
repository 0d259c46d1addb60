package pytest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/graph"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/pytest"
	"github.com/reasonix/reasonix/tools/pytest/pytesttest"
	"github.com/reasonix/reasonix/tools/testrun"
	"github.com/reasonix/reasonix/tools/testrun/testruntest"
)

// calcProject writes testdata/pytest/calc.txtar under a temporary
// directory and returns it; python3 with pytest is on PATH.
func calcProject(tb testing.TB) string {
	tb.Helper()
	pytesttest.Require(tb)
	return testruntest.Extract(tb, "../../testdata/pytest/calc.txtar", "")
}

// change is the change of root's calc/ops.py with old replaced by new.
func change(tb testing.TB, root, old, new string) testrun.Change {
	tb.Helper()
	p := filepath.Join(root, "calc", "ops.py")
	data, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	after := strings.Replace(string(data), old, new, 1)
	if after == string(data) {
		tb.Fatalf("%q not in ops.py", old)
	}
	return testrun.Change{Path: p, Before: string(data), BeforeExisted: true, After: after}
}

// pyright returns the project graph of root with pyright, or skips.
func pyright(tb testing.TB, root string) *graph.Manager {
	tb.Helper()
	var spec graph.ServerSpec
	for _, s := range graph.DefaultServers() {
		if s.Name == "pyright" {
			spec = s
		}
	}
	prog, err := filepath.Abs("../../graph/testdata/servers/node_modules/.bin/pyright-langserver")
	if _, statErr := os.Stat(prog); err != nil || statErr != nil {
		if prog, err = graph.LookPath(spec.Command[0]); err != nil {
			if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
				tb.Fatalf("%v; REASONIX_REQUIRE_PEERS=1 requires it", err)
			}
			tb.Skipf("%v (graph/testdata/servers/install.sh installs it)", err)
		}
	}
	spec.Command = append([]string{prog}, spec.Command[1:]...)
	m := graph.New(graph.Options{Root: root, Servers: []graph.ServerSpec{spec}})
	tb.Cleanup(func() { m.Close() })
	return m
}

// readTests waits until pyright, just started on the calc project, has
// read its tests: until it names test_ops.py among add's callers. Until
// then its answers leave the tests out (the selector's unplaced check
// then runs their files whole), which is not what these tests are about.
// It asks once a second: asked again at once, over and over, pyright was
// seen not to get to the tests within a minute.
func readTests(tb testing.TB, m *graph.Manager, root string) {
	tb.Helper()
	ops := filepath.Join(root, "calc", "ops.py")
	tests := filepath.Join(root, "tests", "test_ops.py")
	ctx, cancel := context.WithTimeout(tb.Context(), time.Minute)
	defer cancel()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		imps, err := m.Impacts(ctx, nil, ops, []tools.LineSpan{{Start: 6, End: 6}})
		if err != nil {
			tb.Fatal(err)
		}
		for _, imp := range imps {
			for _, c := range imp.Callers {
				if c.Path == tests {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("pyright never named %s among the callers of add: %+v", tests, imps)
		case <-tick.C:
		}
	}
}

// A runCase is a change to calc/ops.py and the summary of its run.
type runCase struct {
	name     string
	old, new string
	proposed bool
	want     string
	failed   bool
	// before says every failure was there before the change too.
	before bool
}

// check runs tc's change with finder and checks its summary, and that the
// project is as it was.
func (tc runCase) check(t *testing.T, root string, finder tools.ImpactFinder) {
	t.Helper()
	c := change(t, root, tc.old, tc.new)
	rep, err := pytest.Run(t.Context(), testrun.Options{Root: root}, finder, []testrun.Change{c})
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
	if want := tc.failed && !tc.before; rep.Regressed() != want {
		t.Errorf("Regressed() = %v, want %v", rep.Regressed(), want)
	}
	if data, _ := os.ReadFile(c.Path); string(data) != c.Before {
		t.Errorf("ops.py on disk changed to:\n%s", data)
	}
	for _, junk := range []string{".pytest_cache", "calc/__pycache__", "tests/__pycache__"} {
		if _, err := os.Stat(filepath.Join(root, junk)); err == nil {
			t.Errorf("the run left %s in the project", junk)
		}
	}
}

// TestRunWithPyright: pyright tells which tests reach a change.
func TestRunWithPyright(t *testing.T) {
	root := calcProject(t)
	m := pyright(t, root)
	readTests(t, m, root)
	for _, tc := range []runCase{{
		name: "fixing add runs the tests that call it, directly and through twice",
		old:  "a - b", new: "a + b", proposed: true,
		want: "test_add passes if accepted\nTestTwice.test_twice passes if accepted",
	}, {
		name: "breaking neg is said with the assertion",
		old:  "return -x", new: "return x",
		want: "test_neg fails: test_neg.py:5: assert 1 == -1", failed: true,
	}, {
		name: "a test that failed before the change too says so, and is no regression",
		old:  "return add(x, x)", new: "return add(x, x) + 1",
		want: "TestTwice.test_twice fails (already failing before this turn): test_ops.py:11: assert 1 == 4", failed: true, before: true,
	}, {
		name: "a change to a local is its function's",
		old:  "return a - b", new: "s = a + b; return s",
		want: "test_add passes\nTestTwice.test_twice passes",
	}, {
		name: "a change no test reaches is said so",
		old:  "def neg(x):", new: "def inc(x):\n    return x + 1\n\n\ndef neg(x):",
		want: "no tests reach func inc",
	}} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, root, m) })
	}
}

// TestRunWithoutGraph: the test files that import the changed module run
// whole.
func TestRunWithoutGraph(t *testing.T) {
	root := calcProject(t)
	for _, tc := range []runCase{{
		name: "the importing test files run",
		old:  "a - b", new: "a + b",
		want: "test_neg passes\ntest_add passes\nTestTwice.test_twice passes",
	}, {
		name: "only the failure the change made is new",
		old:  "return -x", new: "return x",
		want: "test_neg fails: test_neg.py:5: assert 1 == -1\ntest_add fails (already failing before this turn): test_ops.py:5: assert -1 == 5\nTestTwice.test_twice fails (already failing before this turn): test_ops.py:11: assert 0 == 4", failed: true,
	}, {
		name: "a module that does not import says so",
		old:  "def neg(x):", new: "def neg(x) ::", proposed: true,
		want: "tests of module calc.ops cannot run if accepted: collecting tests/test_neg.py fails: SyntaxError: invalid syntax", failed: true,
	}} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, root, nil) })
	}
}

func TestRunIsCancelled(t *testing.T) {
	root := calcProject(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c := change(t, root, "a - b", "a + b")
	if _, err := pytest.Run(ctx, testrun.Options{Root: root}, nil, []testrun.Change{c}); err == nil {
		t.Error("a cancelled run reported no error")
	}
}

func TestRunNeedsPytestConfigured(t *testing.T) {
	root := calcProject(t)
	os.WriteFile(filepath.Join(root, "pyproject.toml"), []byte("[project]\nname = \"calc\"\n"), 0o644)
	c := change(t, root, "a - b", "a + b")
	if pytest.Runner(nil).Configured(root, []testrun.Change{c}) {
		t.Error("a project without pytest's configuration is taken as configured")
	}
	rep, err := pytest.Run(t.Context(), testrun.Options{Root: root}, nil, []testrun.Change{c})
	if err != nil || rep.Summary() != "" {
		t.Errorf("Run = %+v, %v; want nothing", rep, err)
	}
}

// BenchmarkRun measures one run on the calc project without the graph:
// finding the importing test files, the mirror, and pytest running three
// tests.
func BenchmarkRun(b *testing.B) {
	root := calcProject(b)
	c := change(b, root, "a - b", "a + b")
	for b.Loop() {
		rep, err := pytest.Run(context.Background(), testrun.Options{Root: root}, nil, []testrun.Change{c})
		if err != nil || len(rep.Outcomes) != 3 {
			b.Fatalf("Run = %+v, %v", rep, err)
		}
	}
}

// BenchmarkRunWithPyright measures one run with a warm pyright telling
// which tests reach the change.
func BenchmarkRunWithPyright(b *testing.B) {
	root := calcProject(b)
	m := pyright(b, root)
	readTests(b, m, root)
	c := change(b, root, "a - b", "a + b")
	for b.Loop() {
		rep, err := pytest.Run(context.Background(), testrun.Options{Root: root}, m, []testrun.Change{c})
		if err != nil || len(rep.Outcomes) != 2 {
			b.Fatalf("Run = %+v, %v", rep, err)
		}
	}
}

// TestRunLeavesOutDeletedTests: a test file the change deletes is not
// run, nor is it gone from the disk.
func TestRunLeavesOutDeletedTests(t *testing.T) {
	root := calcProject(t)
	gone := filepath.Join(root, "tests", "test_neg.py")
	data, err := os.ReadFile(gone)
	if err != nil {
		t.Fatal(err)
	}
	changes := []testrun.Change{
		change(t, root, "a - b", "a + b"),
		{Path: gone, Before: string(data), BeforeExisted: true, Deleted: true},
	}
	rep, err := pytest.Run(t.Context(), testrun.Options{Root: root}, nil, changes)
	if err != nil {
		t.Fatal(err)
	}
	if want := "test_add passes\nTestTwice.test_twice passes"; rep.Summary() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", rep.Summary(), want)
	}
	if _, err := os.Stat(gone); err != nil {
		t.Errorf("the deleted test file is gone from the disk: %v", err)
	}
}

// TestRunSaysWhyPytestDidNotRun: a configuration pytest cannot use is an
// error of the run, not a failure of the change's tests.
func TestRunSaysWhyPytestDidNotRun(t *testing.T) {
	root := calcProject(t)
	os.WriteFile(filepath.Join(root, "pyproject.toml"), []byte("[tool.pytest.ini_options]\naddopts = \"--no-such-option\"\n"), 0o644)
	c := change(t, root, "a - b", "a + b")
	_, err := pytest.Run(t.Context(), testrun.Options{Root: root}, nil, []testrun.Change{c})
	if err == nil || !strings.Contains(err.Error(), "pytest ran no tests: ") || !strings.Contains(err.Error(), "--no-such-option") {
		t.Errorf("Run: %v; want pytest's complaint", err)
	}
}

// TestRunUsesTheProjectsVirtualEnvironment: with no environment active,
// the tests run on the interpreter of the project's .venv, activated as
// its script would (its bin first on PATH), as the user would run them.
func TestRunUsesTheProjectsVirtualEnvironment(t *testing.T) {
	root := calcProject(t)
	real, err := exec.LookPath("python3")
	if err != nil {
		t.Skip(err)
	}
	venv := filepath.Join(root, ".venv")
	mark := filepath.Join(t.TempDir(), "used")
	script := "#!/bin/sh\necho \"$VIRTUAL_ENV $PATH\" > " + mark + "\nexec " + real + " \"$@\"\n"
	for name, body := range map[string]string{"pyvenv.cfg": "home = /usr/bin\n", "bin/python3": script} {
		p := filepath.Join(venv, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VIRTUAL_ENV=") {
			env = append(env, kv)
		}
	}
	c := change(t, root, "a - b", "a + b")
	rep, err := pytest.Run(t.Context(), testrun.Options{Root: root, Env: env}, nil, []testrun.Change{c})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Summary(), "test_neg passes\ntest_add passes\nTestTwice.test_twice passes"; got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	used, err := os.ReadFile(mark)
	if err != nil {
		t.Fatalf("the tests did not run on .venv's python3: %v", err)
	}
	if !strings.HasPrefix(string(used), venv+" "+filepath.Join(venv, "bin")+string(os.PathListSeparator)) {
		t.Errorf("the environment was not activated: VIRTUAL_ENV and PATH were %q", used)
	}
}
