package pytest

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools/testrun"
)

// mirror makes under dst a tree that reads as the project directory dir
// with changes applied: the directories on the way to a changed file are
// made anew, the changed files hold their new text (a deleted one is
// absent), and every other entry is a symbolic link to the user's. The
// cost is one directory read per directory on those ways, however large
// the project. Bytecode and pytest's caches are left out, so stale ones
// are not read and new ones land nowhere in the user's tree.
func mirror(dst, dir string, changes []testrun.Change) error {
	own := map[string]bool{} // directories made anew, and the changed files
	for _, c := range changes {
		own[c.Path] = true
		for d := filepath.Dir(c.Path); within(dir, d); d = filepath.Dir(d) {
			own[d] = true
			if d == dir {
				break
			}
		}
	}
	var build func(src, dst string) error
	build = func(src, dst string) error {
		if err := os.MkdirAll(dst, 0o700); err != nil {
			return err
		}
		entries, err := os.ReadDir(src)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			p := filepath.Join(src, name)
			switch {
			case name == "__pycache__" || name == ".pytest_cache":
			case own[p] && e.IsDir():
				if err := build(p, filepath.Join(dst, name)); err != nil {
					return err
				}
			case own[p]: // a changed file: written below
			default:
				if err := os.Symlink(p, filepath.Join(dst, name)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := build(dir, dst); err != nil {
		return fmt.Errorf("pytest: mirroring the project: %w", err)
	}
	for _, c := range changes {
		if c.Deleted {
			continue
		}
		rel, err := filepath.Rel(dir, c.Path)
		if err != nil {
			return fmt.Errorf("pytest: %w", err)
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return fmt.Errorf("pytest: mirroring the project: %w", err)
		}
		if err := os.WriteFile(p, []byte(c.After), 0o600); err != nil {
			return fmt.Errorf("pytest: writing the proposed text: %w", err)
		}
	}
	return nil
}

// runTests runs tests in a mirror of dir with changes applied, and
// returns their outcomes, or why none could be had.
func runTests(ctx context.Context, opts testrun.Options, dir string, changes []testrun.Change, tests []test) ([]testrun.Outcome, string, error) {
	tmp, err := os.MkdirTemp("", "reasonix-pytest-")
	if err != nil {
		return nil, "", fmt.Errorf("pytest: %w", err)
	}
	defer os.RemoveAll(tmp)
	tree := filepath.Join(tmp, "tree")
	if err := mirror(tree, dir, changes); err != nil {
		return nil, "", err
	}
	report := filepath.Join(tmp, "report.xml")
	args := []string{"-m", "pytest", "-p", "no:cacheprovider", "-q", "--tb=short",
		"-o", "junit_family=xunit1", "--junitxml=" + report}
	for _, t := range tests {
		args = append(args, t.nodeID())
	}
	var out, errb bytes.Buffer
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	python, venv := interpreter(env, opts.Root, dir)
	cmd := exec.Command(python, args...)
	if cmd.Err != nil {
		return nil, "", fmt.Errorf("pytest: %w", cmd.Err)
	}
	cmd.Dir = tree
	cmd.Env = environ(activate(env, venv), tree)
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := testrun.Exec(ctx, opts, cmd)
	if ctx.Err() != nil {
		return nil, "", fmt.Errorf("pytest: %w", ctx.Err())
	}
	data, err := os.ReadFile(report)
	if err != nil {
		if strings.Contains(errb.String(), "No module named pytest") {
			return nil, "", errNotInstalled
		}
		why := complaint(errb.String())
		if why == "" {
			why = firstLine(out.String())
		}
		if why == "" && runErr != nil {
			why = runErr.Error()
		}
		// Not the change's doing (a usage error, a plugin the
		// configuration names missing): the tests did not run.
		return nil, "", fmt.Errorf("pytest ran no tests: %s", why)
	}
	outcomes, failure, err := readReport(data, tests)
	return outcomes, failure, err
}

// interpreter returns the python3 that runs the tests of the project in
// dir: the one on PATH where a virtual environment is active, else that
// of the nearest virtual environment (.venv or venv, with its
// pyvenv.cfg) in dir or a directory above it within root, whose
// directory is venv — the environment the user would activate before
// running pytest, with the project's dependencies. Without either it is
// python3 from PATH.
func interpreter(env []string, root, dir string) (python, venv string) {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "VIRTUAL_ENV="); ok && v != "" {
			return "python3", ""
		}
	}
	for d := dir; within(root, d); d = filepath.Dir(d) {
		for _, name := range []string{".venv", "venv"} {
			v := filepath.Join(d, name)
			python := filepath.Join(v, "bin", "python3")
			if runtime.GOOS == "windows" {
				python = filepath.Join(v, "Scripts", "python.exe")
			}
			if _, err := os.Stat(filepath.Join(v, "pyvenv.cfg")); err != nil {
				continue
			}
			if fi, err := os.Stat(python); err == nil && !fi.IsDir() {
				return python, v
			}
		}
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	return "python3", ""
}

// activate is env as the virtual environment venv's activation script
// leaves it: VIRTUAL_ENV set and its scripts first on PATH, so that what
// the tests start finds the environment's programs. An empty venv leaves
// env as it is.
func activate(env []string, venv string) []string {
	if venv == "" {
		return env
	}
	bin := filepath.Join(venv, "bin")
	if runtime.GOOS == "windows" {
		bin = filepath.Join(venv, "Scripts")
	}
	out := []string{"VIRTUAL_ENV=" + venv}
	path := bin
	for _, kv := range env {
		switch k, v, _ := strings.Cut(kv, "="); k {
		case "PATH":
			path += string(os.PathListSeparator) + v
		case "VIRTUAL_ENV", "PYTHONHOME":
		default:
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+path)
}

// environ is env (nil: the process's) for a run in tree: no bytecode
// written, and tree (and its src directory) first on the import path, so
// the changed modules are imported from it even where the project is
// installed into the environment.
func environ(env []string, tree string) []string {
	if env == nil {
		env = os.Environ()
	}
	path := []string{tree}
	if fi, err := os.Stat(filepath.Join(tree, "src")); err == nil && fi.IsDir() {
		path = append(path, filepath.Join(tree, "src"))
	}
	var out []string
	for _, kv := range env {
		switch k, v, _ := strings.Cut(kv, "="); k {
		case "PYTHONPATH":
			if v != "" {
				path = append(path, v)
			}
		case "PWD", "PYTHONDONTWRITEBYTECODE":
		default:
			out = append(out, kv)
		}
	}
	return append(out, "PWD="+tree, "PYTHONDONTWRITEBYTECODE=1",
		"PYTHONPATH="+strings.Join(path, string(os.PathListSeparator)))
}

// A junit report, as pytest writes it with junit_family=xunit1.
type junit struct {
	Cases []junitCase `xml:"testsuite>testcase"`
}

type junitCase struct {
	Class   string        `xml:"classname,attr"`
	Name    string        `xml:"name,attr"`
	Failure *junitFailure `xml:"failure"`
	Error   *junitFailure `xml:"error"`
	Skipped *junitFailure `xml:"skipped"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// readReport reads the outcomes of tests from a junit report, in the
// order of tests; a test file that fails to import gives the failure.
// A selected whole file gives an outcome per test it holds.
func readReport(data []byte, tests []test) ([]testrun.Outcome, string, error) {
	var j junit
	if err := xml.Unmarshal(data, &j); err != nil {
		return nil, "", fmt.Errorf("pytest: reading the report: %w", err)
	}
	failure := ""
	var outs []testrun.Outcome
	for _, t := range tests {
		module := strings.ReplaceAll(strings.TrimSuffix(t.file, ".py"), "/", ".")
		for _, c := range j.Cases {
			if c.Class == "" && c.Name == module && c.Error != nil && failure == "" {
				// A collection error: pytest names the module as the case.
				failure = "collecting " + t.file + " fails: " + lastError(c.Error.Text, c.Error.Message)
				continue
			}
			name := c.Name
			if t.name != "" {
				base, _, _ := strings.Cut(c.Name, "[") // a parametrized case is its test's
				want := module
				if t.class != "" {
					want += "." + t.class
				}
				if c.Class != want || base != t.name {
					continue
				}
				name = t.name
			} else if c.Class != module && !strings.HasPrefix(c.Class, module+".") {
				continue
			} else if cls := strings.TrimPrefix(c.Class, module); cls != "" {
				name = cls[1:] + "." + c.Name
			}
			if t.class != "" {
				name = t.class + "." + name
			}
			if c.Skipped != nil && c.Failure == nil && c.Error == nil {
				continue
			}
			o := testrun.Outcome{Package: t.file, Test: name, Passed: c.Failure == nil && c.Error == nil}
			if f := cmpOr(c.Failure, c.Error); f != nil {
				o.Why = why(f)
			}
			if i := slices.IndexFunc(outs, func(x testrun.Outcome) bool { return x.Package == o.Package && x.Test == o.Test }); i >= 0 {
				if outs[i].Passed && !o.Passed {
					outs[i] = o // a failing case of a parametrized test is its outcome
				}
				continue
			}
			outs = append(outs, o)
		}
	}
	return outs, failure, nil
}

func cmpOr(a, b *junitFailure) *junitFailure {
	if a != nil {
		return a
	}
	return b
}

// frameLine matches a frame of a short traceback: "tests/test_calc.py:10: in test_twice".
var frameLine = regexp.MustCompile(`(?m)^(\S+\.py):(\d+): in `)

// why says a test's failure in a line: where the test failed and the
// first line of the message ("test_calc.py:10: assert 5 == 4").
func why(f *junitFailure) string {
	msg := firstLine(f.Message)
	if m := frameLine.FindStringSubmatch(f.Text); m != nil {
		return filepath.Base(m[1]) + ":" + m[2] + ": " + msg
	}
	return msg
}

// lastError is the last "E" line of a failure's text (the exception a
// module raised on import), else its message.
func lastError(text, msg string) string {
	last := ""
	for _, l := range strings.Split(text, "\n") {
		if s, ok := strings.CutPrefix(l, "E "); ok && strings.TrimSpace(s) != "" {
			last = strings.TrimSpace(s)
		}
	}
	if last == "" {
		return firstLine(msg)
	}
	return last
}

// complaint picks from pytest's error output the line that says what is
// wrong: the last that names an error ("__main__.py: error: unrecognized
// arguments: --cov"), below the usage line, else the first.
func complaint(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.Contains(strings.ToLower(l), "error:") && !strings.HasPrefix(l, "ERROR: usage:") {
			return l
		}
	}
	return strings.TrimSpace(lines[0])
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	l, _, _ := strings.Cut(s, "\n")
	return l
}
