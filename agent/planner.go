package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
)

// Two-model collaboration. With [agent] planner_model set, each turn
// starts with a planner: the planner model, in a session of its own (its
// own system prompt, planner_prompt.md, and its own log), offered the
// trusted read-only tools, studies the request and answers with a plan.
// The plan joins the turn's user message, which the executor (the
// session's model) then carries out. The two sessions never mix, so both
// prompts stay append-only. When someone can approve plans (Agent.Plans,
// the editor's dialog), the plan is shown first: approved, the executor
// runs; refused with feedback, the planner revises it in its session;
// refused without, the turn ends before the executor starts.

//go:embed planner_prompt.md
var plannerSystemPrompt string

// plannerParent is Event.Parent on the planner's events.
const plannerParent = "planner"

// maxPlanRounds bounds how often the planner revises a refused plan.
const maxPlanRounds = 3

// planNotApproved is the answer of a turn whose plan was refused.
const planNotApproved = "The plan was not approved; nothing was done. Say what should change and ask again."

// planFirst runs the planner, when the agent has one, on the turn's
// request. It returns what to append to the user message (empty for no
// plan) and false when the user refused the plan.
func (t *turn) planFirst(ctx context.Context, request string) (attach string, approved bool, err error) {
	pa := t.a.Planner
	if pa == nil || t.s.PlanMode() {
		return "", true, nil // plan mode plans with exit_plan_mode
	}
	reg, err := taskTools(t.s.tools, true)
	if err != nil {
		return "", false, fmt.Errorf("planner: %w", err)
	}
	steps := t.a.PlannerMaxSteps
	if steps == 0 {
		steps = t.a.MaxSteps
	}
	planner := pa.helper(t, plannerParent, reg, plannerSystemPrompt, steps, 0)
	pt := &turn{a: planner, s: planner.taskSession(t.s.ID, reg), n: 1, log: &changeLog{}, nested: true, effort: t.effort}
	pt.s.steps = t.s.steps.sub(plannerParent, t.n)
	pt.s.spendFrom(t, planner.ModelRef)
	defer func() {
		if cerr := t.chargeHelper(pt, planner.ModelRef); cerr != nil && err == nil {
			err = cerr
		}
	}()
	in := request
	for round := 1; ; round++ {
		pt.steps = 0 // each round has the planner's step limit
		res, err := pt.run(ctx, prepared{text: in})
		if err != nil && !errors.Is(err, ErrMaxSteps) {
			return "", false, fmt.Errorf("planner: %w", err)
		}
		plan := strings.TrimSpace(res.Text)
		if plan == "" {
			t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("the planner (%s) gave no plan; the executor works without one", planner.ModelRef)})
			return "", true, nil
		}
		t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("plan by %s (%s, %s tokens):\n\n%s",
			planner.ModelRef, countOf(pt.steps, "model request"), FormatTokens(pt.usage.Total()), plan)})
		if t.a.Plans == nil {
			return planAttachment(plan, false), true, nil
		}
		ok, feedback, err := t.a.Plans.ApprovePlan(ctx, t.s.ID, plan)
		switch {
		case err != nil:
			return "", false, fmt.Errorf("the plan could not be presented: %w", err)
		case ok:
			return planAttachment(plan, true), true, nil
		case strings.TrimSpace(feedback) == "" || round == maxPlanRounds:
			return "", false, nil
		}
		in = "The user did not approve this plan. Their feedback: " + strings.TrimSpace(feedback) + "\n\nRevise the plan."
	}
}

// planAttachment renders the plan for the executor's user message.
func planAttachment(plan string, approved bool) string {
	by := "A planner studied the project and wrote this plan for the request."
	if approved {
		by += " The user approved it."
	}
	return "\n\n<plan>\n" + by + " Carry it out, adapting where the code proves it wrong:\n\n" + plan + "\n</plan>"
}
