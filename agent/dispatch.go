package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
)

// maxCallsPerResponse bounds the tool calls of one response that run.
// Models that batch calls ask for a few, or a few dozen when they read a
// package's files at once; 64 leaves room for that. A response asking
// for thousands is a model gone wrong or a hostile endpoint: each call
// would run, and each result would enter every later request.
const maxCallsPerResponse = 64

// dispatch runs the calls of one model response and returns their results
// in the order the model asked. Runs of consecutive read-only calls execute
// in parallel, up to ParallelMax at a time; any other call runs alone, so a
// read never races a write that precedes or follows it. Only the first
// maxCallsPerResponse calls run; each of the others gets a result that
// says so, as the wire format wants one result for every call.
func (t *turn) dispatch(ctx context.Context, calls []provider.ToolCall) []provider.Message {
	all := make([]provider.Message, len(calls))
	if len(calls) > maxCallsPerResponse {
		t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("the model asked for %d tool calls in one response; only the first %d ran", len(calls), maxCallsPerResponse)})
		why := fmt.Sprintf("Not run: this response asked for %d tool calls, and at most %d run per response. The first %d ran; make fewer calls per response, and ask again for what is still needed.", len(calls), maxCallsPerResponse, maxCallsPerResponse)
		for i, c := range calls[maxCallsPerResponse:] {
			all[maxCallsPerResponse+i] = provider.Message{Role: provider.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: why}
		}
		calls = calls[:maxCallsPerResponse]
	}
	results := all[:len(calls)]
	var hits []*stormHit
	if !t.a.NoRepair {
		hits = t.storm.check(calls, results, t.readOnly)
		defer t.storm.settle()
	}
	repeat := func(i int) bool { return hits != nil && hits[i] != nil }
	limit := t.a.ParallelMax
	if limit < 1 || os.Getenv("REASONIX_TOOL_DISPATCH") == "serial" {
		limit = 1
	}
	for i := 0; i < len(calls); {
		if repeat(i) {
			i++ // answered below, once the call it repeats has run
			continue
		}
		j := i + 1
		if t.readOnly(calls[i]) {
			for j < len(calls) && j-i < limit && t.readOnly(calls[j]) && !repeat(j) {
				j++
			}
		}
		if j-i == 1 {
			results[i] = t.call(ctx, calls[i])
		} else {
			var wg sync.WaitGroup
			for k := i; k < j; k++ {
				wg.Go(func() { results[k] = t.call(ctx, calls[k]) })
			}
			wg.Wait()
		}
		i = j
	}
	for i, c := range calls {
		if repeat(i) {
			results[i] = t.suppress(c, hits[i])
		}
	}
	t.calls += len(calls)
	return all
}

// suppress answers a call that repeats an earlier one without running it.
func (t *turn) suppress(c provider.ToolCall, h *stormHit) provider.Message {
	ev := &ToolEvent{CallID: c.ID, Name: c.Name, Arguments: rawOrString(c.Arguments)}
	ev.Title = DescribeCall(c.Name, ev.Arguments)
	t.event(Event{Kind: EventToolStart, Tool: ev})
	t.repaired(repairStorm, "%s repeats the call made %d before it; not run", ev.Title, h.ago)
	content := stormResult(c, h)
	out := *ev
	out.Summary, out.IsError, out.Result = "repeat, not run", true, content
	t.event(Event{Kind: EventToolResult, Tool: &out})
	t.toolStep(time.Now(), &out)
	return provider.Message{Role: provider.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: content}
}

// readOnly reports whether a call may join a parallel batch: a read-only
// tool's, unless the tool runs its calls alone (tools.Exclusive).
func (t *turn) readOnly(c provider.ToolCall) bool {
	tool, ok := t.s.tools.Get(c.Name)
	if ex, isEx := tool.(tools.Exclusive); isEx && ex.Exclusive() {
		return false
	}
	return ok && callReadOnly(tool, c)
}

