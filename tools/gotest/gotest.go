// Package gotest runs the Go tests that reach a change, on the changed
// text, without writing it: the texts go to a private directory and `go
// test -overlay` reads them in place of the files, so the user's files are
// never touched while the build cache is shared.
//
// Which tests reach a change is decided from the syntax alone: the
// top-level declarations whose text differs are the changed symbols; in
// their package a function reaches them when its body names one of them
// or a function that does, by name, transitively; in the packages of the
// module that import it, directly or through other importers, the same,
// with the reaching functions of the packages they import as the names
// to find. The module is the nearest go.mod above the changed file. A
// name shared by unrelated declarations makes a test run that did not
// need to, never one left out that a call by that name reaches; calls
// through interfaces or function values are not followed.
package gotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Defaults of a run.
const (
	// DefaultMaxTests caps the tests one run selects.
	DefaultMaxTests = 20
	// DefaultTimeout bounds one run, listing and building included.
	DefaultTimeout = 60 * time.Second
)

// A Change is one file's text before and after.
type Change struct {
	// Path is absolute.
	Path string
	// Before is the text before; BeforeExisted says whether there was one.
	Before        string
	BeforeExisted bool
	// After is the proposed text; Deleted says the file goes.
	After   string
	Deleted bool
}

// Options say where and how to run.
type Options struct {
	// Root is the workspace root: changes outside it are left out, and
	// each one's module is the nearest go.mod above it, within Root.
	Root string
	// dir is the module directory the go commands run in; Run sets it.
	dir string
	// Run starts cmd (built, with its output set) and waits for it; it
	// must stop it when ctx ends. Nil runs it with os/exec.
	Run func(ctx context.Context, cmd *exec.Cmd) error
	// Env is the environment of the go commands; nil is os.Environ().
	Env []string
	// MaxTests caps the selected tests; 0 means DefaultMaxTests.
	MaxTests int
	// Timeout bounds the run; 0 means DefaultTimeout.
	Timeout time.Duration
}

// An Outcome is one test's result.
type Outcome struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	// Passed, or else Why holds the first line of its failure output
	// ("calc_test.go:12: Twice(2) = 5, want 4").
	Passed bool   `json:"passed"`
	Why    string `json:"why,omitempty"`
	// FailedBefore says a failed test failed on the texts from before the
	// changes too: not something they broke.
	FailedBefore bool `json:"failedBefore,omitempty"`
}

// A Report is what a run found.
type Report struct {
	// Symbols are the changed declarations ("func Add", "func T.M").
	Symbols []string `json:"symbols,omitempty"`
	// Outcomes are the tests run, in the order they were selected.
	Outcomes []Outcome `json:"outcomes,omitempty"`
	// Failure is set when the tests could not run to an outcome: the
	// package does not build, or the run timed out.
	Failure string `json:"failure,omitempty"`
	// Left says how many reaching tests the cap left out.
	Left int `json:"left,omitempty"`
	// Proposed says the texts tested are proposals not accepted yet,
	// which Summary says; the caller sets it.
	Proposed bool `json:"proposed,omitempty"`
}

// Failed reports whether any test failed or the run itself did.
func (r Report) Failed() bool {
	return r.Failure != "" || slices.ContainsFunc(r.Outcomes, func(o Outcome) bool { return !o.Passed })
}

// Regressed reports whether the changes broke something: a test failed
// that did not fail before them, or the run itself failed.
func (r Report) Regressed() bool {
	return r.Failure != "" || slices.ContainsFunc(r.Outcomes, Outcome.broken)
}

// Regressions is r with only the outcomes of the tests the changes broke.
func (r Report) Regressions() Report {
	r.Outcomes = slices.DeleteFunc(slices.Clone(r.Outcomes), func(o Outcome) bool { return !o.broken() })
	r.Left = 0
	return r
}

func (o Outcome) broken() bool { return !o.Passed && !o.FailedBefore }

