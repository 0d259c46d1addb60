package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools"
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
	args := json.RawMessage(p.Args)
	if !json.Valid(args) {
		args = nil
	}
	title := agent.DescribeCall(p.Tool, args)
	actions := []string{titleAllowOnce, titleAllowSession, titleAlwaysAllow, titleDeny}
	answer, err := s.choose(ctx, choice{
		params: approveParams{
			SessionID: p.SessionID, Tool: p.Tool, Title: title, Arguments: args,
			Scope: p.Scope, Message: msg, Actions: actions,
		},
		dialog: msg, typ: protocol.MessageTypeWarning,
		what:     "The question whether to allow " + permission.Visible(title),
		outcome:  "it counts as " + titleDeny,
		announce: func() { s.notifyApproval(p, msg) },
	})
	if err != nil {
		return permission.AnswerDeny, err
	}
	return answerFor(answer), nil // no answer ("") is no
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

// promptText words the question: what the agent wants to do, and what a
// session or permanent grant would cover.
func promptText(p permission.Prompt, s *Server) string {
	// What the model wrote (a command, a path) is made visible: a
	// bidirectional override must not reorder the question in the
	// editor's dialog, nor a control character hide part of it.
	return permission.Visible(promptWords(p, s))
}

func promptWords(p permission.Prompt, s *Server) string {
	if p.Escalation != "" {
		return fmt.Sprintf("Reasonix's shell sandbox may have blocked `%s` (%s). Run it again outside the sandbox, this once?",
			tools.ArgString(p.Args, "command"), p.Escalation)
	}
	// What the call does, in its tool's words.
	_, call := agent.Describe(p.Tool, p.Args)
	what := call.Wording
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
	caps := a.s.capsNow()
	var dialog string
	if caps.askWay(caps.approvals) == askDialog {
		dialog = a.s.planDialog(ctx, plan)
	}
	answer, err := a.s.choose(ctx, choice{
		params: approveParams{
			SessionID: sessionID, Tool: "exit_plan_mode", Title: "exit_plan_mode", Message: plan,
			Actions: []string{titleApprovePlan, titleKeepPlanning},
		},
		dialog: dialog, typ: protocol.MessageTypeInfo,
		what: "The plan's approval", outcome: "it counts as " + titleKeepPlanning,
	})
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

// A choice is a question with fixed answers that is not the agent's own
// question: a permission, a plan to approve, a conversation to clear.
type choice struct {
	// params is the reasonix/approve request, for clients that declared
	// approvals; its Actions are the answers.
	params approveParams
	// dialog and typ are the message and type of the
	// window/showMessageRequest asked of other clients.
	dialog string
	typ    protocol.MessageType
	// what names the question and outcome says what no answer means, for
	// the notice when none comes in time (await).
	what, outcome string
	// announce, when set, runs just before the question is sent.
	announce func()
}

// choose asks c through reasonix/approve or a dialog, as the client
// declared (askWay), and returns the action picked, "" for none. The
// error is errCannotAsk for a client that cannot be asked, and wraps
// errNoAnswer or errUnanswered for a question with no answer in time
// (see unanswered).
func (s *Server) choose(ctx context.Context, c choice) (string, error) {
	caps := s.capsNow()
	way := caps.askWay(caps.approvals)
	if way == askNever {
		return "", errCannotAsk
	}
	var picked *string
	err := s.await(ctx, c.what, c.outcome, func(ctx context.Context) error {
		if c.announce != nil {
			c.announce()
		}
		if way == askCustom {
			res, err := approve.call(ctx, s, c.params)
			picked = res.Action
			return err
		}
		items := make([]protocol.MessageActionItem, len(c.params.Actions))
		for i, a := range c.params.Actions {
			items[i] = protocol.MessageActionItem{Title: a}
		}
		item, err := showMessageRequest.call(ctx, s, &protocol.ShowMessageRequestParams{
			Type: c.typ, Message: c.dialog, Actions: items,
		})
		if item != nil {
			picked = &item.Title
		}
		return err
	})
	if err != nil || picked == nil {
		return "", err
	}
	return *picked, nil
}
