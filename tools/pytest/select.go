package pytest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/linediff"
	"github.com/reasonix/reasonix/tools/testrun"
)

// A test is one selected test, or a whole test file (name empty).
type test struct {
	file  string // slash-separated, relative to the project directory
	class string // the Test* class of a method, else empty
	name  string
}

// names reports whether o is an outcome of t: one of its file's when t
// is a whole file, else t's own (a class's method by its class).
func (t test) names(o testrun.Outcome) bool {
	if o.Package != t.file {
		return false
	}
	switch {
	case t.name == "":
		return true
	case t.class != "":
		return o.Test == t.class+"."+t.name
	}
	return o.Test == t.name
}

// nodeID is pytest's name of t.
func (t test) nodeID() string {
	id := t.file
	if t.class != "" {
		id += "::" + t.class
	}
	if t.name != "" {
		id += "::" + t.name
	}
	return id
}

// A selector finds the tests of a project that reach changes.
type selector struct {
	ctx    context.Context
	finder tools.ImpactFinder
	texts  map[string]string // the changed files' new texts, by absolute path
	dir    string            // the project directory

	asked   int             // questions asked of the finder
	seen    map[string]bool // declarations visited: path + "\x00" + symbol
	symbols []string
	tests   []test

	// names are the short names of the declarations the walk went
	// through that are not tests ("add" for "func add"), and placed the
	// files the graph named a caller or a declaration in: what the check
	// for callers it missed (unplaced) compares.
	names  []string
	placed map[string]bool
}

// errBound stops the walk when it has asked maxQueries questions.
var errBound = errors.New("pytest: too many questions")

// run selects the tests of changes. Through the finder, the changed
// symbols and their callers, breadth first; what it cannot place in a
// declaration (a deleted file, a change outside any, a graph that cannot
// answer) through the test files that import the changed module.
func (s *selector) run(changes []testrun.Change) error {
	var whole []testrun.Change // changes tested by the files that import them
	var frontier []tools.Place
	for _, c := range changes {
		if c.Deleted || s.finder == nil || isConftest(c.Path) {
			whole = append(whole, c)
			continue
		}
		imps, err := s.declarations(c.Path, changedSpans(c))
		if err != nil {
			if s.ctx.Err() != nil {
				return err
			}
			whole = append(whole, c) // the graph cannot say; the importers can
			continue
		}
		if len(imps) == 0 {
			whole = append(whole, c)
		}
		for _, imp := range imps {
			if !slices.Contains(s.symbols, imp.Symbol) {
				s.symbols = append(s.symbols, imp.Symbol)
			}
			frontier = append(frontier, s.visit(imp)...)
		}
	}
walk:
	for depth := 0; depth < maxDepth && len(frontier) > 0; depth++ {
		var next []tools.Place
		for _, path := range placePaths(frontier) {
			var spans []tools.LineSpan
			for _, p := range frontier {
				if sp := (tools.LineSpan{Start: p.Line, End: p.Line}); p.Path == path && !slices.Contains(spans, sp) {
					spans = append(spans, sp)
				}
			}
			// A call is often a local's value (`got = add(2, 3)`): its
			// declaration is the function the local is in.
			imps, err := s.declarations(path, spans)
			if errors.Is(err, errBound) {
				break walk // the tests found so far are the ones that run
			}
			if err != nil {
				if s.ctx.Err() != nil {
					return err
				}
				continue
			}
			for _, imp := range imps {
				next = append(next, s.visit(imp)...)
			}
		}
		frontier = next
	}
	if err := s.unplaced(); err != nil {
		return err
	}
	if len(whole) > 0 {
		return s.importers(whole)
	}
	return nil
}

// unplaced selects, whole, the test files that name a declaration the
// walk went through although the graph placed no caller in them. A
// language server still reading the workspace answers with the callers
// in the files it has read so far (pyright, just started, knows the
// changed file and not yet the tests), and Python reaches functions in
// ways no server follows (getattr, fixtures, a module's attribute): a
// file that names the function may call it, so it runs rather than
// being said to be out of reach. A name that is only a word in the file
// costs a test file's run, never a missed test.
func (s *selector) unplaced() error {
	if len(s.names) == 0 {
		return nil
	}
	quoted := make([]string, len(s.names))
	for i, n := range s.names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	named := regexp.MustCompile(`\b(?:` + strings.Join(quoted, "|") + `)\b`)
	return s.eachTestFile(func(p, src string) {
		if !s.placed[p] && named.MatchString(src) {
			rel, _ := filepath.Rel(s.dir, p)
			s.addTest(test{file: filepath.ToSlash(rel)})
		}
	})
}

// maxWiden bounds the questions that widen a local's span.
const maxWiden = 3

