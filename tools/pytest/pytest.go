// Package pytest runs the Python tests that reach a change, with pytest,
// on the changed text, without writing it over the user's files.
//
// It runs where the project configures pytest: the nearest directory at
// or above a changed file, within the workspace, with a pytest.ini, a
// pyproject.toml with [tool.pytest.ini_options], a setup.cfg with
// [tool:pytest] or a tox.ini with [pytest] is the project, and pytest
// runs there as `python3 -m pytest` (the python3 on PATH, so an active
// virtual environment's). A project without that configuration is not
// tested: nothing else says how its tests are meant to run. pytest runs
// unittest's TestCase classes too, so they are covered where pytest is
// configured.
//
// Which tests reach a change is asked of the language server through the
// project graph (tools.ImpactFinder): the declarations enclosing the
// changed lines are the changed symbols; the functions that call them
// (incoming calls, or references where the server has no call hierarchy
// for the declaration) are asked about in turn, to a bounded depth, and
// those that are tests (test_* functions and Test* classes' test*
// methods in test_*.py or *_test.py files) are the ones to run. Where the
// graph cannot answer, or a change lies outside any declaration, the test
// files that import the changed module run whole.
//
// The proposed text is run in a mirror of the project: a temporary tree
// whose directories on the way to a changed file are made anew, holding
// the changed files' new text, and whose every other entry is a symbolic
// link to the user's. Nothing is written in the user's tree, bytecode and
// pytest's cache included; a test may still write where it likes, as a
// Go test may.
package pytest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/gotest"
	"github.com/reasonix/reasonix/tools/testrun"
)

// Command is what runs the tests, as a person would type it: the tests
// run only where the bash tool would run it without asking.
const Command = "python3 -m pytest"

// Bounds of a run beyond testrun.Options'.
const (
	// maxQueries bounds the questions to the language server a run asks.
	maxQueries = 40
	// maxDepth bounds how far from a changed symbol callers are followed.
	maxDepth = 4
)

// Runner is the Python runner; finder (nil for none) tells which tests
// reach a change.
func Runner(finder tools.ImpactFinder) testrun.Runner {
	return testrun.Runner{
		Command: Command,
		Matches: isPython,
		Configured: func(root string, changes []testrun.Change) bool {
			return slices.ContainsFunc(changes, func(c testrun.Change) bool {
				return isPython(c.Path) && projectDir(root, c.Path) != ""
			})
		},
		Run: func(ctx context.Context, opts testrun.Options, changes []testrun.Change) (testrun.Report, error) {
			return Run(ctx, opts, finder, changes)
		},
	}
}

func isPython(path string) bool { return strings.HasSuffix(path, ".py") }

// isTestFile reports whether path is a file pytest collects by default.
func isTestFile(path string) bool {
	base := filepath.Base(path)
	return isPython(base) && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"))
}

// projectDir returns the nearest directory from path's up to root that
// configures pytest, or "" when none does.
func projectDir(root, path string) string {
	root = filepath.Clean(root)
	for dir := filepath.Dir(path); within(root, dir); dir = filepath.Dir(dir) {
		if configures(dir) {
			return dir
		}
		if dir == root || dir == filepath.Dir(dir) {
			break
		}
	}
	return ""
}

// configs are the files that can configure pytest, with the section that
// does ("" for the file itself).
var configs = []struct{ file, section string }{
	{"pytest.ini", ""},
	{"pyproject.toml", "[tool.pytest.ini_options]"},
	{"setup.cfg", "[tool:pytest]"},
	{"tox.ini", "[pytest]"},
}

