package acp

import (
	"context"
	"encoding/json"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
)

// update sends one session/update of the session. A client that went
// away loses it; the turn goes on to its end and is saved. A kind of
// update the client's schema lacks is not sent (Server.takes).
func (ss *session) update(u acpsdk.SessionUpdate) {
	if !ss.s.takes(u) {
		return
	}
	ss.mu.Lock()
	id := ss.id
	ss.mu.Unlock()
	if id == "" {
		// The session is still being made (its MCP servers starting):
		// the client cannot place an update yet, so the log keeps it.
		ss.s.log.Info("before the session", "update", u)
		return
	}
	err := ss.s.conn.SessionUpdate(ss.s.ctx, acpsdk.SessionNotification{SessionId: acpsdk.SessionId(id), Update: u})
	if err != nil {
		ss.s.log.Debug("session/update", "session", ss.id, "err", err)
	}
}

// message adds text to the agent's answer.
func (ss *session) message(text string) { ss.update(acpsdk.UpdateAgentMessageText(text)) }

// thought shows text as the agent's thinking: notices, repairs and
// compactions, which are not part of the answer. Before the client knows
// the session (its agent still being built) the text waits in notes.
func (ss *session) thought(text string) {
	ss.mu.Lock()
	if ss.id == "" {
		ss.notes = append(ss.notes, strings.TrimPrefix(text, "Reasonix: "))
		ss.mu.Unlock()
		return
	}
	ss.mu.Unlock()
	ss.update(acpsdk.UpdateAgentThoughtText(text + "\n"))
}

// event turns one of the agent's events into session/update
// notifications.
func (ss *session) event(e agent.Event) {
	switch e.Kind {
	case agent.EventText:
		if e.Parent == "" && e.Text != "" {
			ss.message(e.Text)
		}
	case agent.EventReasoning:
		if e.Parent == "" && e.Text != "" {
			ss.update(acpsdk.UpdateAgentThoughtText(e.Text))
		}
	case agent.EventRetry:
		ss.thought("(the model request failed and is being retried; what streamed since the last step is void)")
	case agent.EventNotice, agent.EventCompaction, agent.EventRepair, agent.EventCheck, agent.EventHook:
		if e.Text != "" {
			ss.thought(e.Text)
		}
	case agent.EventToolStart:
		ss.toolStart(e.Tool)
	case agent.EventToolProgress:
		if e.Tool == nil {
			return
		}
		ss.update(acpsdk.UpdateToolCall(acpsdk.ToolCallId(e.Tool.CallID),
			acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusInProgress),
			acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(e.Text))})))
	case agent.EventToolResult:
		ss.toolResult(e.Tool)
	case agent.EventUsage:
		ss.usage(e.Usage)
	}
}

// toolStart announces a call as pending: it has not been checked or run.
func (ss *session) toolStart(t *agent.ToolEvent) {
	if t == nil {
		return
	}
	kind := toolKind(t.Name)
	paths := ss.callPaths(t.Name, t.Arguments)
	ss.mu.Lock()
	ss.calls[t.CallID] = &callState{name: t.Name, kind: kind, paths: paths}
	ss.open = append(ss.open, t.CallID)
	ss.mu.Unlock()
	for _, p := range paths {
		if kind == acpsdk.ToolKindRead || kind == acpsdk.ToolKindEdit {
			// The client may hold this file in an unsaved buffer.
			ss.fs.hold(p)
		}
	}
	opts := []acpsdk.ToolCallStartOpt{
		acpsdk.WithStartKind(kind), acpsdk.WithStartStatus(acpsdk.ToolCallStatusPending),
		acpsdk.WithStartLocations(locations(paths)),
	}
	if raw := rawInput(t.Arguments); raw != nil {
		opts = append(opts, acpsdk.WithStartRawInput(raw))
	}
	ss.update(acpsdk.StartToolCall(acpsdk.ToolCallId(t.CallID), t.Title, opts...))
}

// toolResult closes a call: completed, or failed when it errs or was
// denied; an edit carries the diff of every file it changed, anything
// else its result as text.
func (ss *session) toolResult(t *agent.ToolEvent) {
	if t == nil {
		return
	}
	ss.mu.Lock()
	delete(ss.calls, t.CallID)
	for i, id := range ss.open {
		if id == t.CallID {
			ss.open = append(ss.open[:i], ss.open[i+1:]...)
			break
		}
	}
	ss.mu.Unlock()
	status := acpsdk.ToolCallStatusCompleted
	if t.IsError || t.Denied {
		status = acpsdk.ToolCallStatusFailed
	}
	var content []acpsdk.ToolCallContent
	for _, p := range t.Changed {
		if d, ok := ss.fs.takeDiff(ss.abs(p)); ok {
			content = append(content, d)
		}
	}
	if len(content) == 0 && t.Result != "" {
		content = append(content, acpsdk.ToolContent(acpsdk.TextBlock(clip(t.Result, 8000))))
	}
	opts := []acpsdk.ToolCallUpdateOpt{acpsdk.WithUpdateStatus(status), acpsdk.WithUpdateContent(content)}
	if t.Summary != "" {
		opts = append(opts, acpsdk.WithUpdateRawOutput(map[string]any{"summary": t.Summary, "isError": t.IsError, "denied": t.Denied}))
	}
	ss.update(acpsdk.UpdateToolCall(acpsdk.ToolCallId(t.CallID), opts...))
}

