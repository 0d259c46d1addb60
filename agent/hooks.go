package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/hooks"
	"github.com/reasonix/reasonix/tools/permission"
)

// The user's hooks (tools/hooks) at the points of a turn they attach
// to. Every hook that runs is logged as an EventHook naming the hook,
// its event and how it ended; it runs with the turn's context, so
// cancelling the turn stops it. The turns of tasks and the planner run
// the tool hooks of their calls, but not the hooks of a prompt, a
// session or a stop, which are the user's turn's.

// maxStopRounds bounds how many times Stop hooks may send the model back
// to work in one turn, so that a hook that always blocks cannot keep a
// turn going for ever.
const maxStopRounds = 3

// runHooks runs the hooks of in.Event, logging each.
func (t *turn) runHooks(ctx context.Context, in hooks.Input) hooks.Result {
	r := t.a.Hooks
	if !r.Has(in.Event) {
		return hooks.Result{}
	}
	in.SessionID = t.s.ID
	if t.a.Store != nil && t.s.file != nil {
		in.TranscriptPath = t.a.Store.Path(t.s.ID)
	}
	return r.Run(ctx, in, func(o hooks.Outcome) {
		t.event(Event{Kind: EventHook, Text: o.String()})
	})
}

// preToolHook runs the PreToolUse hooks of the call. A hook that blocks
// it ends the call with its reason as the result; one that answers "ask"
// makes the permission gate ask the user whatever the rules say. An
// "allow" changes nothing: the rules and the sandbox still hold.
func (k *toolCall) preToolHook(ctx context.Context) (tools.Result, bool) {
	if !k.t.a.Hooks.Has(hooks.PreToolUse) {
		return tools.Result{}, true
	}
	res := k.t.runHooks(ctx, hooks.Input{Event: hooks.PreToolUse, ReasonixTool: k.c.Name, ToolInput: k.hookInput()})
	if res.Block {
		k.ev.Denied = true
		return tools.Result{
			Content: fmt.Sprintf("Blocked by the user's PreToolUse hook; the call was not run: %s", res.Reason),
			IsError: true,
			Summary: "blocked by a hook",
		}, false
	}
	k.hookAsks = res.Permission == "ask"
	return tools.Result{}, true
}

// postToolHook runs the PostToolUse hooks of a call that ran; what a
// hook that blocks says, and context a hook adds, follow the result.
func (k *toolCall) postToolHook(ctx context.Context, res *tools.Result) {
	if !k.t.a.Hooks.Has(hooks.PostToolUse) {
		return
	}
	content := res.Content
	if r := k.t.s.redact; r != nil {
		// As the model and the session see it.
		content = r.apply(content)
	}
	r := k.t.runHooks(ctx, hooks.Input{
		Event: hooks.PostToolUse, ReasonixTool: k.c.Name, ToolInput: k.hookInput(),
		ToolResponse: &hooks.ToolResponse{Content: content, IsError: res.IsError, Summary: res.Summary},
	})
	if r.Block {
		res.Content += "\n\n[The user's PostToolUse hook says: " + r.Reason + "]"
	}
	if r.Context != "" {
		res.Content += "\n\n[Context from the user's PostToolUse hook: " + r.Context + "]"
	}
}

// hookInput is the call's arguments as hooks read them: as the model
// sent them, with, for a tool that names one file by path, that file's
// absolute path as file_path too, where Claude Code's tools put it.
func (k *toolCall) hookInput() json.RawMessage {
	var args map[string]any
	if json.Unmarshal(k.args, &args) != nil {
		return k.args
	}
	p, ok := args["path"].(string)
	if _, has := args["file_path"]; !ok || has || k.t.a.Env == nil {
		return k.args
	}
	args["file_path"] = k.t.a.Env.Abs(p)
	b, err := json.Marshal(args)
	if err != nil {
		return k.args
	}
	return b
}

