package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/sandbox"
	"github.com/reasonix/reasonix/tools/testrun"
)

// Tested before shown: once the check finds no new errors, the tests
// that reach the turn's changes run on the changed text, each language's
// with its runner (check_tests_runners.go): Go's laid over the files with
// `go test -overlay` (tools/gotest), Python's in a mirror of the project
// (tools/pytest), so nothing is written and proposed text counts as it
// would once accepted. Running them runs the project's code, so it
// happens only where the bash tool would run the runner's command
// without asking, and in the same sandbox. A Go test that fails is
// run once more on the text from before the turn (gotest's baseline):
// one that failed there too is said to be already failing and left
// alone. A test the turn broke gets the model the same one repair round
// as a new error. The outcome is the turn's (TurnResult.Tests) and an
// EventCheck.

// testEdits runs the tests that reach the turn's changes, with each
// language's runner (testRunners) that has changes to test, and puts
// their reports together. It returns nil when the run is off or nothing
// was tested.
func (t *turn) testEdits(ctx context.Context) *testrun.Report {
	a := t.a
	if !a.TestEdits || t.nested || a.Env == nil {
		return nil
	}
	var out *testrun.Report
	for _, r := range t.testRunners() {
		rep := t.runTests(ctx, r)
		if rep == nil {
			continue
		}
		if out == nil {
			out = rep
			continue
		}
		merged := testrun.Merge(*out, *rep)
		out = &merged
	}
	return out
}

// runTests runs the tests of r that reach the turn's changes. It returns
// nil when none of the changes is r's, the project is not set up for r,
// running them is not allowed unasked (with an event saying so), or the
// run failed to start.
func (t *turn) runTests(ctx context.Context, r testrun.Runner) *testrun.Report {
	a := t.a
	var changes []testrun.Change
	for _, c := range t.changes() {
		if !r.Matches(c.Abs) || (c.BeforeExisted && !c.BeforeKnown) || a.Env.CheckReadUnasked(c.Abs) != nil {
			// A test's output may quote the file: not of one the model
			// may not read unasked.
			continue
		}
		changes = append(changes, testrun.Change{
			Path: c.Abs, Before: string(c.BeforeData), BeforeExisted: c.BeforeExisted,
			After: string(c.After), Deleted: c.Status == FileDeleted,
		})
	}
	if len(changes) == 0 || (r.Configured != nil && !r.Configured(a.Env.Root, changes)) {
		return nil
	}
	if !t.mayRunTests(r.Command) {
		t.event(Event{Kind: EventCheck, Text: "tests not run: running `" + r.Command + "` needs a person's approval here; allow " + testRule(r.Command) + " to have them run"})
		return nil
	}
	procs := a.Env.Procs
	if j, ok := a.Env.Jail.(*sandbox.Jail); procs == nil && ok && j != nil {
		h := sandbox.NewHost(j)
		defer h.Close()
		procs = h
	}
	opts := testrun.Options{
		Root:    a.Env.Root,
		Env:     tools.WithoutVars(os.Environ(), a.Env.HideEnv),
		Timeout: a.TestTimeout,
	}
	if procs != nil {
		confine := a.Env.Jail != nil
		opts.Run = func(ctx context.Context, cmd *exec.Cmd) error { return runUnit(ctx, procs, cmd, confine) }
	}
	rep, err := r.Run(ctx, opts, changes)
	if err != nil {
		slog.Info("the tests of the turn's edits were skipped", "session", t.s.ID, "command", r.Command, "err", err)
		if ctx.Err() == nil {
			t.event(Event{Kind: EventCheck, Text: "tests not run: " + err.Error()})
		}
		return nil
	}
	if len(rep.Symbols) == 0 {
		return nil
	}
	rep.Proposed = a.Env.Proposes()
	slog.Info("tested the turn's edits", "session", t.s.ID, "command", r.Command, "tests", len(rep.Outcomes), "failed", rep.Failed(), "regressed", rep.Regressed())
	return &rep
}

