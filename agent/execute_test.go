package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

// TestTurnToolsOutsideATurn: the agent's own tools need the turn that
// makes the call; run anywhere else they fail with an error.
func TestTurnToolsOutsideATurn(t *testing.T) {
	for _, tc := range []struct {
		tool tools.Tool
		args string
	}{
		{ExitPlanTool(), `{"plan":"1. poke"}`},
		{TaskTool(), `{"description":"look","prompt":"look around"}`},
	} {
		t.Run(tc.tool.Name(), func(t *testing.T) {
			_, err := tc.tool.Execute(t.Context(), &tools.Env{}, json.RawMessage(tc.args))
			if err == nil || !strings.Contains(err.Error(), "only in an agent's turn") {
				t.Fatalf("err = %v, want one saying it runs only in a turn", err)
			}
		})
	}
}

// TestExitPlanModeIsNotJudged: the user's approval of the plan is
// exit_plan_mode's gate; the permission rules do not hold for it.
func TestExitPlanModeIsNotJudged(t *testing.T) {
	h := newHarness(t, []provider.Response{
		calls(tc("1", "exit_plan_mode", `{"plan":"1. poke"}`)),
		answer("done"),
	}, ExitPlanTool())
	policy, err := permission.NewPolicy("deny", nil, nil, []string{"exit_plan_mode"})
	if err != nil {
		t.Fatal(err)
	}
	h.a.Gate = &permission.Checker{Policy: policy}
	plans := &fakePlans{answers: []bool{true}}
	h.a.Plans = plans
	s, _ := h.a.NewSession()
	s.SetPlanMode(true)
	if _, err := h.a.Run(context.Background(), s, "plan it"); err != nil {
		t.Fatal(err)
	}
	r := h.kinds(EventToolResult)[0].Tool
	if r.Denied || !strings.Contains(r.Result, "approved the plan") || s.PlanMode() || len(plans.plans) != 1 {
		t.Fatalf("result %q (denied %v), plan mode %v, %d plans shown", r.Result, r.Denied, s.PlanMode(), len(plans.plans))
	}
}
