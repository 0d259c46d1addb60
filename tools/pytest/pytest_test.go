package pytest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/testrun"
)

// writeFiles writes files (slash paths → texts) under a new directory.
func writeFiles(tb testing.TB, files map[string]string) string {
	tb.Helper()
	root := tb.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

func TestProjectDir(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		file  string // the changed file
		want  string // the project directory, relative; "-" for none
	}{
		{"pytest.ini", map[string]string{"pytest.ini": ""}, "calc.py", "."},
		{"pyproject.toml's section", map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\n"}, "calc.py", "."},
		{"pyproject.toml without it", map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n"}, "calc.py", "-"},
		{"setup.cfg", map[string]string{"setup.cfg": "[metadata]\n[tool:pytest]\naddopts = -q\n"}, "calc.py", "."},
		{"setup.cfg without it", map[string]string{"setup.cfg": "[metadata]\nname = x\n"}, "calc.py", "-"},
		{"tox.ini", map[string]string{"tox.ini": "[tox]\n[pytest]\n"}, "calc.py", "."},
		{"the nearest", map[string]string{"pytest.ini": "", "sub/pytest.ini": ""}, "sub/pkg/calc.py", "sub"},
		{"above the file", map[string]string{"pytest.ini": ""}, "src/pkg/calc.py", "."},
		{"none", map[string]string{"README": ""}, "calc.py", "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeFiles(t, tc.files)
			got := projectDir(root, filepath.Join(root, filepath.FromSlash(tc.file)))
			want := ""
			if tc.want != "-" {
				want = filepath.Join(root, tc.want)
			}
			if got != want {
				t.Errorf("projectDir = %q, want %q", got, want)
			}
		})
	}
	// Not above the workspace root: a configuration there is another
	// project's.
	outer := writeFiles(t, map[string]string{"pytest.ini": "", "ws/calc.py": ""})
	if got := projectDir(filepath.Join(outer, "ws"), filepath.Join(outer, "ws", "calc.py")); got != "" {
		t.Errorf("projectDir found %q above the root", got)
	}
}

func TestTestOf(t *testing.T) {
	dir := "/p"
	for _, tc := range []struct {
		path, symbol string
		want         string // the node id; "" for not a test
	}{
		{"/p/tests/test_ops.py", "func test_add", "tests/test_ops.py::test_add"},
		{"/p/tests/test_ops.py", "function test_add", "tests/test_ops.py::test_add"},
		{"/p/tests/ops_test.py", "method TestTwice.test_twice", "tests/ops_test.py::TestTwice::test_twice"},
		{"/p/tests/test_ops.py", "func helper", ""},
		{"/p/tests/test_ops.py", "method Helper.test_x", ""},
		{"/p/tests/test_ops.py", "func test_add.inner", ""},
		{"/p/tests/test_ops.py", "class TestTwice", ""},
		{"/p/calc/ops.py", "func test_add", ""},
		{"/q/tests/test_ops.py", "func test_add", ""},
	} {
		got := ""
		if tt, ok := testOf(dir, tc.path, tc.symbol); ok {
			got = tt.nodeID()
		}
		if got != tc.want {
			t.Errorf("testOf(%s, %s) = %q, want %q", tc.path, tc.symbol, got, tc.want)
		}
	}
}

func TestImportPattern(t *testing.T) {
	for _, tc := range []struct {
		mod, src string
		want     bool
	}{
		{"calc", "import calc\n", true},
		{"calc", "import calc.ops as o\n", true},
		{"calc", "import calculator\n", false},
		{"calc.ops", "from calc.ops import add\n", true},
		{"calc.ops", "from calc import ops, other\n", true},
		{"calc.ops", "from calc import opsy\n", false},
		{"calc.ops", "    from calc.ops import add  # in a function\n", true},
		{"calc.ops", "# from calc.ops import add\n", false},
		{"calc", "from calc.ops import add\n", true},
	} {
		if got := importPattern(tc.mod).MatchString(tc.src); got != tc.want {
			t.Errorf("importPattern(%s) on %q = %v, want %v", tc.mod, tc.src, got, tc.want)
		}
	}
}

func TestChangedSpans(t *testing.T) {
	c := testrun.Change{Before: "a\nb\nc\nd\n", BeforeExisted: true, After: "a\nB\nc\n"}
	want := []tools.LineSpan{{Start: 2, End: 2}, {Start: 3, End: 3}}
	if got := changedSpans(c); !slices.Equal(got, want) {
		t.Errorf("changedSpans = %v, want %v", got, want)
	}
}

// A fakeFinder answers from a table of declarations, as a language
// server would for the files of the table.
type fakeFinder struct {
	decls []tools.SymbolImpact
	asked int
}

func (f *fakeFinder) Impacts(_ context.Context, _ map[string]string, path string, spans []tools.LineSpan) ([]tools.SymbolImpact, error) {
	f.asked++
	var out []tools.SymbolImpact
	for _, sp := range spans {
		// The innermost declaration holding the span.
		var in *tools.SymbolImpact
		for i, d := range f.decls {
			if d.Path == path && d.Lines.Start <= sp.Start && sp.End <= d.Lines.End &&
				(in == nil || d.Lines.End-d.Lines.Start < in.Lines.End-in.Lines.Start) {
				in = &f.decls[i]
			}
		}
		if in != nil && !slices.ContainsFunc(out, func(x tools.SymbolImpact) bool { return x.Symbol == in.Symbol }) {
			out = append(out, *in)
		}
	}
	return out, nil
}

func TestSelectFollowsCallers(t *testing.T) {
	dir := "/p"
	ops, tst := "/p/calc/ops.py", "/p/tests/test_ops.py"
	decl := func(path string, start, end int, symbol string, callers ...int) tools.SymbolImpact {
		d := tools.SymbolImpact{Path: path, Lines: tools.LineSpan{Start: start, End: end}, Symbol: symbol}
		for _, l := range callers {
			p := tst
			if l < 0 {
				p, l = ops, -l
			}
			d.Callers = append(d.Callers, tools.Place{Path: p, Line: l})
		}
		return d
	}
	f := &fakeFinder{decls: []tools.SymbolImpact{
		decl(ops, 4, 6, "func add", -11, 5),
		decl(ops, 9, 11, "func twice", 15),
		decl(tst, 4, 5, "func test_add"),
		decl(tst, 8, 9, "func helper", 10),
		decl(tst, 9, 10, "func test_uses_helper"),
		decl(tst, 14, 15, "method TestTwice.test_twice"),
	}}
	before := strings.Repeat("x\n", 12)
	after := strings.Replace(before, "x\n", "y\n", 5) // lines 1-5 changed
	s := selector{ctx: t.Context(), finder: f, dir: dir, seen: map[string]bool{}}
	if err := s.run([]testrun.Change{{Path: ops, Before: before, BeforeExisted: true, After: after}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tt := range s.tests {
		got = append(got, tt.nodeID())
	}
	want := []string{"tests/test_ops.py::test_add", "tests/test_ops.py::TestTwice::test_twice"}
	if !slices.Equal(got, want) || !slices.Equal(s.symbols, []string{"func add"}) {
		t.Errorf("tests %v, symbols %v; want %v, [func add]", got, s.symbols, want)
	}
	// ops.py; then ops.py and test_ops.py; then test_ops.py.
	if f.asked != 4 {
		t.Errorf("asked %d questions, want one a file a level (4)", f.asked)
	}
}

func TestSelectIsBounded(t *testing.T) {
	// Each function calls the next, forever: the walk stops at its bound.
	f := &fakeFinder{}
	for i := range 100 {
		d := tools.SymbolImpact{Path: "/p/m.py", Lines: tools.LineSpan{Start: i + 1, End: i + 1}, Symbol: "func f" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)}
		d.Callers = []tools.Place{{Path: "/p/m.py", Line: i + 2}}
		f.decls = append(f.decls, d)
	}
	s := selector{ctx: t.Context(), finder: f, dir: "/p", seen: map[string]bool{}}
	if err := s.run([]testrun.Change{{Path: "/p/m.py", After: "x\n"}}); err != nil {
		t.Fatal(err)
	}
	if f.asked > maxQueries || f.asked > maxDepth+1 {
		t.Errorf("asked %d questions, bound %d, depth %d", f.asked, maxQueries, maxDepth)
	}
}

func TestImporters(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"pytest.ini":             "",
		"calc/ops.py":            "def add(a, b):\n    return a + b\n",
		"tests/test_a.py":        "from calc.ops import add\n",
		"tests/test_b.py":        "import json\n",
		"tests/test_gone.py":     "from calc import ops\n",
		"tests/sub/conftest.py":  "import pytest\n",
		"tests/sub/test_c.py":    "def test_c(): pass\n",
		".venv/pyvenv.cfg":       "",
		".venv/lib/test_x.py":    "from calc.ops import add\n",
		"node_modules/test_y.py": "from calc.ops import add\n",
	})
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	for _, tc := range []struct {
		name    string
		changes []testrun.Change
		want    []string
	}{
		{"the importers of a module", []testrun.Change{{Path: abs("calc/ops.py"), After: "x"}},
			[]string{"tests/test_a.py", "tests/test_gone.py"}},
		{"a conftest.py's directory", []testrun.Change{{Path: abs("tests/sub/conftest.py"), After: "x"}},
			[]string{"tests/sub/test_c.py"}},
		{"a changed test file itself", []testrun.Change{{Path: abs("tests/test_new.py"), After: "def test_n(): pass\n"}},
			[]string{"tests/test_new.py"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := selector{ctx: t.Context(), dir: dir, seen: map[string]bool{}}
			if err := s.run(tc.changes); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tt := range s.tests {
				got = append(got, tt.nodeID())
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("tests %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSelectWidensLocals(t *testing.T) {
	ops, tst := "/p/calc/ops.py", "/p/tests/test_ops.py"
	f := &fakeFinder{decls: []tools.SymbolImpact{
		{Path: ops, Lines: tools.LineSpan{Start: 1, End: 3}, Symbol: "func add", Callers: []tools.Place{{Path: tst, Line: 6}}},
		{Path: ops, Lines: tools.LineSpan{Start: 2, End: 2}, Symbol: "variable add.s"},
		// got = add(2, 3), never used again: only its function leads on.
		{Path: tst, Lines: tools.LineSpan{Start: 4, End: 6}, Symbol: "func test_add"},
		{Path: tst, Lines: tools.LineSpan{Start: 6, End: 6}, Symbol: "variable test_add.got"},
	}}
	s := selector{ctx: t.Context(), finder: f, dir: "/p", seen: map[string]bool{}}
	c := testrun.Change{Path: ops, Before: "def add(a, b):\n    return a - b\n", BeforeExisted: true, After: "def add(a, b):\n    s = a + b; return s\n"}
	if err := s.run([]testrun.Change{c}); err != nil {
		t.Fatal(err)
	}
	if len(s.tests) != 1 || s.tests[0].nodeID() != "tests/test_ops.py::test_add" || !slices.Equal(s.symbols, []string{"func add"}) {
		t.Errorf("tests %v, symbols %v; want test_add, [func add]", s.tests, s.symbols)
	}
}

func TestMirror(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"pytest.ini":                       "",
		"calc/ops.py":                      "old\n",
		"calc/gone.py":                     "gone\n",
		"calc/other.py":                    "other\n",
		"calc/__pycache__/ops.pyc":         "stale",
		"tests/test_ops.py":                "tests\n",
		".pytest_cache/v/cache/lastfailed": "{}",
	})
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	tree := filepath.Join(t.TempDir(), "tree")
	err := mirror(tree, dir, []testrun.Change{
		{Path: abs("calc/ops.py"), Before: "old\n", BeforeExisted: true, After: "new\n"},
		{Path: abs("calc/gone.py"), Before: "gone\n", BeforeExisted: true, Deleted: true},
		{Path: abs("calc/sub/new.py"), After: "made\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		"calc/ops.py": "new\n", "calc/sub/new.py": "made\n", "calc/other.py": "other\n", "tests/test_ops.py": "tests\n",
	} {
		if got, err := os.ReadFile(filepath.Join(tree, rel)); err != nil || string(got) != want {
			t.Errorf("%s in the mirror: %q, %v; want %q", rel, got, err, want)
		}
	}
	for _, rel := range []string{"calc/gone.py", "calc/__pycache__", ".pytest_cache"} {
		if _, err := os.Lstat(filepath.Join(tree, rel)); err == nil {
			t.Errorf("%s is in the mirror", rel)
		}
	}
	// Only the ways to the changes are made anew; the rest is linked.
	for rel, linked := range map[string]bool{"calc": false, "calc/other.py": true, "tests": true, "pytest.ini": true} {
		fi, err := os.Lstat(filepath.Join(tree, rel))
		if err != nil || (fi.Mode()&os.ModeSymlink != 0) != linked {
			t.Errorf("%s: %v, %v; want linked %v", rel, fi, err, linked)
		}
	}
	if data, _ := os.ReadFile(abs("calc/ops.py")); string(data) != "old\n" {
		t.Errorf("the user's ops.py changed to %q", data)
	}
}

func TestEnviron(t *testing.T) {
	tree := writeFiles(t, map[string]string{"src/calc/ops.py": ""})
	got := environ([]string{"HOME=/h", "PWD=/work", "PYTHONPATH=/lib", "PYTHONDONTWRITEBYTECODE="}, tree)
	want := []string{"HOME=/h", "PWD=" + tree, "PYTHONDONTWRITEBYTECODE=1",
		"PYTHONPATH=" + strings.Join([]string{tree, filepath.Join(tree, "src"), "/lib"}, string(os.PathListSeparator))}
	if !slices.Equal(got, want) {
		t.Errorf("environ = %q, want %q", got, want)
	}
}

// TestSelectRunsFilesTheGraphLeftOut: a test file that names a function
// the walk went through, where the graph placed no caller (a server still
// reading the workspace, a call through getattr), runs whole; one that
// does not name it stays out, and so does one the graph placed.
func TestSelectRunsFilesTheGraphLeftOut(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"calc/ops.py":          "def add(a, b):\n    return a + b\n",
		"tests/test_named.py":  "from calc import ops\n\ndef test_it():\n    assert getattr(ops, 'add')(1, 2) == 3\n",
		"tests/test_other.py":  "def test_other():\n    assert True\n",
		"tests/test_placed.py": "from calc.ops import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
		"tests/test_words.py":  "def test_adder():\n    assert 'adder'\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ops, placed := filepath.Join(dir, "calc/ops.py"), filepath.Join(dir, "tests/test_placed.py")
	f := &fakeFinder{decls: []tools.SymbolImpact{
		{Path: ops, Lines: tools.LineSpan{Start: 1, End: 2}, Symbol: "func add", Callers: []tools.Place{{Path: placed, Line: 4}}},
		{Path: placed, Lines: tools.LineSpan{Start: 3, End: 4}, Symbol: "func test_add"},
	}}
	s := selector{ctx: t.Context(), finder: f, dir: dir, seen: map[string]bool{}}
	before := files["calc/ops.py"]
	after := strings.Replace(before, "a + b", "b + a", 1)
	if err := s.run([]testrun.Change{{Path: ops, Before: before, BeforeExisted: true, After: after}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tt := range s.tests {
		got = append(got, tt.nodeID())
	}
	want := []string{"tests/test_placed.py::test_add", "tests/test_named.py"}
	if !slices.Equal(got, want) {
		t.Errorf("tests %v, want %v", got, want)
	}
}