// mayRunTests reports whether the tests may run with no one asked: where
// the bash tool would run command without a question. A gate that
// cannot say is taken as no.
func (t *turn) mayRunTests(command string) bool {
	g, ok := t.a.Gate.(interface {
		AllowsUnasked(permission.Request) bool
	})
	if !ok {
		return false
	}
	args, _ := json.Marshal(map[string]string{"command": command})
	return g.AllowsUnasked(permission.Request{SessionID: t.s.ID, Tool: "bash", Args: args})
}

// testRule is the allow rule that lets command run unasked
// (`Bash(go test:*)`).
func testRule(command string) string {
	args, _ := json.Marshal(map[string]string{"command": command})
	return permission.Scope("bash", args)
}

// runUnit runs cmd as a unit of procs, stopped when ctx ends.
func runUnit(ctx context.Context, procs tools.ProcessHost, cmd *exec.Cmd, confine bool) error {
	// The host's Wait ends with the process, not with exec's copying of
	// its output into cmd's writers: the output comes through pipes of
	// our own, read to their end before the caller reads the writers.
	var copies sync.WaitGroup
	var readers, writers []*os.File
	defer func() {
		for _, f := range slices.Concat(readers, writers) {
			f.Close()
		}
	}()
	for _, out := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		if *out == nil {
			continue
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			return err
		}
		readers, writers = append(readers, pr), append(writers, pw)
		w := *out
		*out = pw
		copies.Go(func() { _, _ = io.Copy(w, pr) })
	}
	proc, err := procs.Start(cmd, confine)
	for _, pw := range writers {
		pw.Close() // the child holds its own copies
	}
	writers = nil
	if err != nil {
		return err
	}
	done := make(chan tools.ExitStatus, 1)
	go func() { done <- proc.Wait() }()
	var st tools.ExitStatus
	select {
	case st = <-done:
	case <-ctx.Done():
		proc.Stop()
		<-done
	}
	copied := make(chan struct{})
	go func() { copies.Wait(); close(copied) }()
	select {
	case <-copied:
	case <-ctx.Done():
		// A process left behind still holds the output: stop reading.
		for _, pr := range readers {
			pr.Close()
		}
		<-copied
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if st.Code != 0 {
		return fmt.Errorf("exit code %d", st.Code)
	}
	return nil
}

// TestsSummary says a run's outcome on one line, for a turn's closing
// line and events: "TestAdd passes; TestTwice fails: calc_test.go:12:
// Twice(2) = 5, want 4".
func TestsSummary(rep *testrun.Report) string {
	if rep == nil {
		return ""
	}
	return strings.ReplaceAll(rep.Summary(), "\n", "; ")
}

// testBeforeDone runs the tests that reach the turn's changes when the
// model answers. When one fails and no repair round was held yet, it
// gives the failures to the model and returns true: the loop goes on.
func (t *turn) testBeforeDone(ctx context.Context) (again bool, remaining []tools.Diagnostic, err error) {
	rep := t.testEdits(ctx)
	t.check.tests = rep
	if rep == nil {
		return false, nil, nil
	}
	line := "tested: " + TestsSummary(rep)
	// A test that failed before the turn too is said, but is not the
	// model's to repair: only what the turn broke gets the round.
	if !rep.Regressed() || t.check.repairUntil > 0 || ctx.Err() != nil {
		t.event(Event{Kind: EventCheck, Text: line, Tests: rep})
		return false, nil, nil
	}
	steps := t.a.CheckRepairSteps
	if steps <= 0 {
		steps = DefaultCheckRepairSteps
	}
	t.check.repairUntil, t.check.repairTests = t.steps+steps, true
	t.event(Event{Kind: EventCheck, Text: line + "; asking the model to fix them", Tests: rep})
	msg := "Tests that reach your changes fail with them:\n" + rep.Regressions().Summary() +
		"\nFix the code (or the test, if the test is what is wrong), keeping the rest of your changes, then finish your answer."
	if err := t.s.append(provider.Message{Role: provider.RoleUser, Content: msg}); err != nil {
		return false, nil, err
	}
	return true, nil, nil
}