// promptHooks runs, before a user's turn, the SessionStart hooks (for
// the session's first turn in this process) and the UserPromptSubmit
// hooks; before a task helper's, the SubagentStart hooks. It returns what they add to the prompt, or blocked when a
// prompt hook blocked the prompt.
func (t *turn) promptHooks(ctx context.Context, prompt string) (extra string, blocked bool) {
	if t.nested {
		// A task's helper: its SubagentStart hooks, whose context joins
		// its prompt; the planner runs none.
		if t.subagent == "" || !t.a.Hooks.Has(hooks.SubagentStart) {
			return "", false
		}
		return hookContext(t.runHooks(ctx, hooks.Input{Event: hooks.SubagentStart, AgentType: t.subagent, AgentID: t.s.ID}).Context), false
	}
	if t.a.Hooks == nil {
		return "", false
	}
	if t.s.startHooks() {
		source := "startup"
		if t.n > 1 {
			source = "resume"
		}
		extra += hookContext(t.runHooks(ctx, hooks.Input{Event: hooks.SessionStart, Source: source}).Context)
	}
	r := t.runHooks(ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: prompt})
	if r.Block {
		t.event(Event{Kind: EventNotice, Text: "the prompt was blocked by a UserPromptSubmit hook: " + r.Reason})
		return "", true
	}
	return extra + hookContext(r.Context), false
}

// hookContext renders what hooks add to a prompt.
func hookContext(text string) string {
	if text == "" {
		return ""
	}
	return "\n\nContext from the user's hooks:\n" + text
}

// stopHook runs the Stop hooks when the model answered without calling
// a tool — for a task's helper, the SubagentStop hooks — with answer,
// the answer it stops with. It returns the reason to go on when a hook
// blocked the stop, at most maxStopRounds times a turn. The planner's
// turns run neither.
func (t *turn) stopHook(ctx context.Context, answer string) (string, bool) {
	ev := hooks.Stop
	if t.nested {
		if t.subagent == "" {
			return "", false
		}
		ev = hooks.SubagentStop
	}
	if !t.a.Hooks.Has(ev) {
		return "", false
	}
	r := t.runHooks(ctx, hooks.Input{Event: ev, StopHookActive: t.stopRounds > 0, LastAssistantMessage: answer, AgentType: t.subagent})
	if !r.Block {
		return "", false
	}
	if t.stopRounds >= maxStopRounds {
		t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("a %s hook asked to go on once more; the turn ends, as stop hooks sent the model back %d times already", ev, maxStopRounds)})
		return "", false
	}
	t.stopRounds++
	return fmt.Sprintf("The user's %s hook asks you to go on: %s", ev, r.Reason), true
}

// notifyKey carries, in a tool call's context, the turn whose
// Notification hooks run before the user is asked about the call.
type notifyKey struct{}

// notifying is an Approver that runs the Notification hooks of the turn
// in ctx before it asks, as Claude Code does before a permission
// question: the user may be looking elsewhere.
type notifying struct{ permission.Approver }

func (n notifying) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	if t, ok := ctx.Value(notifyKey{}).(*turn); ok && t.a.Hooks.Has(hooks.Notification) {
		t.runHooks(ctx, hooks.Input{Event: hooks.Notification, NotificationType: "permission_prompt",
			Message: "Reasonix needs your permission to use " + p.Request.Tool})
	}
	return n.Approver.Approve(ctx, p)
}

// EndSession runs the SessionEnd hooks of s, a session that ran a turn
// in this process, for reason ("clear", "other"); front ends call it
// before they close the session. Its hooks cannot keep the session.
func (a *Agent) EndSession(ctx context.Context, s *Session, reason string) {
	if !a.Hooks.Has(hooks.SessionEnd) || !s.hooksRan() {
		return
	}
	in := hooks.Input{Event: hooks.SessionEnd, SessionID: s.ID, Reason: reason}
	if a.Store != nil && s.file != nil {
		in.TranscriptPath = a.Store.Path(s.ID)
	}
	a.Hooks.Run(ctx, in, func(o hooks.Outcome) {
		a.emit(Event{Kind: EventHook, SessionID: s.ID, Text: o.String()})
	})
}

// hooksRan reports whether the session's SessionStart hooks ran in this
// process: it ran a turn here.
func (s *Session) hooksRan() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hooksStarted
}

// startHooks reports whether the session's SessionStart hooks are yet to
// run in this process, and marks them run.
func (s *Session) startHooks() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.hooksStarted
	s.hooksStarted = true
	return first
}

// preCompactHook runs the PreCompact hooks before a compaction for
// reason; they are told of it and cannot stop it, since a session that
// does not fit its model's window cannot go on.
func (t *turn) preCompactHook(ctx context.Context, reason string) {
	trigger := "auto"
	if reason == CompactManual {
		trigger = "manual"
	}
	t.runHooks(ctx, hooks.Input{Event: hooks.PreCompact, Trigger: trigger})
}

// withNotification is ap with the turn's Notification hooks run before
// it asks; nil stays nil, so that no one to ask still refuses.
func withNotification(ap permission.Approver) permission.Approver {
	if ap == nil {
		return nil
	}
	return notifying{ap}
}
