package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/permission"
)

// The four answers of a permission dialog. These titles are public: tests
// and editor plugins match them exactly.
const (
	titleAllowOnce    = "Allow once"
	titleAllowSession = "Allow for session"
	titleAlwaysAllow  = "Always allow"
	titleDeny         = "Deny"
)

// approver asks the user through window/showMessageRequest.
type approver struct {
	s *Server
}

var _ permission.Approver = (*approver)(nil)

func (a *approver) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	s := a.s
	msg := promptText(p, s)
	s.notifyApproval(p, msg)
	s.mu.Lock()
	custom := s.caps.approvals
	s.mu.Unlock()
	if custom {
		return a.approveCustom(ctx, p, msg)
	}
	item, err := s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: msg,
		Actions: []protocol.MessageActionItem{
			{Title: titleAllowOnce}, {Title: titleAllowSession}, {Title: titleAlwaysAllow}, {Title: titleDeny},
		},
	})
	if err != nil {
		return permission.AnswerDeny, err
	}
	if item == nil {
		return permission.AnswerDeny, nil // dismissed: no answer is no
	}
	return answerFor(item.Title), nil
}

// answerFor maps an action title to the answer; anything else is Deny.
func answerFor(title string) permission.Answer {
	switch title {
	case titleAllowOnce:
		return permission.AnswerOnce
	case titleAllowSession:
		return permission.AnswerSession
	case titleAlwaysAllow:
		return permission.AnswerAlways
	}
	return permission.AnswerDeny
}

// approveParams is the reasonix/approve request.
type approveParams struct {
	SessionID string          `json:"sessionId"`
	Tool      string          `json:"tool"`
	Title     string          `json:"title"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Scope     string          `json:"scope"`
	Message   string          `json:"message"`
	Actions   []string        `json:"actions"`
}

type approveResult struct {
	Action *string `json:"action"`
}

// approveCustom asks through reasonix/approve, for clients that show the
// question their own way.
func (a *approver) approveCustom(ctx context.Context, p permission.Prompt, msg string) (permission.Answer, error) {
	args := json.RawMessage(p.Args)
	if !json.Valid(args) {
		args = nil
	}
	params := approveParams{
		SessionID: p.SessionID, Tool: p.Tool, Title: agent.DescribeCall(p.Tool, args), Arguments: args,
		Scope: p.Scope, Message: msg,
		Actions: []string{titleAllowOnce, titleAllowSession, titleAlwaysAllow, titleDeny},
	}
	var res approveResult
	if _, err := a.s.conn.Call(ctx, methodApprove, params, &res); err != nil {
		return permission.AnswerDeny, err
	}
	if res.Action == nil {
		return permission.AnswerDeny, nil
	}
	return answerFor(*res.Action), nil
}

// promptText words the question: what the agent wants to do, and what a
// session or permanent grant would cover.
func promptText(p permission.Prompt, s *Server) string {
	// What the model wrote (a command, a path) is made visible: a
	// bidirectional override must not reorder the question in the
	// editor's dialog, nor a control character hide part of it.
	return permission.Visible(promptWords(p, s))
}

func promptWords(p permission.Prompt, s *Server) string {
	var args map[string]any
	json.Unmarshal(p.Args, &args)
	str := func(k string) string { v, _ := args[k].(string); return v }
	var what string
	switch {
	case p.Escalation != "":
		return fmt.Sprintf("Reasonix's shell sandbox may have blocked `%s` (%s). Run it again outside the sandbox, this once?",
			str("command"), p.Escalation)
	case p.Tool == "bash":
		// The whole command, as the terminal shows it: what a cut would
		// leave out runs all the same once the call is allowed.
		what = fmt.Sprintf("run the command `%s`", str("command"))
	case p.Tool == "move_file":
		what = fmt.Sprintf("move %s to %s", str("source"), str("destination"))
	case p.Tool == "remember":
		what = "save a note in its memory"
	case p.Tool == "forget":
		what = "forget a note in its memory"
	case p.Tool == "apply_patch":
		what = "apply a patch to " + strings.Join(patchFiles(str("patch")), ", ")
	case str("path") != "":
		what = fmt.Sprintf("use %s on %s", p.Tool, str("path"))
	default:
		what = "use the tool " + p.Tool
	}
	if p.AlwaysAsk {
		// No answer is remembered, so the grant scope means nothing; the
		// change itself is what the user approves.
		msg := fmt.Sprintf("Reasonix wants to %s. It is asked each time%s: any answer but %s allows this call only.", what, alwaysAskReason(p.Why), titleDeny)
		if change := p.Change(); change != "" {
			msg += "\n\n" + change
		}
		return msg
	}
	return fmt.Sprintf("Reasonix wants to %s. (%s covers %s.)", what, titleAllowSession, p.Scope)
}

// alwaysAskReason is what, beyond "it is asked each time", says why a
// call is asked each time: ", since it changes reasonix.toml, …" for a
// control file, nothing for a call asked by its nature (remember).
func alwaysAskReason(why string) string {
	why = strings.TrimSuffix(why, ", so it needs approval each time")
	if why == "" || strings.HasSuffix(why, "needs approval each time") {
		return ""
	}
	return ", since it " + why
}

// patchFiles lists the files a unified diff names.
func patchFiles(patch string) []string {
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		if name, ok := strings.CutPrefix(l, "+++ "); ok {
			name = strings.TrimPrefix(strings.Fields(name + " ")[0], "b/")
			if name != "/dev/null" {
				out = append(out, name)
			}
		}
	}
	if len(out) == 0 {
		out = []string{"files"}
	}
	return out
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// approvalEvent tells panels that a dialog is open.
type approvalEvent struct {
	Kind      string          `json:"kind"`
	SessionID string          `json:"sessionId"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Scope     string          `json:"scope"`
	Message   string          `json:"message"`
	Actions   []string        `json:"actions"`
}

