// Package testrun is the seam between the agent and the test runners of
// each language: a Runner finds the tests that reach a turn's changes and
// runs them on the changed text without writing it, and says the outcome
// as a Report that the front ends show whatever the language.
//
// The types were first Go's (tools/gotest) and are declared there still;
// here they are named for every language.
package testrun

import (
	"context"
	"os/exec"
	"strings"

	"github.com/reasonix/reasonix/tools/gotest"
)

type (
	// A Change is one file's text before and after.
	Change = gotest.Change
	// Options say where and how to run: the workspace root, how to start
	// a process (in the sandbox), its environment, the caps.
	Options = gotest.Options
	// An Outcome is one test's result.
	Outcome = gotest.Outcome
	// A Report is what a run found; its Summary is what the user reads.
	Report = gotest.Report
)

// Exec runs a runner's command cmd as opts say: with opts.Run (in the
// sandbox), or os/exec stopped when ctx ends.
func Exec(ctx context.Context, opts Options, cmd *exec.Cmd) error {
	return gotest.Exec(ctx, opts, cmd)
}

// A Runner runs one language's tests of a change.
type Runner struct {
	// Command is what a person would type to run the tests (`go test
	// ./...`): the tests run only where the bash tool would run it
	// without asking, since running them runs the project's code.
	Command string
	// Matches reports whether a changed file (absolute path) is one the
	// runner tests.
	Matches func(path string) bool
	// Configured reports whether the project under the workspace root is
	// set up for the runner to test these changes; nil means it always
	// is. It is asked before the permission, so a project the runner does
	// not apply to hears nothing of tests.
	Configured func(root string, changes []Change) bool
	// Run finds the tests that reach changes (only those Matches keeps)
	// and runs them; a Report with no Symbols means nothing to test.
	Run func(ctx context.Context, opts Options, changes []Change) (Report, error)
}

// Merge puts the reports of two runners of one turn together: symbols
// and outcomes one after the other, the failures on one line.
func Merge(a, b Report) Report {
	out := a
	out.Symbols = append(append([]string(nil), a.Symbols...), b.Symbols...)
	out.Outcomes = append(append([]Outcome(nil), a.Outcomes...), b.Outcomes...)
	out.Left += b.Left
	out.Proposed = a.Proposed || b.Proposed
	var failures []string
	for _, f := range []string{a.Failure, b.Failure} {
		if f != "" {
			failures = append(failures, f)
		}
	}
	out.Failure = strings.Join(failures, "; ")
	return out
}