// configures reports whether dir holds a pytest configuration.
func configures(dir string) bool {
	for _, c := range configs {
		f, err := os.Open(filepath.Join(dir, c.file))
		if err != nil {
			continue
		}
		found := c.section == ""
		sc := bufio.NewScanner(f)
		for !found && sc.Scan() {
			found = strings.TrimSpace(sc.Text()) == c.section
		}
		f.Close()
		if found {
			return true
		}
	}
	return false
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Run finds the Python tests that reach changes and runs them on the
// changed texts. Files that are not Python, or in no project that
// configures pytest under opts.Root, are left out; a report with no
// Symbols means nothing to test.
func Run(ctx context.Context, opts testrun.Options, finder tools.ImpactFinder, changes []testrun.Change) (testrun.Report, error) {
	byDir := map[string][]testrun.Change{}
	var dirs []string
	for _, c := range changes {
		if !isPython(c.Path) || !within(opts.Root, c.Path) {
			continue
		}
		dir := projectDir(opts.Root, c.Path)
		if dir == "" {
			continue
		}
		if _, ok := byDir[dir]; !ok {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], c)
	}
	var rep testrun.Report
	if len(dirs) == 0 {
		return rep, nil
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = gotest.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	slices.Sort(dirs)
	for _, dir := range dirs {
		r, err := runProject(ctx, opts, finder, dir, byDir[dir])
		if err != nil {
			return rep, err
		}
		rep = testrun.Merge(rep, r)
	}
	return rep, nil
}

// runProject tests the changes of the project in dir.
func runProject(ctx context.Context, opts testrun.Options, finder tools.ImpactFinder, dir string, changes []testrun.Change) (testrun.Report, error) {
	var rep testrun.Report
	texts := map[string]string{}
	for _, c := range changes {
		if !c.Deleted {
			texts[c.Path] = c.After
		}
	}
	sel := selector{ctx: ctx, finder: finder, texts: texts, dir: dir, seen: map[string]bool{}}
	if err := sel.run(changes); err != nil {
		if ctx.Err() != nil {
			return rep, fmt.Errorf("pytest: finding the tests: %w", ctx.Err())
		}
		return rep, err
	}
	rep.Symbols = sel.symbols
	if len(rep.Symbols) == 0 {
		return rep, nil
	}
	var tests []test
	for _, t := range sel.tests {
		// A test in a file the change deletes is not there to run.
		if !slices.ContainsFunc(changes, func(c testrun.Change) bool {
			return c.Deleted && c.Path == filepath.Join(dir, filepath.FromSlash(t.file))
		}) {
			tests = append(tests, t)
		}
	}
	limit := opts.MaxTests
	if limit <= 0 {
		limit = gotest.DefaultMaxTests
	}
	if len(tests) > limit {
		rep.Left = len(tests) - limit
		tests = tests[:limit]
	}
	if len(tests) == 0 {
		return rep, nil
	}
	var err error
	rep.Outcomes, rep.Failure, err = runTests(ctx, opts, dir, changes, tests)
	if err != nil || rep.Failure != "" {
		return rep, err
	}
	if err := baseline(ctx, opts, dir, changes, tests, rep.Outcomes); err != nil && ctx.Err() != nil {
		return rep, err
	}
	return rep, nil
}

// baseline runs the tests with a failing outcome again, in a mirror of
// dir with the texts from before the changes, and marks the outcomes that
// failed there too as FailedBefore, as gotest's baseline does: only when
// something failed, and a baseline that cannot run (a collection error
// before the turn, say) leaves every failure new — failing toward a
// repair, never toward silence. A test in a file the changes created had
// no before: its failure is new.
func baseline(ctx context.Context, opts testrun.Options, dir string, changes []testrun.Change, tests []test, outcomes []testrun.Outcome) error {
	created := map[string]bool{}
	before := make([]testrun.Change, len(changes))
	for i, c := range changes {
		before[i] = testrun.Change{Path: c.Path, After: c.Before, Deleted: !c.BeforeExisted}
		if !c.BeforeExisted {
			created[c.Path] = true
		}
	}
	var failing []test
	for _, t := range tests {
		if created[filepath.Join(dir, filepath.FromSlash(t.file))] {
			continue
		}
		if slices.ContainsFunc(outcomes, func(o testrun.Outcome) bool { return !o.Passed && t.names(o) }) {
			failing = append(failing, t)
		}
	}
	if len(failing) == 0 {
		return nil
	}
	was, failure, err := runTests(ctx, opts, dir, before, failing)
	if err != nil || failure != "" {
		return err
	}
	for i, o := range outcomes {
		if !o.Passed && slices.ContainsFunc(was, func(w testrun.Outcome) bool {
			return w.Package == o.Package && w.Test == o.Test && !w.Passed
		}) {
			outcomes[i].FailedBefore = true
		}
	}
	return nil
}

// errNotInstalled says python3 has no pytest.
var errNotInstalled = errors.New("pytest is not installed for python3 (python3 -m pytest)")
