package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/gotest"
)

// TestRenderTestsOnce: the tests' outcome is said once, by the closing
// line; a run that asks the model to fix a failure is a note of its own.
func TestRenderTestsOnce(t *testing.T) {
	rep := &gotest.Report{Outcomes: []gotest.Outcome{{Package: "example.com/calc", Test: "TestAdd", Passed: true}}}
	var out, errb bytes.Buffer
	r := newRenderer(&out, &errb, false, false, false)
	r.event(agent.Event{Kind: agent.EventCheck, Text: "tested: " + agent.TestsSummary(rep), Tests: rep})
	if errb.Len() != 0 {
		t.Errorf("the tests' last word was a note too: %q", errb.String())
	}
	r.event(agent.Event{Kind: agent.EventCheck, Text: "tested: " + agent.TestsSummary(rep) + "; asking the model to fix them", Tests: rep})
	if !strings.Contains(errb.String(), "note: tested: ") {
		t.Errorf("a repair round's note is missing: %q", errb.String())
	}
}
