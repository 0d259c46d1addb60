package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
)

// TestRenderPiped: with stdout and stderr not terminals and merged into
// one stream (`reasonix run … 2>&1 | cat`), each step's text ends its
// line before the next tool row, with no blank lines, and stdout alone
// holds just the answer, one line per step.
func TestRenderPiped(t *testing.T) {
	tool := func(kind agent.EventKind) agent.Event {
		return agent.Event{Kind: kind, Tool: &agent.ToolEvent{Title: "read_file a.go", Summary: "3 lines"}}
	}
	events := []agent.Event{
		{Kind: agent.EventText, Text: "I'll read "},
		{Kind: agent.EventText, Text: "the file."},
		{Kind: agent.EventUsage},
		tool(agent.EventToolStart),
		tool(agent.EventToolResult),
		{Kind: agent.EventText, Text: "Second thoughts.\n\n"},
		{Kind: agent.EventUsage},
		{Kind: agent.EventCompaction, Text: "compacted: 26k → 13k tokens, 39 messages archived", Compaction: &agent.CompactResult{}},
		tool(agent.EventToolStart),
		{Kind: agent.EventNotice, Text: "something to know"},
		tool(agent.EventToolResult),
		{Kind: agent.EventText, Text: "\n"},
		{Kind: agent.EventUsage},
		{Kind: agent.EventText, Text: "Half an answer"},
		{Kind: agent.EventRetry, Text: "the model's response broke off; retrying"},
		{Kind: agent.EventText, Text: "Done."},
		{Kind: agent.EventUsage},
	}

	var merged bytes.Buffer
	r := newRenderer(&merged, &merged, false, false, false)
	for _, e := range events {
		r.event(e)
	}
	r.finish(agent.TurnResult{})
	want := "I'll read the file.\n" +
		"✓ read_file a.go — 3 lines\n" +
		"Second thoughts.\n" +
		"note: compacted: 26k → 13k tokens, 39 messages archived\n" +
		"note: something to know\n" +
		"✓ read_file a.go — 3 lines\n" +
		"! the model's response broke off; retrying\n" +
		"Done.\n"
	if merged.String() != want {
		t.Errorf("merged output:\n%q\nwant\n%q", merged.String(), want)
	}

	var out, errb bytes.Buffer
	r = newRenderer(&out, &errb, false, false, false)
	for _, e := range events {
		r.event(e)
	}
	r.finish(agent.TurnResult{})
	if want := "I'll read the file.\nSecond thoughts.\nDone.\n"; out.String() != want {
		t.Errorf("stdout:\n%q\nwant\n%q", out.String(), want)
	}
}

// TestRenderTerminal: on a terminal the answer streams as it comes, and a
// tool row after a half-written line starts a line of its own.
func TestRenderTerminal(t *testing.T) {
	var merged bytes.Buffer
	r := newRenderer(&merged, &merged, false, true, false)
	r.event(agent.Event{Kind: agent.EventText, Text: "Reading"})
	if merged.String() != "Reading" {
		t.Fatalf("text is not streamed: %q", merged.String())
	}
	r.event(agent.Event{Kind: agent.EventUsage})
	r.event(agent.Event{Kind: agent.EventToolResult, Tool: &agent.ToolEvent{Title: "ls"}})
	r.event(agent.Event{Kind: agent.EventText, Text: "Done.\n"})
	r.finish(agent.TurnResult{})
	if want := "Reading\n✓ ls\nDone.\n"; merged.String() != want {
		t.Errorf("terminal output:\n%q\nwant\n%q", merged.String(), want)
	}
}

// TestRenderChecks: a shell command's changes are listed under its row,
// the check says what it found, and the errors the turn left are on the
// accounting line.
func TestRenderChecks(t *testing.T) {
	var out, errb bytes.Buffer
	r := newRenderer(&out, &errb, false, false, false)
	bash := &agent.ToolEvent{Title: "bash sed -i s/+/-/ calc.go", Summary: "exit 0"}
	for _, e := range []agent.Event{
		{Kind: agent.EventToolStart, Tool: bash},
		{Kind: agent.EventFileChanged, File: &agent.FileChange{Path: "calc.go", Status: agent.FileModified, Source: agent.SourceShell}},
		{Kind: agent.EventFileChanged, File: &agent.FileChange{Path: "sub.go", Status: agent.FileCreated, Source: agent.SourceTool}},
		{Kind: agent.EventToolResult, Tool: bash},
		{Kind: agent.EventCheck, Text: "checked: still 1 new error in calc.go"},
		{Kind: agent.EventText, Text: "Done."},
	} {
		r.event(e)
	}
	r.finish(agent.TurnResult{Turn: 1, Steps: 2, ToolCalls: 1, SessionID: "s1",
		Usage:     provider.Usage{PromptTokens: 100, CompletionTokens: 10},
		NewErrors: []tools.Diagnostic{{File: "calc.go", Line: 5, Column: 13, Severity: "error", Message: "undefined: c"}}})
	want := "  modified calc.go\n" +
		"✓ bash sed -i s/+/-/ calc.go — exit 0\n" +
		"note: checked: still 1 new error in calc.go\n" +
		"— turn 1 · 2 requests · 1 tool call · 100 in (0.0% cache hit) + 10 out · 1 new error in calc.go · session s1\n"
	if errb.String() != want {
		t.Errorf("stderr:\n%s\nwant\n%s", errb.String(), want)
	}
}

