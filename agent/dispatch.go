package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
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

// call runs one tool call to a tool message. Nothing in it can fail the
// turn: every problem becomes a result the model reads.
func (t *turn) call(ctx context.Context, c provider.ToolCall) provider.Message {
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
	return provider.Message{Role: provider.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: content}
}

func (t *turn) execute(ctx context.Context, c provider.ToolCall, tool tools.Tool, known bool, ev *ToolEvent) tools.Result {
	if res, over := t.oversize(c); over {
		return res
	}
	if !known {
		return tools.Errorf("there is no tool named %q. Available tools: %s", c.Name, strings.Join(t.s.tools.Names(), ", "))
	}
	args := json.RawMessage(strings.TrimSpace(c.Arguments))
	if !json.Valid(args) {
		if t.cutOff[c.ID] {
			return tools.Errorf("%s", cutOffResult(c))
		}
		return tools.Errorf("the arguments of this %s call are not valid JSON: %s. Send one JSON object that matches the tool's schema.", c.Name, jsonProblem(args))
	}
	if len(args) == 0 || args[0] != '{' {
		return tools.Errorf("the arguments of this %s call must be a JSON object, not %s", c.Name, abbreviate(string(args), 60))
	}
	if t.s.tools.Flattened(c.Name) {
		nested, err := t.s.tools.Renest(c.Name, args)
		if err != nil {
			return tools.Errorf("the arguments of this %s call: %v", c.Name, err)
		}
		args = nested
		t.repaired(repairFlatten, "re-nested the dotted arguments of %s", c.Name)
	}
	if c.Name == exitPlanName {
		return t.exitPlan(ctx, args)
	}
	if c.Name == taskName {
		// A task call changes nothing itself — its child's calls are
		// judged one by one — but a rule about task holds: a deny rule
		// refuses it, an ask rule asks.
		if t.a.Gate != nil {
			v := t.a.Gate.Check(ctx, permission.Request{SessionID: t.s.ID, Tool: c.Name, ReadOnly: true, Args: args})
			if !v.Allowed {
				ev.Denied = true
				return deniedResult(v.Reason)
			}
		}
		return t.runTask(ctx, c, args, ev)
	}
	if res, ok := t.planGate(tool); !ok {
		ev.Denied = true
		return res
	}
	req := permission.Request{SessionID: t.s.ID, Tool: c.Name, ReadOnly: tool.ReadOnly(), Args: args}
	if aa, ok := tool.(tools.AlwaysAsker); ok {
		req.AlwaysAsk = aa.AlwaysAsk()
	}
	if pv, ok := tool.(tools.Previewer); ok && req.AlwaysAsk {
		// What the person asked approves; a call that cannot run is not
		// asked about.
		preview, err := pv.Preview(t.a.Env, args)
		if err != nil {
			return tools.Errorf("%v", err)
		}
		req.Preview = preview
	}
	call := &writeCall{session: t.s.ID, tool: c.Name, turn: t}
	var controlSpelt, declared []string
	if fc, ok := tool.(tools.FileChanger); ok {
		// The rules judge the files the call changes, not whatever its
		// arguments happen to be called.
		paths, err := fc.ChangedPaths(args)
		if err != nil {
			return tools.Errorf("%v", err)
		}
		req.Paths, req.Control, controlSpelt = declareWrites(t.a.Env, paths)
		declared = paths
		// A change to Reasonix's own control files is the user's to
		// approve, each time, having seen it.
		req.AlwaysAsk = req.AlwaysAsk || len(req.Control) > 0
		call.declared = req.Paths
		// Changes made through an FS that proposes them wait for the
		// user's review: that is where the user decides.
		req.Proposes = t.a.Env.Proposes()
	}
	if fr, ok := tool.(tools.FileReader); ok && t.a.Env.ReadRules != nil {
		// The rules about reading judge the files the call reads, and
		// where their links lead, whatever the tool.
		paths, err := fr.ReadPaths(args)
		if err != nil {
			return tools.Errorf("%v", err)
		}
		req.Reads = t.a.Env.ReadSpellings(paths)
		call.reads = req.Reads
	}
	proposalOnly := false
	if t.a.Gate != nil {
		v := t.a.Gate.Check(ctx, req)
		if !v.Allowed {
			ev.Denied = true
			reason := v.Reason
			if len(req.Control) > 0 && !v.Asked {
				reason = permission.ControlWhy(req.Control) + ": " + reason
			}
			return deniedResult(reason)
		}
		if v.Asked {
			call.approved = controlSpelt
		}
		proposalOnly = v.Proposal
	}
	if err := ctx.Err(); err != nil {
		return tools.Result{Content: "Cancelled by the user before it ran.", IsError: true, Summary: "cancelled"}
	}
	tctx := tools.WithOutputFile(withWriteCall(tools.WithSession(ctx, t.s.ID), call), t.outputFile(c))
	tctx = tools.WithShellWatcher(tctx, t.shellWatcher())
	if proposalOnly {
		tctx = tools.WithProposalOnly(tctx)
	}
	tctx = tools.WithProgress(tools.WithChanged(tctx, t.changedFiles()), func(msg string) {
		t.event(Event{Kind: EventToolProgress, Tool: &ToolEvent{CallID: ev.CallID, Name: ev.Name, Title: ev.Title}, Text: msg})
	})
	// A plugin's tool may change any file, outside FS and its checks.
	var before *tools.ControlState
	watch := !tool.ReadOnly() && isThirdParty(tool)
	if watch {
		before = t.a.Env.Control.Snapshot()
	}
	// The turn keeps what the files the call declared held before its
	// first change to them (the write seam does for the others).
	for _, p := range declared {
		t.rememberBefore(t.a.Env.FS, t.a.Env.Abs(p))
	}
	// The duration is the tool's own: the clock starts once the call is
	// allowed, not while the user reads the question.
	start := time.Now()
	defer func() { ev.DurationMs = time.Since(start).Milliseconds() }()
	res, err := safeExecute(tctx, tool, t.a.Env, args)
	if watch {
		t.a.Env.Control.Undo(ctx, before, &res, t.a.Env.Rel)
	}
	if res.Notice != "" {
		t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("%s: %s", c.Name, res.Notice)})
	}
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{Content: "Cancelled by the user while running.", IsError: true, Summary: "cancelled"}
		}
		t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("%s failed: %v", c.Name, err)})
		return tools.Errorf("%s failed: %v", c.Name, err)
	}
	if pg := t.a.Env.Graph; pg != nil && len(res.Changed) == 0 && !tool.ReadOnly() {
		// A shell command (or a plugin) may have changed any file.
		pg.DiskChanged()
	}
	if len(res.Changed) > 0 {
		t.noteChanged(res.Changed)
		for _, p := range res.Changed {
			p = t.a.Env.Abs(p)
			_, exists, _ := readView(t.a.Env.FS, p)
			t.fileChanged(p, SourceTool, exists)
		}
		if !res.IsError && t.a.VerifyAfterEdit && t.a.Env.Graph != nil {
			// Show the model the breakage its edit caused while the edit is
			// fresh, rather than at the next build.
			if paths := unasked(t.a.Env, res.Changed); len(paths) > 0 {
				res.Content += t.a.Env.Graph.Verify(ctx, paths)
			}
		}
	}
	if !res.IsError {
		res.Content += t.nestedMemoryFor(tool, args, res.Changed)
	}
	return res
}