// Summary says the outcome in one line per test, of accepting the
// proposal when the texts are Proposed: "TestAdd passes if accepted",
// "TestTwice fails if accepted: calc_test.go:12: Twice(2) = 5, want 4",
// "TestAdd fails (already failing before this turn): …", "no tests reach
// func Add". Empty when nothing changed that a test
// could reach.
func (r Report) Summary() string {
	if len(r.Symbols) == 0 {
		return ""
	}
	cond := ""
	if r.Proposed {
		cond = " if accepted"
	}
	if r.Failure != "" {
		return "tests of " + strings.Join(r.Symbols, ", ") + " cannot run" + cond + ": " + r.Failure
	}
	if len(r.Outcomes) == 0 {
		return "no tests reach " + strings.Join(r.Symbols, ", ")
	}
	var lines []string
	for _, o := range r.Outcomes {
		if o.Passed {
			lines = append(lines, o.Test+" passes"+cond)
			continue
		}
		l := o.Test + " fails" + cond
		if o.FailedBefore {
			l += " (already failing before this turn)"
		}
		if o.Why != "" {
			l += ": " + o.Why
		}
		lines = append(lines, l)
	}
	if r.Left > 0 {
		lines = append(lines, fmt.Sprintf("%d more reaching tests not run", r.Left))
	}
	return strings.Join(lines, "\n")
}