// TestRenderNested: the calls of a sub-task's child session and of the
// planner are indented under the parent's work, as the chat panels show
// them; the task's own row is not.
func TestRenderNested(t *testing.T) {
	var out, errb bytes.Buffer
	r := newRenderer(&out, &errb, false, false, false)
	task := &agent.ToolEvent{CallID: "c1", Name: "task", Title: "task locate Add", Summary: "done: 2 requests, 1 tool call"}
	grep := &agent.ToolEvent{CallID: "c1", Name: "grep", Title: "grep func Add", Summary: "1 match in 1 file"}
	read := &agent.ToolEvent{CallID: "c1", Name: "read_file", Title: "read_file calc.go", Summary: "3 lines"}
	for _, e := range []agent.Event{
		{Kind: agent.EventToolResult, Tool: read, Parent: "planner"},
		{Kind: agent.EventToolStart, Tool: task},
		{Kind: agent.EventToolStart, Tool: grep, Parent: "c1"},
		{Kind: agent.EventToolResult, Tool: grep, Parent: "c1"},
		{Kind: agent.EventToolResult, Tool: task},
	} {
		r.event(e)
	}
	want := "  ↳ ✓ read_file calc.go — 3 lines\n" +
		"  ↳ ✓ grep func Add — 1 match in 1 file\n" +
		"✓ task locate Add — done: 2 requests, 1 tool call\n"
	if errb.String() != want {
		t.Errorf("stderr:\n%s\nwant\n%s", errb.String(), want)
	}
}

// hostileText holds what a hostile model or file sends a terminal: OSC 52
// (write the clipboard), OSC 0 (set the title), CSI sequences that erase
// and move up to forge a line, a C1 CSI, DEL, a carriage return and a
// right-to-left override.
const hostileText = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x1b\\\x1b[2K\x1b[1A\r✓ approved\u009b2J\x7f\u202eexe.txt"

// rawControls reports the first control byte or bidirectional control in
// s that a renderer must not have written, after taking out its own
// colours and status-line erasure.
func rawControls(s string) string {
	for _, own := range []string{dim, red, green, reset, "\r\x1b[K"} {
		s = strings.ReplaceAll(s, own, "")
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) {
			return fmt.Sprintf("%U in %q", r, s)
		}
	}
	return ""
}

// TestRenderEscapes: whatever the model, a tool or a file sends — answer
// text cut anywhere across deltas, reasoning, tool titles, summaries and
// progress, notices, retries, changed paths, warnings — reaches neither
// stream as a control sequence, on a terminal or not; a clean answer is
// written byte for byte.
func TestRenderEscapes(t *testing.T) {
	tool := &agent.ToolEvent{Title: "read_file " + hostileText, Summary: hostileText}
	var events []agent.Event
	for _, r := range hostileText {
		// One delta a character: every sequence is split.
		events = append(events, agent.Event{Kind: agent.EventText, Text: string(r)})
	}
	events = append(events,
		agent.Event{Kind: agent.EventReasoning, Text: hostileText},
		agent.Event{Kind: agent.EventUsage},
		agent.Event{Kind: agent.EventToolStart, Tool: tool},
		agent.Event{Kind: agent.EventToolProgress, Tool: tool, Text: hostileText},
		agent.Event{Kind: agent.EventToolResult, Tool: tool},
		agent.Event{Kind: agent.EventNotice, Text: hostileText},
		agent.Event{Kind: agent.EventRetry, Text: hostileText},
		agent.Event{Kind: agent.EventFileChanged, File: &agent.FileChange{Source: agent.SourceShell, Status: "modified", Path: hostileText}},
		agent.Event{Kind: agent.EventText, Text: hostileText},
		agent.Event{Kind: agent.EventUsage},
	)
	for _, tty := range []bool{false, true} {
		var out, errb bytes.Buffer
		r := newRenderer(&out, &errb, tty, tty, true)
		for _, e := range events {
			r.event(e)
		}
		r.notice(hostileText)
		r.warning(hostileText)
		r.finish(agent.TurnResult{})
		if bad := rawControls(out.String()); bad != "" {
			t.Errorf("tty %v: stdout has %s", tty, bad)
		}
		if bad := rawControls(errb.String()); bad != "" {
			t.Errorf("tty %v: stderr has %s", tty, bad)
		}
		if !strings.Contains(out.String(), `\u001b]52;c;cm0gLXJmIH4=\u0007`) || !strings.Contains(errb.String(), `\u202eexe.txt`) {
			t.Errorf("tty %v: the escapes are not shown:\n%q\n%q", tty, out.String(), errb.String())
		}
	}

	clean := "Tabs\tand lines\nstay; ünïcode ✓, `code` and \"quotes\" too.\n"
	for _, tty := range []bool{false, true} {
		var out, errb bytes.Buffer
		r := newRenderer(&out, &errb, tty, tty, false)
		r.event(agent.Event{Kind: agent.EventText, Text: clean[:9]})
		r.event(agent.Event{Kind: agent.EventText, Text: clean[9:]})
		r.event(agent.Event{Kind: agent.EventUsage})
		r.finish(agent.TurnResult{})
		if out.String() != clean {
			t.Errorf("tty %v: a clean answer became %q", tty, out.String())
		}
	}
}
