package acp

import (
	"context"
	"encoding/json"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/permission"
)

// The options of a permission request. They grant what the language
// server's dialog buttons grant (lsp/permission.go): allow_once is
// "Allow once", allow_session "Allow for session", allow_always "Always
// allow" (a rule saved in the configuration); both rejections are "Deny",
// which the agent does not remember.
const (
	optAllowOnce    = "allow_once"
	optAllowSession = "allow_session"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// approver asks the client with session/request_permission.
type approver struct {
	ss *session
}

var (
	_ permission.Approver     = (*approver)(nil)
	_ permission.PlanApprover = (*approver)(nil)
)

// Approve asks about a call the rules say to ask about. No answer — the
// client errs, the turn is cancelled, the client answers cancelled or an
// option it was not offered — is Deny.
func (ap *approver) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	ss := ap.ss
	id, kind := ss.pendingCall(p.Tool)
	if id == "" {
		id = "ask-" + p.Tool
	}
	title := agent.DescribeCall(p.Tool, p.Args)
	why := "Allow for session covers " + p.Scope
	options := []acpsdk.PermissionOption{
		{OptionId: optAllowOnce, Name: "Allow once", Kind: acpsdk.PermissionOptionKindAllowOnce},
		{OptionId: optAllowSession, Name: "Allow for session", Kind: acpsdk.PermissionOptionKindAllowAlways},
		{OptionId: optAllowAlways, Name: "Always allow", Kind: acpsdk.PermissionOptionKindAllowAlways},
		{OptionId: optRejectOnce, Name: "Deny", Kind: acpsdk.PermissionOptionKindRejectOnce},
		{OptionId: optRejectAlways, Name: "Deny (ask again next time)", Kind: acpsdk.PermissionOptionKindRejectAlways},
	}
	if p.AlwaysAsk || p.Escalation != "" {
		// Nothing is remembered: the call itself is what is approved.
		options = []acpsdk.PermissionOption{options[0], options[3]}
		why = p.Why
		if p.Escalation != "" {
			title = "Run outside the sandbox: " + title
			why = "the sandbox may have blocked it: " + p.Escalation
		}
	}
	// The change itself: as a diff where the client can show one, else
	// in the words the other front ends use.
	content := []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(permission.Visible(why)))}
	if cmd := commandOf(p.Args); cmd != "" {
		// The title is one short line; the command runs whole, so the
		// question shows it whole.
		content = append(content, acpsdk.ToolContent(acpsdk.TextBlock("```\n"+permission.Visible(cmd)+"\n```")))
	}
	if d, ok := ss.fs.preview(p.Tool, p.Args); ok {
		content = append(content, d...)
	} else if change := p.Change(); change != "" {
		content = append(content, acpsdk.ToolContent(acpsdk.TextBlock(change)))
	}
	resp, err := ss.s.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: acpsdk.SessionId(ss.id),
		ToolCall: acpsdk.ToolCallUpdate{ToolCallId: acpsdk.ToolCallId(id), Title: acpsdk.Ptr(title),
			Kind: acpsdk.Ptr(kind), Status: acpsdk.Ptr(acpsdk.ToolCallStatusPending), RawInput: rawInput(p.Args), Content: content},
		Options: options,
	})
	if err != nil {
		return permission.AnswerDeny, err
	}
	if resp.Outcome.Cancelled != nil {
		// The client cancelled the turn; its session/cancel may still be
		// on its way, and the turn must not go on meanwhile.
		ss.cancelTurn()
		return permission.AnswerDeny, nil
	}
	ans := permission.AnswerDeny
	if sel := resp.Outcome.Selected; sel != nil {
		switch string(sel.OptionId) {
		case optAllowOnce:
			ans = permission.AnswerOnce
		case optAllowSession:
			ans = permission.AnswerSession
		case optAllowAlways:
			ans = permission.AnswerAlways
		}
		if p.AlwaysAsk && ans != permission.AnswerDeny {
			ans = permission.AnswerOnce
		}
	}
	if ans != permission.AnswerDeny {
		ss.update(acpsdk.UpdateToolCall(acpsdk.ToolCallId(id), acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusInProgress)))
	}
	return ans, nil
}

// The options of a plan approval.
const (
	optApprovePlan  = "approve_plan"
	optKeepPlanning = "keep_planning"
)

// ApprovePlan shows a plan made in plan mode as the session's plan and
// asks whether to carry it out.
func (ap *approver) ApprovePlan(ctx context.Context, sessionID, plan string) (bool, string, error) {
	ss := ap.ss
	ss.update(acpsdk.UpdatePlan(planEntries(plan)...))
	id, _ := ss.pendingCall("exit_plan_mode")
	if id == "" {
		id = "plan"
	}
	resp, err := ss.s.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: acpsdk.SessionId(sessionID),
		ToolCall: acpsdk.ToolCallUpdate{ToolCallId: acpsdk.ToolCallId(id), Title: acpsdk.Ptr("Carry out this plan?"),
			Kind:    acpsdk.Ptr(acpsdk.ToolKindSwitchMode),
			Content: []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(permission.Visible(plan)))}},
		Options: []acpsdk.PermissionOption{
			{OptionId: optApprovePlan, Name: "Approve plan", Kind: acpsdk.PermissionOptionKindAllowOnce},
			{OptionId: optKeepPlanning, Name: "Keep planning", Kind: acpsdk.PermissionOptionKindRejectOnce},
		},
	})
	if err != nil {
		return false, "", err
	}
	if resp.Outcome.Cancelled != nil {
		ss.cancelTurn()
	}
	return resp.Outcome.Selected != nil && resp.Outcome.Selected.OptionId == optApprovePlan, "", nil
}

// planEntries makes the list items of a Markdown plan its entries; a plan
// without a list is one entry.
func planEntries(plan string) []acpsdk.PlanEntry {
	var out []acpsdk.PlanEntry
	for _, l := range strings.Split(plan, "\n") {
		t := strings.TrimSpace(l)
		item := ""
		switch {
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "):
			item = t[2:]
		default:
			if i := strings.Index(t, ". "); i > 0 && i <= 3 && strings.Trim(t[:i], "0123456789") == "" {
				item = t[i+2:]
			}
		}
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, acpsdk.PlanEntry{Content: item, Priority: acpsdk.PlanEntryPriorityMedium, Status: acpsdk.PlanEntryStatusPending})
		}
	}
	if len(out) == 0 && strings.TrimSpace(plan) != "" {
		out = append(out, acpsdk.PlanEntry{Content: clip(strings.TrimSpace(plan), 500), Priority: acpsdk.PlanEntryPriorityMedium, Status: acpsdk.PlanEntryStatusPending})
	}
	return out
}

// commandOf is the command a shell call's arguments hold, or "".
func commandOf(args json.RawMessage) string {
	var a struct {
		Command string `json:"command"`
	}
	json.Unmarshal(args, &a)
	return a.Command
}

// pendingCall finds the call a question is about: the latest started,
// unfinished call of that tool (calls that ask run one at a time).
func (ss *session) pendingCall(tool string) (string, acpsdk.ToolKind) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for i := len(ss.open) - 1; i >= 0; i-- {
		if c := ss.calls[ss.open[i]]; c != nil && c.name == tool {
			return ss.open[i], c.kind
		}
	}
	return "", toolKind(tool)
}