// Run finds the tests that reach changes and runs them on the changed
// texts, in the module of each changed file: the nearest directory with a
// go.mod above it, within opts.Root. Files that are not Go, not under
// opts.Root or in no module there are left out; a report with no Symbols
// means nothing to test.
func Run(ctx context.Context, opts Options, changes []Change) (Report, error) {
	var rep Report
	byModule := map[string][]Change{} // module directory → its changes
	var modules []string
	for _, c := range changes {
		if !strings.HasSuffix(c.Path, ".go") || !within(opts.Root, c.Path) {
			continue
		}
		mod := moduleOf(opts.Root, c.Path)
		if mod == "" {
			continue // in no module: nothing this runs
		}
		if _, ok := byModule[mod]; !ok {
			modules = append(modules, mod)
		}
		byModule[mod] = append(byModule[mod], c)
	}
	if len(modules) == 0 {
		return rep, nil
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	limit := opts.MaxTests
	if limit <= 0 {
		limit = DefaultMaxTests
	}

	tmp, err := os.MkdirTemp("", "reasonix-gotest-")
	if err != nil {
		return rep, fmt.Errorf("gotest: %w", err)
	}
	defer os.RemoveAll(tmp)
	for i, mod := range modules {
		dir := filepath.Join(tmp, fmt.Sprint(i))
		if err := os.Mkdir(dir, 0o700); err != nil {
			return rep, fmt.Errorf("gotest: %w", err)
		}
		m := opts
		m.dir = mod
		m.MaxTests = max(limit-len(rep.Outcomes), 0)
		r, err := runModule(ctx, m, dir, byModule[mod])
		rep.Symbols = append(rep.Symbols, r.Symbols...)
		rep.Outcomes = append(rep.Outcomes, r.Outcomes...)
		rep.Left += r.Left
		if rep.Failure == "" {
			rep.Failure = r.Failure
		}
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// moduleOf returns the directory of the nearest go.mod above path, within
// root, or "" when there is none.
func moduleOf(root, path string) string {
	for dir := filepath.Dir(path); within(root, dir); dir = filepath.Dir(dir) {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !st.IsDir() {
			return dir
		}
		if dir == root || dir == filepath.Dir(dir) {
			break
		}
	}
	return ""
}

// runModule runs the tests of opts.dir's module that reach changes, with
// tmp for the overlays; opts.MaxTests is its share of the cap (0 runs none
// and counts them left).
func runModule(ctx context.Context, opts Options, tmp string, changes []Change) (Report, error) {
	var rep Report
	changed := map[string][]string{} // directory → changed names
	for _, c := range changes {
		names, descs := changedDecls(c)
		dir := filepath.Dir(c.Path)
		changed[dir] = append(changed[dir], names...)
		for _, d := range descs {
			if !slices.Contains(rep.Symbols, d) {
				rep.Symbols = append(rep.Symbols, d)
			}
		}
	}
	if len(rep.Symbols) == 0 {
		return rep, nil
	}
	overlay, texts, names, err := writeOverlay(tmp, opts.Root, changes)
	if err != nil {
		return rep, err
	}
	pkgs, err := list(ctx, opts, overlay)
	if err != nil {
		return rep, err
	}
	tests := selectTests(pkgs, changed, texts)
	if len(tests) > opts.MaxTests {
		rep.Left = len(tests) - opts.MaxTests
		tests = tests[:opts.MaxTests]
	}
	if len(tests) == 0 {
		return rep, nil
	}
	rep.Outcomes, rep.Failure, err = runTests(ctx, opts, overlay, tests)
	rep.Failure = names.Replace(rep.Failure)
	if err != nil || rep.Failure != "" {
		return rep, err
	}
	if err := baseline(ctx, opts, filepath.Join(tmp, "before"), changes, rep.Outcomes); err != nil && ctx.Err() != nil {
		return rep, err
	}
	return rep, nil
}

// baseline runs the tests of outcomes that failed again, on the texts
// from before the changes (the same overlay, of the other texts), and
// marks those that failed there too as FailedBefore. It runs only when
// something failed: most runs pass, and a second run of every selected
// test alongside the first would double the compiling on every turn for
// an answer needed only on failure. A baseline that cannot run leaves
// every failure new: failing toward a repair, never toward silence.
func baseline(ctx context.Context, opts Options, dir string, changes []Change, outcomes []Outcome) error {
	var failing []test
	for _, o := range outcomes {
		if !o.Passed {
			failing = append(failing, test{pkg: o.Package, name: o.Test})
		}
	}
	if len(failing) == 0 {
		return nil
	}
	before := make([]Change, len(changes))
	for i, c := range changes {
		before[i] = Change{Path: c.Path, After: c.Before, Deleted: !c.BeforeExisted}
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("gotest: %w", err)
	}
	overlay, _, _, err := writeOverlay(dir, opts.Root, before)
	if err != nil {
		return err
	}
	was, failure, err := runTests(ctx, opts, overlay, failing)
	if err != nil || failure != "" {
		return err
	}
	for i, o := range outcomes {
		if !o.Passed && slices.ContainsFunc(was, func(w Outcome) bool {
			return w.Package == o.Package && w.Test == o.Test && !w.Passed
		}) {
			outcomes[i].FailedBefore = true
		}
	}
	return nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// changedDecls returns the names of the top-level declarations whose
// text differs between c's texts, and their descriptions ("func Add").
// A text that does not parse counts as far as it does.
func changedDecls(c Change) (names, descs []string) {
	before := map[string]string{}
	if c.BeforeExisted {
		before = decls(c.Before)
	}
	after := map[string]string{}
	if !c.Deleted {
		after = decls(c.After)
	}
	var keys []string
	for k, v := range after {
		if b, ok := before[k]; !ok || b != v {
			keys = append(keys, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		kind, name, _ := strings.Cut(k, " ")
		descs = append(descs, k)
		if kind == "func" {
			if _, m, ok := strings.Cut(name, "."); ok {
				name = m
			}
		}
		names = append(names, name)
	}
	return names, descs
}

// decls maps each top-level declaration of src ("func Add", "func
// T.M", "type T", "var x") to its text.
func decls(src string) map[string]string {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, "x.go", src, parser.SkipObjectResolution)
	out := map[string]string{}
	if f == nil {
		return out
	}
	text := func(n ast.Node) string {
		s, e := fset.Position(n.Pos()).Offset, fset.Position(n.End()).Offset
		if s < 0 || e > len(src) || s > e {
			return ""
		}
		return src[s:e]
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			out["func "+funcKey(d)] = text(d)
		case *ast.GenDecl:
			kind := d.Tok.String()
			if kind == "import" {
				continue
			}
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out["type "+s.Name.Name] = text(s)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							out[kind+" "+n.Name] = text(s)
						}
					}
				}
			}
		}
	}
	return out
}