// declarations returns the declarations of path that hold spans. A
// language server outlines a function's parameters and locals too
// ("variable add.y"); a change to one is its function's, so the span is
// widened a line at a time until it is in a declaration of its own.
func (s *selector) declarations(path string, spans []tools.LineSpan) ([]tools.SymbolImpact, error) {
	imps, err := s.ask(path, spans)
	if err != nil {
		return nil, err
	}
	var out []tools.SymbolImpact
	for _, imp := range imps {
		local := imp
		// A line up first (a parameter's line is its function's first,
		// so then a line down), and on alternately.
		for try, up, down := 0, 0, 0; isLocal(imp.Symbol) && try < maxWiden; try++ {
			if slices.ContainsFunc(imps, func(x tools.SymbolImpact) bool { return encloses(x.Symbol, local.Symbol) }) {
				break // its function is among the answers already
			}
			if try%2 == 0 && local.Lines.Start-up > 1 {
				up++
			} else {
				down++
			}
			wider, err := s.ask(path, []tools.LineSpan{{Start: local.Lines.Start - up, End: local.Lines.End + down}})
			if err != nil {
				return nil, err
			}
			if len(wider) > 0 {
				imp = wider[0]
			}
		}
		if isLocal(imp.Symbol) || slices.ContainsFunc(out, func(x tools.SymbolImpact) bool { return x.Symbol == imp.Symbol }) {
			continue
		}
		out = append(out, imp)
	}
	return out, nil
}

// isLocal reports whether symbol names a variable inside another
// declaration ("variable add.y"), as opposed to a module's.
func isLocal(symbol string) bool {
	kind, name, _ := strings.Cut(symbol, " ")
	return (kind == "variable" || kind == "constant") && strings.Contains(name, ".")
}

// encloses reports whether the declaration outer names holds the local
// inner ("func add" holds "variable add.y").
func encloses(outer, inner string) bool {
	_, o, _ := strings.Cut(outer, " ")
	_, i, _ := strings.Cut(inner, " ")
	return !isLocal(outer) && strings.HasPrefix(i, o+".")
}

// ask asks the finder about spans of path, within the bound.
func (s *selector) ask(path string, spans []tools.LineSpan) ([]tools.SymbolImpact, error) {
	if s.asked >= maxQueries {
		return nil, errBound
	}
	s.asked++
	return s.finder.Impacts(s.ctx, s.texts, path, spans)
}

// visit takes in a declaration: a test is selected, anything else gives
// its callers to follow. A declaration seen before gives nothing.
func (s *selector) visit(imp tools.SymbolImpact) []tools.Place {
	key := imp.Path + "\x00" + imp.Symbol
	if s.seen[key] {
		return nil
	}
	s.seen[key] = true
	if s.placed == nil {
		s.placed = map[string]bool{}
	}
	s.placed[imp.Path] = true
	for _, c := range imp.Callers {
		s.placed[c.Path] = true
	}
	if t, ok := testOf(s.dir, imp.Path, imp.Symbol); ok {
		s.addTest(t)
		return nil
	}
	if n := shortName(imp.Symbol); n != "" && !slices.Contains(s.names, n) {
		s.names = append(s.names, n)
	}
	return imp.Callers
}

// shortName is the name code calls a declaration by: "add" for "func
// add", "twice" for "method Calc.twice".
func shortName(symbol string) string {
	_, name, _ := strings.Cut(symbol, " ")
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	return name
}

func (s *selector) addTest(t test) {
	if !slices.Contains(s.tests, t) {
		s.tests = append(s.tests, t)
	}
}

// testOf returns the test that symbol (as the graph labels it: "func
// test_add", "method TestCalc.test_add") of the file at path is, if it is
// one pytest collects by default.
func testOf(dir, path, symbol string) (test, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || !isTestFile(path) || !within(dir, path) {
		return test{}, false
	}
	kind, name, _ := strings.Cut(symbol, " ")
	parts := strings.Split(name, ".")
	t := test{file: filepath.ToSlash(rel)}
	switch {
	case len(parts) == 1 && (kind == "func" || kind == "function") && strings.HasPrefix(parts[0], "test"):
		t.name = parts[0]
	case len(parts) == 2 && kind == "method" && strings.HasPrefix(parts[0], "Test") && strings.HasPrefix(parts[1], "test"):
		t.class, t.name = parts[0], parts[1]
	default:
		return test{}, false
	}
	return t, true
}

// placePaths returns the paths of places, each once, in order.
func placePaths(places []tools.Place) []string {
	var out []string
	for _, p := range places {
		if !slices.Contains(out, p.Path) {
			out = append(out, p.Path)
		}
	}
	return out
}

// maxSpans bounds the changed lines of one file asked about.
const maxSpans = 2000