// unasked returns the paths the model may read with no one asked: a
// diagnostic of a file quotes it.
func unasked(env *tools.Env, paths []string) []string {
	return slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return env.CheckReadUnasked(env.Abs(p)) != nil })
}

// oversize refuses a call whose arguments pass provider.MaxArgumentBytes:
// the provider stopped reading them (Oversize), or one that does not
// keep to the limit handed them over whole.
func (t *turn) oversize(c provider.ToolCall) (tools.Result, bool) {
	const mib = 1 << 20
	var why string
	switch {
	case c.Oversize > 0:
		why = fmt.Sprintf("Not run: Reasonix stopped reading this response at this %s call, whose arguments had reached %d bytes: a call may carry at most %d MiB of arguments, and the calls of a response %d MiB together. Nothing after it was read.",
			c.Name, c.Oversize, provider.MaxArgumentBytes/mib, provider.MaxResponseArgumentBytes/mib)
	case len(c.Arguments) > provider.MaxArgumentBytes:
		why = fmt.Sprintf("Not run: the arguments of this %s call are %d bytes; a call may carry at most %d MiB.",
			c.Name, len(c.Arguments), provider.MaxArgumentBytes/mib)
	default:
		return tools.Result{}, false
	}
	t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("a %s call was refused: its arguments were too large to hold", c.Name)})
	return tools.Result{
		Content: why + " Send large content in parts: write a first part of a file, then add to it with edit_file, or generate it with a command.",
		IsError: true,
		Summary: "arguments too large",
	}, true
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

// deniedResult is the result of a call the gate refused.
func deniedResult(reason string) tools.Result {
	return tools.Result{
		Content: fmt.Sprintf("Permission denied: %s. The call was not run. Do not retry it unchanged; choose another approach or ask the user.", reason),
		IsError: true,
		Summary: "denied",
	}
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

// safeExecute runs a tool, turning a panic into an error: a bug in one tool
// must not take down an editor's language server.
func safeExecute(ctx context.Context, tool tools.Tool, env *tools.Env, args json.RawMessage) (res tools.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("tool panicked", "tool", tool.Name(), "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return tool.Execute(ctx, env, args)
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