// funcKey names a function "Add", a method "T.M".
func funcKey(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		}
		break
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

// writeOverlay writes the changed texts under dir and returns the
// overlay file for `go -overlay`, the texts by path for parsing, and a
// replacer that gives a compiler's message the files' own names back.
func writeOverlay(dir, root string, changes []Change) (string, map[string]string, *strings.Replacer, error) {
	replace := map[string]string{}
	var back []string
	texts := map[string]string{}
	for i, c := range changes {
		if c.Deleted {
			replace[c.Path] = "" // the overlay's way to say the file is gone
			texts[c.Path] = ""
			continue
		}
		p := filepath.Join(dir, fmt.Sprintf("%d_%s", i, filepath.Base(c.Path)))
		if err := os.WriteFile(p, []byte(c.After), 0o600); err != nil {
			return "", nil, nil, fmt.Errorf("gotest: writing the proposed text: %w", err)
		}
		replace[c.Path] = p
		rel, err := filepath.Rel(root, c.Path)
		if err != nil {
			rel = c.Path
		}
		back = append(back, p, rel)
		texts[c.Path] = c.After
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", nil, nil, fmt.Errorf("gotest: %w", err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, data, 0o600); err != nil {
		return "", nil, nil, fmt.Errorf("gotest: writing the overlay: %w", err)
	}
	return overlay, texts, strings.NewReplacer(back...), nil
}

// A pkg is what `go list` says of one package.
type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// list lists the module's packages as the overlay makes them.
func list(ctx context.Context, opts Options, overlay string) ([]pkg, error) {
	var out, errb bytes.Buffer
	cmd := goCommand(opts, "list", "-e", "-overlay="+overlay,
		"-json=ImportPath,Dir,GoFiles,TestGoFiles,XTestGoFiles,Imports,TestImports,XTestImports", "./...")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := run(ctx, opts, cmd); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("gotest: listing packages: %w", ctx.Err())
		}
		return nil, fmt.Errorf("gotest: go list: %w: %s", err, firstLine(errb.String()))
	}
	var pkgs []pkg
	dec := json.NewDecoder(&out)
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("gotest: reading go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// A test is one selected test function.
type test struct {
	pkg  string // import path
	name string
}

// selectTests returns the tests that reach the changed names: in the
// changed packages, then in the packages that import them, directly or
// through other importers, nearest first (then in list order). What a
// package passes on to its importers is the set of its functions that
// reach, through its non-test imports, a name passed on to it; a package
// that uses none passes nothing, so the walk stops where the changes stop
// mattering, and only the packages that import one that passes something
// on are parsed.
func selectTests(pkgs []pkg, changed map[string][]string, texts map[string]string) []test {
	graphs := map[string]graph{} // import path → its parsed graph
	graphOf := func(p pkg) graph {
		g, ok := graphs[p.ImportPath]
		if !ok {
			g = nameGraph(p, texts)
			graphs[p.ImportPath] = g
		}
		return g
	}
	// First what each package passes on, dependencies first: non-test
	// imports have no cycles, and a package's importers come after it.
	reach := map[string][]string{} // import path → what it passes on
	depth := map[string]int{}      // import path → importers away from a change
	for _, p := range importOrder(pkgs) {
		if names, ok := changed[p.Dir]; ok {
			reach[p.ImportPath] = graphOf(p).reaching(names)
			continue
		}
		var passed []string
		for _, i := range p.Imports {
			if r := reach[i]; len(r) > 0 {
				passed = append(passed, r...)
				if d := depth[i] + 1; depth[p.ImportPath] == 0 || d < depth[p.ImportPath] {
					depth[p.ImportPath] = d
				}
			}
		}
		if len(passed) > 0 {
			reach[p.ImportPath] = graphOf(p).reaching(passed)
		}
	}
	// Then the tests, whose files may import any of them.
	type found struct {
		depth, index int
		tests        []test
	}
	var all []found
	for i, p := range pkgs {
		if _, ok := changed[p.Dir]; ok {
			all = append(all, found{0, i, graphOf(p).testsReaching(reach[p.ImportPath], p.ImportPath)})
			continue
		}
		var targets []string
		d := 0
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if r := reach[imp]; len(r) > 0 {
				targets = append(targets, r...)
				if x := depth[imp] + 1; d == 0 || x < d {
					d = x
				}
			}
		}
		if len(targets) > 0 {
			g := graphOf(p)
			all = append(all, found{d, i, g.testsReaching(g.reaching(targets), p.ImportPath)})
		}
	}
	slices.SortStableFunc(all, func(a, b found) int { return a.depth - b.depth })
	var out []test
	for _, f := range all {
		out = append(out, f.tests...)
	}
	return out
}

