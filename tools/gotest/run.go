package gotest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// goCommand builds a go command in the module's directory.
func goCommand(opts Options, args ...string) *exec.Cmd {
	dir := opts.dir
	if dir == "" {
		dir = opts.Root
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.Clone(env), "PWD="+dir)
	return cmd
}

// run runs cmd with opts.Run, or os/exec stopped when ctx ends.
func run(ctx context.Context, opts Options, cmd *exec.Cmd) error {
	if opts.Run != nil {
		return opts.Run(ctx, cmd)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return ctx.Err()
	}
}

// Exec runs cmd as Run runs its commands: with opts.Run, or os/exec
// stopped when ctx ends. Runners of other languages start theirs with it.
func Exec(ctx context.Context, opts Options, cmd *exec.Cmd) error { return run(ctx, opts, cmd) }

// An event is one line of `go test -json`.
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
}

// runTests runs tests with the overlay and returns their outcomes, or why
// none could be had.
func runTests(ctx context.Context, opts Options, overlay string, tests []test) ([]Outcome, string, error) {
	var names, pkgs []string
	for _, t := range tests {
		if !slices.Contains(names, t.name) {
			names = append(names, regexp.QuoteMeta(t.name))
		}
		if !slices.Contains(pkgs, t.pkg) {
			pkgs = append(pkgs, t.pkg)
		}
	}
	args := append([]string{"test", "-overlay=" + overlay, "-count=1", "-json",
		"-run", "^(" + strings.Join(names, "|") + ")$"}, pkgs...)
	var out, errb bytes.Buffer
	cmd := goCommand(opts, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := run(ctx, opts, cmd)
	if ctx.Err() != nil {
		return nil, "", fmt.Errorf("gotest: go test: %w", ctx.Err())
	}
	outcomes, failure := readEvents(out.Bytes(), tests)
	if len(outcomes) == 0 && failure == "" && err != nil {
		failure = firstLine(errb.String())
		if failure == "" {
			failure = err.Error()
		}
	}
	return outcomes, failure, nil
}

// readEvents reads the outcomes of tests from `go test -json` output, in
// the order of tests; a package that did not build gives the failure.
func readEvents(data []byte, tests []test) ([]Outcome, string) {
	type key struct{ pkg, test string }
	output := map[key][]string{}
	result := map[key]string{}
	var buildOut []string
	failure := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			buildOut = append(buildOut, e.Output)
		case "output":
			if e.Test != "" {
				output[k] = append(output[k], e.Output)
			}
		case "pass", "fail", "skip":
			if e.Test != "" {
				result[k] = e.Action
			} else if e.Action == "fail" && e.FailedBuild != "" && failure == "" {
				failure = "the package does not build: " + buildError(buildOut)
			}
		}
	}
	var outs []Outcome
	for _, t := range tests {
		k := key{t.pkg, t.name}
		r, ok := result[k]
		if !ok || r == "skip" {
			continue
		}
		o := Outcome{Package: t.pkg, Test: t.name, Passed: r == "pass"}
		if !o.Passed {
			o.Why = failureLine(output[k])
		}
		outs = append(outs, o)
	}
	return outs, failure
}

// failureLine picks the first line a failed test logged
// ("calc_test.go:12: Twice(2) = 5, want 4"), else its panic.
func failureLine(lines []string) string {
	for _, l := range lines {
		s := strings.TrimSpace(l)
		if s == "" || strings.HasPrefix(s, "=== ") || strings.HasPrefix(s, "--- ") {
			continue
		}
		return s
	}
	return ""
}

// buildError picks the first compiler error of a failed build.
func buildError(lines []string) string {
	for _, l := range lines {
		s := strings.TrimSpace(l)
		if s != "" && !strings.HasPrefix(s, "#") {
			return s
		}
	}
	return "see go build"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	l, _, _ := strings.Cut(s, "\n")
	return l
}