// A callReader is a tool whose calls only read or not by their
// arguments: task, by read_only.
type callReader interface {
	readOnlyCall(args string) bool
}

// callReadOnly reports whether a call only reads: its tool's word, or
// for a callReader, its arguments'.
func callReadOnly(tool tools.Tool, c provider.ToolCall) bool {
	if r, ok := tool.(callReader); ok {
		return r.readOnlyCall(c.Arguments)
	}
	return tool.ReadOnly()
}

// call runs one tool call to a tool message. Nothing in it can fail the
// turn: every problem becomes a result the model reads.
func (t *turn) call(ctx context.Context, c provider.ToolCall) provider.Message {
	m, _ := t.callResult(ctx, c)
	return m
}

// callResult is call, with the tool's result as it came.
func (t *turn) callResult(ctx context.Context, c provider.ToolCall) (provider.Message, tools.Result) {
	ev := &ToolEvent{CallID: c.ID, Name: c.Name, Arguments: rawOrString(c.Arguments)}
	ev.Title = DescribeCall(c.Name, ev.Arguments)
	tool, known := t.s.tools.Get(c.Name)
	if known {
		ev.ReadOnly = callReadOnly(tool, c)
	}
	t.event(Event{Kind: EventToolStart, Tool: ev})

	start := time.Now()
	res := t.execute(ctx, c, tool, known, ev)
	out := *ev
	out.Summary, out.IsError, out.Changed = res.Summary, res.IsError, res.Changed
	out.Result = res.Content
	t.event(Event{Kind: EventToolResult, Tool: &out})
	t.toolStep(start, &out)

	content := res.Content
	saved := t.outputFile(c)
	if capper, ok := tool.(tools.ResultCapper); !ok || !capper.CapsResult() {
		// The one cap on what a result adds to every later request;
		// the whole is saved beside the session for read_file.
		content = tools.CapResult(content, saved)
	}
	if r := t.s.redact; r != nil && saved != "" {
		// What is saved beside the session is redacted as the session
		// is (the conversation's copy is, when it is appended).
		if err := r.file(saved); err != nil {
			t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("%s: the saved output could not be redacted, so it was removed: %v", c.Name, err)})
			os.Remove(saved)
		}
	}
	if content == "" {
		content = "(no output)"
	}
	return provider.Message{Role: provider.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: content}, res
}

// outputFile is where call c may save a whole output it cut: a file
// beside the session named after the turn, step and call, or "" for a
// session kept in memory only.
func (t *turn) outputFile(c provider.ToolCall) string {
	if t.a.Store == nil || t.s.file == nil {
		return ""
	}
	id := strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '_'
	}, abbreviate(c.ID, 64))
	return filepath.Join(t.a.Store.OutputDir(t.s.ID), fmt.Sprintf("t%d-s%d-%s.txt", t.n, t.steps, id))
}

// isThirdParty reports whether t is not Reasonix's own (an MCP server's).
func isThirdParty(t tools.Tool) bool {
	_, ok := t.(tools.Untrusted)
	return ok
}

// noteChanged records files the turn changed.
func (t *turn) noteChanged(paths []string) {
	t.changedMu.Lock()
	defer t.changedMu.Unlock()
	if t.changed == nil {
		t.changed = map[string]bool{}
	}
	for _, p := range paths {
		t.changed[p] = true
	}
}

// changedFiles lists the files the turn changed so far, sorted.
func (t *turn) changedFiles() []string {
	t.changedMu.Lock()
	defer t.changedMu.Unlock()
	out := make([]string, 0, len(t.changed))
	for p := range t.changed {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// rawOrString keeps valid JSON as is and wraps anything else as a JSON
// string, so events always marshal.
func rawOrString(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// jsonProblem describes why text is not valid JSON.
func jsonProblem(b []byte) string {
	var v any
	err := json.Unmarshal(b, &v)
	if err == nil {
		return "unknown problem"
	}
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%v at byte %d (%s)", se, se.Offset, abbreviate(string(b), 80))
	}
	return err.Error()
}

func abbreviate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
