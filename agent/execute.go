package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

// A toolCall is one call on its way through execute: the call, its tool,
// and what each step learns for the steps after it. Each step is a method
// that may end the call early with a result (ok false): a refusal, an
// error the model should fix.
type toolCall struct {
	t    *turn
	c    provider.ToolCall
	tool tools.Tool
	ev   *ToolEvent
	// known is false when the registry has no tool of the call's name.
	known bool
	// own is set for a tool the agent implements itself (a turnTool).
	own bool

	// args are the call's arguments, once validate has found them a
	// JSON object in the tool's own shape.
	args json.RawMessage
	// req is what the permission gate judges, built by declare.
	req permission.Request
	// write is what the write seam knows of the call (declared paths,
	// approved control files, reads).
	write *writeCall
	// declared are the paths a FileChanger declared, as it spelt them;
	// controlSpelt the control files among them, as the rules spell them.
	declared, controlSpelt []string
	// proposalOnly is set when the gate allowed the call only because
	// its changes are proposals.
	proposalOnly bool
	// start is when run started the tool; zero for a call that did not
	// get that far.
	start time.Time
	// hookAsks is set when a PreToolUse hook wants the user asked; ran
	// when the tool ran and returned a result, for PostToolUse hooks.
	hookAsks, ran bool
}

// execute runs one call through its steps: validate the arguments, the
// plan gate, the user's PreToolUse hooks, declare what the call touches,
// judge it by the permission rules — any of which may end the call with
// a result — then decorate its context and run it, and after a run that
// went through, record what it changed, verify the edit and attach
// nested project memory; the PostToolUse hooks see what ran.
// Nothing in it can fail the turn: every problem becomes a result the
// model reads.
func (t *turn) execute(ctx context.Context, c provider.ToolCall, tool tools.Tool, known bool, ev *ToolEvent) tools.Result {
	k := &toolCall{t: t, c: c, tool: tool, known: known, ev: ev}
	ctx = context.WithValue(ctx, notifyKey{}, t)
	_, k.own = tool.(turnTool)
	defer k.stopClock()
	for _, step := range []func(context.Context) (tools.Result, bool){k.validate, k.planGate, k.preToolHook, k.declare, k.judge} {
		if res, ok := step(ctx); !ok {
			return res
		}
	}
	res, ok := k.run(ctx, k.decorate(ctx))
	if ok {
		k.record(&res)
		k.verify(ctx, &res)
		k.attachMemory(&res)
	}
	if k.ran {
		k.postToolHook(ctx, &res)
	}
	return res
}

// A turnTool is a tool the agent implements itself (exit_plan_mode,
// task): its Execute runs on the turn that makes the call, which it finds
// with toolCallOf. Such a call changes nothing itself — what it leads to
// meets the gates on its own: the user approves a plan, a task's child's
// calls are judged one by one and record their own changes — so the plan
// gate lets it through, the permission gate (when gated) sees a read, its
// context carries nothing of the tools' world, and nothing is recorded
// after it.
type turnTool interface {
	tools.Tool
	// gated reports whether the permission rules hold for the tool's
	// calls: a deny rule refuses one, an ask rule asks.
	gated() bool
}

type toolCallKey struct{}

// toolCallOf returns the call a turnTool's Execute runs for; ok is false
// outside a turn.
func toolCallOf(ctx context.Context) (k *toolCall, ok bool) {
	k, ok = ctx.Value(toolCallKey{}).(*toolCall)
	return k, ok
}

// validate refuses a call that cannot run as asked: arguments too large,
// no such tool, arguments not a JSON object. It re-nests flattened
// arguments into the tool's own shape, so the rules and the tool see that.
func (k *toolCall) validate(context.Context) (tools.Result, bool) {
	t, c := k.t, k.c
	if res, over := t.oversize(c); over {
		return res, false
	}
	if !k.known {
		return tools.Errorf("there is no tool named %q. Available tools: %s", c.Name, strings.Join(t.s.tools.Names(), ", ")), false
	}
	args := json.RawMessage(strings.TrimSpace(c.Arguments))
	if !json.Valid(args) {
		if t.cutOff[c.ID] {
			return tools.Errorf("%s", cutOffResult(c)), false
		}
		return tools.Errorf("the arguments of this %s call are not valid JSON: %s. Send one JSON object that matches the tool's schema.", c.Name, jsonProblem(args)), false
	}
	if len(args) == 0 || args[0] != '{' {
		return tools.Errorf("the arguments of this %s call must be a JSON object, not %s", c.Name, abbreviate(string(args), 60)), false
	}
	if t.s.tools.Flattened(c.Name) {
		nested, err := t.s.tools.Renest(c.Name, args)
		if err != nil {
			return tools.Errorf("the arguments of this %s call: %v", c.Name, err), false
		}
		args = nested
		t.repaired(repairFlatten, "re-nested the dotted arguments of %s", c.Name)
	}
	k.args = args
	return tools.Result{}, true
}