// changedSpans returns the lines of c's new text that differ from its
// text before, one span a line (a span across two declarations would lie
// in neither), and for lines removed the line they were removed before.
func changedSpans(c testrun.Change) []tools.LineSpan {
	var before []string
	if c.BeforeExisted {
		before = strings.Split(c.Before, "\n")
	}
	after := strings.Split(c.After, "\n")
	var out []tools.LineSpan
	for _, h := range linediff.Lines(before, after) {
		if h.B0 == h.B1 {
			l := max(h.B0, 1)
			out = append(out, tools.LineSpan{Start: l, End: l})
			continue
		}
		for l := h.B0 + 1; l <= h.B1 && len(out) < maxSpans; l++ {
			out = append(out, tools.LineSpan{Start: l, End: l})
		}
	}
	return out
}

// maxWalk bounds the files the search for importers looks at.
const maxWalk = 5000

// isConftest reports whether path is a conftest.py, whose fixtures reach
// the tests below it by their parameters' names, which no call names.
func isConftest(path string) bool { return filepath.Base(path) == "conftest.py" }

// importers selects, whole, the test files of the project that import
// the module of one of changes, or are one of them, or are below a
// changed conftest.py; each change's module becomes a symbol ("module
// calc").
func (s *selector) importers(changes []testrun.Change) error {
	var pats []*regexp.Regexp
	var conftests []string // the directories of changed conftest.py files
	for _, c := range changes {
		if isConftest(c.Path) {
			conftests = append(conftests, filepath.Dir(c.Path))
		}
		mod := moduleName(s.dir, c.Path)
		if mod == "" {
			continue
		}
		if sym := "module " + mod; !slices.Contains(s.symbols, sym) {
			s.symbols = append(s.symbols, sym)
		}
		pats = append(pats, importPattern(mod))
		if isTestFile(c.Path) && !c.Deleted {
			if rel, err := filepath.Rel(s.dir, c.Path); err == nil {
				s.addTest(test{file: filepath.ToSlash(rel)})
			}
		}
	}
	if len(pats) == 0 && len(conftests) == 0 {
		return nil
	}
	return s.eachTestFile(func(p, src string) {
		if slices.ContainsFunc(conftests, func(d string) bool { return within(d, p) }) ||
			slices.ContainsFunc(pats, func(re *regexp.Regexp) bool { return re.MatchString(src) }) {
			rel, _ := filepath.Rel(s.dir, p)
			s.addTest(test{file: filepath.ToSlash(rel)})
		}
	})
}

// eachTestFile calls fn with each test file of the project and its text
// (the changed text where the turn changed it), within maxWalk entries.
func (s *selector) eachTestFile(fn func(p, src string)) error {
	seen := 0
	return filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner is not a reason to stop
		}
		if seen++; seen > maxWalk {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != s.dir && skipDir(p, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !isTestFile(p) || !d.Type().IsRegular() {
			return nil
		}
		src, ok := s.texts[p]
		if !ok {
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			src = string(data)
		}
		fn(p, src)
		return s.ctx.Err()
	})
}

// skipDir reports whether the directory at p, named name, holds no
// project tests: hidden ones, caches, virtual environments, packages
// installed for Node.
func skipDir(p, name string) bool {
	if strings.HasPrefix(name, ".") || name == "__pycache__" || name == "node_modules" || name == "site-packages" {
		return true
	}
	_, err := os.Stat(filepath.Join(p, "pyvenv.cfg"))
	return err == nil
}

// moduleName is the dotted name a file of the project imports as: its
// path under the project directory, or under its src directory.
func moduleName(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil || !within(dir, path) {
		return ""
	}
	rel = filepath.ToSlash(strings.TrimSuffix(rel, ".py"))
	rel = strings.TrimPrefix(rel, "src/")
	rel = strings.TrimSuffix(rel, "/__init__")
	if rel == "__init__" {
		return ""
	}
	return strings.ReplaceAll(rel, "/", ".")
}

// importPattern matches the import statements that import mod: `import
// a.b`, `from a.b import x`, `from a.b.c import x` (a submodule imports
// its package), and `from a import b`.
func importPattern(mod string) *regexp.Regexp {
	q := regexp.QuoteMeta(mod)
	alts := []string{`import\s+` + q + `\b`, `from\s+` + q + `[\s.]`}
	if i := strings.LastIndex(mod, "."); i > 0 {
		alts = append(alts, `from\s+`+regexp.QuoteMeta(mod[:i])+`\s+import\s+[^\n]*\b`+regexp.QuoteMeta(mod[i+1:])+`\b`)
	}
	return regexp.MustCompile(`(?m)^\s*(?:` + strings.Join(alts, "|") + `)`)
}