// usage reports the context in use and the session's cost.
func (ss *session) usage(u *agent.UsageEvent) {
	if u == nil {
		return
	}
	ss.mu.Lock()
	a := ss.agents[""]
	ss.mu.Unlock()
	size := 0
	if a != nil {
		size = a.ContextWindow
	}
	used := u.Request.PromptTokens + u.Request.CompletionTokens
	up := &acpsdk.SessionUsageUpdate{Used: used, Size: max(size, used), Meta: map[string]any{"reasonix": map[string]any{
		"model": u.Model, "cacheHitRatio": hitRatio(u.Session), "turnCost": u.TurnCost, "priced": u.Priced,
		"turn": u.Turn, "session": u.Session,
	}}}
	if u.Priced {
		up.Cost = &acpsdk.Cost{Amount: u.SessionCost, Currency: "USD"}
	}
	ss.update(acpsdk.SessionUpdate{UsageUpdate: up})
}

func hitRatio(u provider.Usage) float64 {
	if n := u.CacheHitTokens + u.CacheMissTokens; n > 0 {
		return float64(u.CacheHitTokens) / float64(n)
	}
	return 0
}

// toolKind says what kind of thing a tool does, for the client's icon:
// the kind the tool gives itself (tools.Traits).
func toolKind(name string) acpsdk.ToolKind {
	tr, _ := agent.Describe(name, nil)
	if k, ok := acpKinds[tr.Kind]; ok {
		return k
	}
	return acpsdk.ToolKindOther
}

// acpKinds maps the kinds tools give themselves to the protocol's.
var acpKinds = map[string]acpsdk.ToolKind{
	tools.KindRead:       acpsdk.ToolKindRead,
	tools.KindEdit:       acpsdk.ToolKindEdit,
	tools.KindDelete:     acpsdk.ToolKindDelete,
	tools.KindMove:       acpsdk.ToolKindMove,
	tools.KindSearch:     acpsdk.ToolKindSearch,
	tools.KindExecute:    acpsdk.ToolKindExecute,
	tools.KindThink:      acpsdk.ToolKindThink,
	tools.KindFetch:      acpsdk.ToolKindFetch,
	tools.KindSwitchMode: acpsdk.ToolKindSwitchMode,
	tools.KindOther:      acpsdk.ToolKindOther,
}

// callPaths are the files a call is about, absolute: those it changes,
// else those it reads, in its tool's words (tools.Call).
func (ss *session) callPaths(tool string, args json.RawMessage) []string {
	_, call := agent.Describe(tool, args)
	names := call.Writes
	if len(names) == 0 {
		names = call.Reads
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != "" {
			out = append(out, ss.abs(n))
		}
	}
	return out
}

// abs resolves a path as the tools do.
func (ss *session) abs(p string) string {
	ss.mu.Lock()
	a := ss.agents[""]
	ss.mu.Unlock()
	if a == nil {
		return p
	}
	return a.Env.Abs(p)
}

func locations(paths []string) []acpsdk.ToolCallLocation {
	out := make([]acpsdk.ToolCallLocation, 0, len(paths))
	for _, p := range paths {
		out = append(out, acpsdk.ToolCallLocation{Path: p})
	}
	return out
}

// rawInput decodes a call's arguments for the client, nil when they are
// not JSON.
func rawInput(args json.RawMessage) any {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return nil
	}
	return v
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// announce tells the client, once it has the session, the notes kept
// for it and the slash commands the session offers: built-ins, custom
// commands, skills and MCP prompts.
func (ss *session) announce() {
	ss.mu.Lock()
	a, notes := ss.agents[""], ss.notes
	ss.notes = nil
	ss.mu.Unlock()
	for _, n := range notes {
		ss.thought("Reasonix: " + n)
	}
	if a == nil {
		return
	}
	cmds, warnings := a.Commands()
	for _, w := range warnings {
		ss.s.log.Warn("commands", "warning", w)
	}
	out := make([]acpsdk.AvailableCommand, 0, len(cmds))
	for _, c := range cmds {
		ac := acpsdk.AvailableCommand{Name: strings.TrimPrefix(c.Name, "/"), Description: c.Description}
		if c.ArgumentHint != "" {
			ac.Input = &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: c.ArgumentHint}}
		}
		out = append(out, ac)
	}
	ss.update(acpsdk.SessionUpdate{AvailableCommandsUpdate: &acpsdk.SessionAvailableCommandsUpdate{AvailableCommands: out}})
}

// replay sends a loaded session's conversation as updates: the user's
// messages, the answers and reasoning, and each tool call with its
// result, so the client shows it as it was.
func (ss *session) replay(ctx context.Context) {
	msgs := ss.sess.Messages()
	names := map[string]string{}
	for _, m := range msgs {
		if ctx.Err() != nil {
			return
		}
		switch m.Role {
		case provider.RoleUser:
			ss.update(acpsdk.UpdateUserMessageText(m.Content))
		case provider.RoleAssistant:
			if m.Reasoning != "" {
				ss.update(acpsdk.UpdateAgentThoughtText(m.Reasoning))
			}
			if m.Content != "" {
				ss.message(m.Content)
			}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
				args := json.RawMessage(c.Arguments)
				opts := []acpsdk.ToolCallStartOpt{acpsdk.WithStartKind(toolKind(c.Name)),
					acpsdk.WithStartStatus(acpsdk.ToolCallStatusPending), acpsdk.WithStartLocations(locations(ss.callPaths(c.Name, args)))}
				if raw := rawInput(args); raw != nil {
					opts = append(opts, acpsdk.WithStartRawInput(raw))
				}
				ss.update(acpsdk.StartToolCall(acpsdk.ToolCallId(c.ID), agent.DescribeCall(c.Name, args), opts...))
			}
		case provider.RoleTool:
			ss.update(acpsdk.UpdateToolCall(acpsdk.ToolCallId(m.ToolCallID),
				acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusCompleted),
				acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(clip(m.Content, 8000)))})))
		}
	}
}