// declare builds what the permission gate judges: the files the call
// changes and reads, as the tool declares them, and what the person
// asked would see. A call whose declarations fail is not asked about.
func (k *toolCall) declare(context.Context) (tools.Result, bool) {
	t, tool := k.t, k.tool
	env := t.a.Env
	k.req = permission.Request{SessionID: t.s.ID, Tool: k.c.Name, ReadOnly: tool.ReadOnly(), Args: k.args}
	k.write = &writeCall{session: t.s.ID, tool: k.c.Name, turn: t}
	if k.own {
		// Its call changes nothing itself.
		k.req.ReadOnly = true
		return tools.Result{}, true
	}
	if aa, ok := tool.(tools.AlwaysAsker); ok {
		k.req.AlwaysAsk = aa.AlwaysAsk()
	}
	if pv, ok := tool.(tools.Previewer); ok && k.req.AlwaysAsk {
		// What the person asked approves; a call that cannot run is not
		// asked about.
		preview, err := pv.Preview(env, k.args)
		if err != nil {
			return tools.Errorf("%v", err), false
		}
		k.req.Preview = preview
	}
	if fc, ok := tool.(tools.FileChanger); ok {
		// The rules judge the files the call changes, not whatever its
		// arguments happen to be called.
		paths, err := fc.ChangedPaths(k.args)
		if err != nil {
			return tools.Errorf("%v", err), false
		}
		k.req.Paths, k.req.Control, k.controlSpelt = declareWrites(env, paths)
		k.declared = paths
		// A change to Reasonix's own control files is the user's to
		// approve, each time, having seen it.
		k.req.AlwaysAsk = k.req.AlwaysAsk || len(k.req.Control) > 0
		k.write.declared = k.req.Paths
		// Changes made through an FS that proposes them wait for the
		// user's review: that is where the user decides.
		k.req.Proposes = env.Proposes()
	}
	if fr, ok := tool.(tools.FileReader); ok && env.ReadRules != nil {
		// The rules about reading judge the files the call reads, and
		// where their links lead, whatever the tool.
		paths, err := fr.ReadPaths(k.args)
		if err != nil {
			return tools.Errorf("%v", err), false
		}
		k.req.Reads = env.ReadSpellings(paths)
		k.write.reads = k.req.Reads
	}
	return tools.Result{}, true
}

// judge asks the permission gate about the call; a refusal ends it.
func (k *toolCall) judge(ctx context.Context) (tools.Result, bool) {
	gate := k.t.a.Gate
	if gate == nil || k.own && !k.tool.(turnTool).gated() {
		return tools.Result{}, true
	}
	// A hook may make a call asked about; it never makes one allowed.
	k.req.AlwaysAsk = k.req.AlwaysAsk || k.hookAsks
	v := gate.Check(ctx, k.req)
	if !v.Allowed {
		k.ev.Denied = true
		reason := v.Reason
		if len(k.req.Control) > 0 && !v.Asked {
			reason = permission.ControlWhy(k.req.Control) + ": " + reason
		}
		return deniedResult(reason), false
	}
	if v.Asked {
		k.write.approved = k.controlSpelt
	}
	k.proposalOnly = v.Proposal
	return tools.Result{}, true
}

// decorate returns the context the tool runs in: the call's session,
// write seam record, output file, shell watcher, proposal mode, the
// turn's changed files and a progress reporter. A turnTool's context
// carries only its call, so a task's child starts clean.
func (k *toolCall) decorate(ctx context.Context) context.Context {
	if k.own {
		return context.WithValue(ctx, toolCallKey{}, k)
	}
	t, ev := k.t, k.ev
	tctx := tools.WithOutputFile(withWriteCall(tools.WithSession(ctx, t.s.ID), k.write), t.outputFile(k.c))
	tctx = tools.WithShellWatcher(tctx, t.shellWatcher())
	if k.proposalOnly {
		tctx = tools.WithProposalOnly(tctx)
	}
	return tools.WithProgress(tools.WithChanged(tctx, t.changedFiles()), func(msg string) {
		t.event(Event{Kind: EventToolProgress, Tool: &ToolEvent{CallID: ev.CallID, Name: ev.Name, Title: ev.Title}, Text: msg})
	})
}

