package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reasonix/reasonix/tools"
)

// Plan mode: the agent may only look (trusted read-only tools) until the
// user approves its plan, which it presents with the exit_plan_mode tool.

// exitPlanTool is the exit_plan_mode tool. It is always offered, so the
// tool schemas (part of the cached prefix) do not change when a session
// enters or leaves plan mode. It is a turnTool: it needs the session.
type exitPlanTool struct{}

var _ turnTool = exitPlanTool{}

const exitPlanName = "exit_plan_mode"

//go:embed exit_plan_mode.md
var exitPlanDescription string

func (exitPlanTool) Name() string        { return exitPlanName }
func (exitPlanTool) Description() string { return exitPlanDescription }
func (exitPlanTool) ReadOnly() bool      { return false }
func (exitPlanTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"plan":{"type":"string","description":"The plan, in Markdown: the steps, the files to change, and how to verify."}},"required":["plan"],"additionalProperties":false}`)
}

// gated is false: the user's approval of the plan is the call's gate.
func (exitPlanTool) gated() bool { return false }

// Execute presents the plan and leaves plan mode if the user approves.
func (exitPlanTool) Execute(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Result, error) {
	k, ok := toolCallOf(ctx)
	if !ok {
		return tools.Result{}, errors.New("exit_plan_mode runs only in an agent's turn")
	}
	t := k.t
	var a struct {
		Plan string `json:"plan"`
	}
	if err := tools.DecodeArgs(args, &a); err != nil {
		return tools.Errorf("%v", err), nil
	}
	if strings.TrimSpace(a.Plan) == "" {
		return tools.Errorf("plan is required"), nil
	}
	if !t.s.PlanMode() {
		return tools.Result{Content: "You are not in plan mode; carry on with the task.", Summary: "not in plan mode"}, nil
	}
	if t.a.Plans == nil {
		return tools.Result{
			Content: "No one can approve the plan here. Stop now and give the plan as your answer; do not change anything.",
			IsError: true, Summary: "no one to approve",
		}, nil
	}
	ok, feedback, err := t.a.Plans.ApprovePlan(ctx, t.s.ID, a.Plan)
	if err != nil {
		return tools.Errorf("the plan could not be presented: %v", err), nil
	}
	if !ok {
		msg := "The user did not approve the plan; you are still in plan mode."
		if strings.TrimSpace(feedback) != "" {
			msg += " Their feedback: " + strings.TrimSpace(feedback)
		}
		return tools.Result{Content: msg + " Revise the plan and present it again, or ask what they want.", IsError: true, Summary: "plan not approved"}, nil
	}
	t.s.SetPlanMode(false)
	t.event(Event{Kind: EventNotice, Text: "plan approved; leaving plan mode"})
	return tools.Result{Content: "The user approved the plan. Carry it out now.", Summary: "plan approved"}, nil
}

// ExitPlanTool returns the exit_plan_mode tool, for registries.
func ExitPlanTool() tools.Tool { return exitPlanTool{} }

// planNote prefixes a user message sent in plan mode. It goes into the
// log, not the system prompt, so the cached prefix is untouched.
const planNote = "[Plan mode: only read-only tools run. Investigate, then present your plan with exit_plan_mode and wait for approval before changing anything.]\n\n"

// SetPlanMode switches a session into or out of plan mode.
func (s *Session) SetPlanMode(on bool) {
	s.mu.Lock()
	s.plan = on
	s.mu.Unlock()
}

// PlanMode reports whether the session is in plan mode.
func (s *Session) PlanMode() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.plan
}

// planGate refuses what plan mode does not allow: only trusted read-only
// tools run until the user approves a plan. The agent's own tools pass:
// exit_plan_mode is how plan mode ends, and a task holds a writer child
// back itself.
func (k *toolCall) planGate(context.Context) (tools.Result, bool) {
	if k.own || !k.t.s.PlanMode() || tools.TrustedReadOnly(k.tool) {
		return tools.Result{}, true
	}
	k.ev.Denied = true
	return tools.Result{
		Content: fmt.Sprintf("Plan mode: %s was not run. Only read-only tools run until the user approves a plan; present it with exit_plan_mode.", k.tool.Name()),
		IsError: true,
		Summary: "plan mode",
	}, false
}