func (s *Server) notifyApproval(p permission.Prompt, msg string) {
	s.mu.Lock()
	stream := s.caps.events
	s.mu.Unlock()
	if !stream {
		return
	}
	args := json.RawMessage(p.Args)
	if !json.Valid(args) {
		args = nil
	}
	s.notifyEvent(approvalEvent{
		Kind: "approval", SessionID: p.SessionID, Tool: p.Tool, Arguments: args, Scope: p.Scope, Message: msg,
		Actions: []string{titleAllowOnce, titleAllowSession, titleAlwaysAllow, titleDeny},
	})
}

// The answers of a plan approval.
const (
	titleApprovePlan  = "Approve plan"
	titleKeepPlanning = "Keep planning"
)

// ApprovePlan shows a plan (exit_plan_mode's, or the planner's) and asks
// whether to carry it out: reasonix/approve for clients that declared
// approvals (the whole plan as the message), else a dialog. A dialog is no
// place for a long plan, so a client that opens documents
// (window/showDocument) first gets the plan as a Markdown file and the
// dialog says where it is; others get it clipped in the dialog.
func (a *approver) ApprovePlan(ctx context.Context, sessionID, plan string) (bool, string, error) {
	plan = strings.TrimSpace(plan)
	a.s.mu.Lock()
	custom := a.s.caps.approvals
	a.s.mu.Unlock()
	var dialog string
	if !custom {
		dialog = a.s.planDialog(ctx, plan)
	}
	answer, err := a.s.choose(ctx, approveParams{
		SessionID: sessionID, Tool: "exit_plan_mode", Title: "exit_plan_mode", Message: plan,
		Actions: []string{titleApprovePlan, titleKeepPlanning},
	}, dialog)
	if err != nil {
		return false, "", err
	}
	return answer == titleApprovePlan, "", nil
}

// planDialog is the message of a plan's dialog: the plan opened as a
// document when the editor shows one, else the plan itself, clipped.
func (s *Server) planDialog(ctx context.Context, plan string) string {
	s.mu.Lock()
	can := s.caps.showDocument
	s.mu.Unlock()
	if can {
		_, name, shown, err := s.showFile(ctx, "plan-*.md", "# Plan\n\n"+plan+"\n")
		if err != nil {
			s.log.Warn("writing the plan", "err", err)
		}
		if shown {
			return fmt.Sprintf("Reasonix proposes a plan, open in the editor (%s). %s, or %s?", filepath.Base(name), titleApprovePlan, strings.ToLower(titleKeepPlanning))
		}
	}
	return "Reasonix proposes a plan:\n\n" + clip(plan, 3000)
}

// choose asks the user a question that is not a tool's permission — a
// plan to approve, a conversation to clear — and returns the action
// picked, "" for none: reasonix/approve (p) for clients that declared
// approvals, else a dialog with dialog as its message.
func (s *Server) choose(ctx context.Context, p approveParams, dialog string) (string, error) {
	s.mu.Lock()
	custom := s.caps.approvals
	s.mu.Unlock()
	if custom {
		var res approveResult
		if _, err := s.conn.Call(ctx, methodApprove, p, &res); err != nil {
			return "", err
		}
		if res.Action == nil {
			return "", nil
		}
		return *res.Action, nil
	}
	items := make([]protocol.MessageActionItem, len(p.Actions))
	for i, a := range p.Actions {
		items[i] = protocol.MessageActionItem{Title: a}
	}
	item, err := s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeInfo, Message: dialog, Actions: items,
	})
	if err != nil || item == nil {
		return "", err
	}
	return item.Title, nil
}