// run executes the tool in tctx, with panics recovered, and keeps what a
// plugin's tool did to Reasonix's control files from standing. A call
// that was cancelled or failed ends here, and so does a turnTool's:
// nothing of it is the tools' to record.
func (k *toolCall) run(ctx, tctx context.Context) (tools.Result, bool) {
	t, tool, name := k.t, k.tool, k.c.Name
	if k.own {
		// Neither timed nor checked for cancellation first: a task's
		// result says how long it took and that it was cancelled, and
		// the time a plan waits for approval is not the tool's.
		res, err := safeExecute(tctx, tool, t.a.Env, k.args)
		if err != nil {
			return k.failed(ctx, err), false
		}
		k.ran = ctx.Err() == nil
		return res, false
	}
	if err := ctx.Err(); err != nil {
		return tools.Result{Content: "Cancelled by the user before it ran.", IsError: true, Summary: "cancelled"}, false
	}
	// A plugin's tool may change any file, outside FS and its checks.
	var before *tools.ControlState
	watch := !tool.ReadOnly() && isThirdParty(tool)
	if watch {
		before = t.a.Env.Control.Snapshot()
	}
	// The turn keeps what the files the call declared held before its
	// first change to them (the write seam does for the others).
	for _, p := range k.declared {
		t.rememberBefore(t.a.Env.FS, t.a.Env.Abs(p))
	}
	// The duration is the tool's own: the clock starts once the call is
	// allowed, not while the user reads the question.
	k.start = time.Now()
	res, err := safeExecute(tctx, tool, t.a.Env, k.args)
	if watch {
		t.a.Env.Control.Undo(ctx, before, &res, t.a.Env.Rel)
	}
	if res.Notice != "" {
		t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("%s: %s", name, res.Notice)})
	}
	if err != nil {
		return k.failed(ctx, err), false
	}
	k.ran = ctx.Err() == nil
	return res, true
}

// stopClock sets the call's duration: from the start of its run to the
// end of the steps after it, whose checks are part of its result.
func (k *toolCall) stopClock() {
	if !k.start.IsZero() {
		k.ev.DurationMs = time.Since(k.start).Milliseconds()
	}
}

// failed is the result of a call whose tool returned an error.
func (k *toolCall) failed(ctx context.Context, err error) tools.Result {
	if ctx.Err() != nil {
		return tools.Result{Content: "Cancelled by the user while running.", IsError: true, Summary: "cancelled"}
	}
	k.t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("%s failed: %v", k.c.Name, err)})
	return tools.Errorf("%s failed: %v", k.c.Name, err)
}

// record tells the project graph and the turn's change log what the call
// changed: the files it names, or for a call that names none and may
// write (a shell command, a plugin), that any file may have changed.
func (k *toolCall) record(res *tools.Result) {
	t := k.t
	if pg := t.a.Env.Graph; pg != nil && len(res.Changed) == 0 && !k.tool.ReadOnly() {
		pg.DiskChanged()
	}
	if len(res.Changed) == 0 {
		return
	}
	t.noteChanged(res.Changed)
	for _, p := range res.Changed {
		p = t.a.Env.Abs(p)
		_, exists, _ := readView(t.a.Env.FS, p)
		t.fileChanged(p, SourceTool, exists)
	}
}

// verify appends to a successful edit's result the breakage it caused
// (VerifyAfterEdit), while the edit is fresh rather than at the next
// build.
func (k *toolCall) verify(ctx context.Context, res *tools.Result) {
	env := k.t.a.Env
	if len(res.Changed) == 0 || res.IsError || !k.t.a.VerifyAfterEdit || env.Graph == nil {
		return
	}
	if paths := unasked(env, res.Changed); len(paths) > 0 {
		res.Content += env.Graph.Verify(ctx, paths)
	}
}

// attachMemory appends to a successful result the project memory of the
// directories the call touched, each file once a session.
func (k *toolCall) attachMemory(res *tools.Result) {
	if !res.IsError {
		res.Content += k.t.nestedMemoryFor(k.tool, k.args, res.Changed)
	}
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

// deniedResult is the result of a call the gate refused.
func deniedResult(reason string) tools.Result {
	return tools.Result{
		Content: fmt.Sprintf("Permission denied: %s. The call was not run. Do not retry it unchanged; choose another approach or ask the user.", reason),
		IsError: true,
		Summary: "denied",
	}
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