// importOrder returns pkgs with every package after the packages of pkgs
// it imports (test imports aside), else in list order.
func importOrder(pkgs []pkg) []pkg {
	byPath := map[string]pkg{}
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	seen := map[string]bool{}
	var out []pkg
	var visit func(p pkg)
	visit = func(p pkg) {
		if seen[p.ImportPath] {
			return
		}
		seen[p.ImportPath] = true // before the imports: a cycle (a broken build) ends here
		for _, i := range p.Imports {
			if q, ok := byPath[i]; ok {
				visit(q)
			}
		}
		out = append(out, p)
	}
	for _, p := range pkgs {
		visit(p)
	}
	return out
}

// A graph maps each top-level function of a package (with its tests) to
// the names its body uses.
type graph struct {
	uses  map[string][]string
	tests []string // Test functions, in file order
}

func nameGraph(p pkg, texts map[string]string) graph {
	g := graph{uses: map[string][]string{}}
	files := slices.Concat(p.GoFiles, p.TestGoFiles, p.XTestGoFiles)
	fset := token.NewFileSet()
	for _, name := range files {
		path := filepath.Join(p.Dir, name)
		var src any
		if t, ok := texts[path]; ok {
			src = t
		}
		f, _ := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if f == nil {
			continue
		}
		isTest := strings.HasSuffix(name, "_test.go")
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			key := fd.Name.Name
			if fd.Recv == nil && isTest && isTestFunc(fd) {
				g.tests = append(g.tests, key)
			}
			var used []string
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					used = append(used, id.Name)
				}
				return true
			})
			g.uses[key] = append(g.uses[key], used...)
		}
	}
	return g
}

// isTestFunc reports whether d is func TestXxx(t *testing.T).
func isTestFunc(d *ast.FuncDecl) bool {
	n := d.Name.Name
	if !strings.HasPrefix(n, "Test") || n == "TestMain" {
		return false
	}
	if len(n) > 4 {
		if r := n[4]; r >= 'a' && r <= 'z' {
			return false
		}
	}
	return d.Type.Params != nil && len(d.Type.Params.List) == 1
}

// reaching returns targets and every function that names one of them or
// one that does, transitively.
func (g graph) reaching(targets []string) []string {
	in := map[string]bool{}
	for _, t := range targets {
		in[t] = true
	}
	for grew := true; grew; {
		grew = false
		for fn, used := range g.uses {
			if in[fn] {
				continue
			}
			if slices.ContainsFunc(used, func(u string) bool { return in[u] }) {
				in[fn], grew = true, true
			}
		}
	}
	out := make([]string, 0, len(in))
	for n := range in {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (g graph) testsReaching(reach []string, importPath string) []test {
	var out []test
	for _, t := range g.tests {
		if slices.Contains(reach, t) && !slices.ContainsFunc(out, func(x test) bool { return x.name == t }) {
			out = append(out, test{pkg: importPath, name: t})
		}
	}
	return out
}
