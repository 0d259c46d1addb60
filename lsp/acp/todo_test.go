package acp_test

import (
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestTodoAsPlan: the todo list the model writes reaches an ACP client as
// the session's plan, its statuses as they are, each write replacing the
// plan; /context answers as text without a model request.
func TestTodoAsPlan(t *testing.T) {
	root, srv := workspaceServer(t, `call todo_write {"todos":[{"content":"Read calc.go","status":"in_progress","activeForm":"Reading calc.go"},{"content":"Fix Add","status":"pending"}]}
---
call todo_write {"todos":[{"content":"Read calc.go","status":"completed"},{"content":"Fix Add","status":"completed"}]}
---
text Fixed.
`)
	ed := &editor{}
	conn, id := newSession(t, ed, root)
	if r := prompt(t, conn, id, "fix Add"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	ed.mu.Lock()
	var plans [][]acpsdk.PlanEntry
	for _, u := range ed.updates {
		if u.Plan != nil {
			plans = append(plans, u.Plan.Entries)
		}
	}
	ed.mu.Unlock()
	if len(plans) != 2 || len(plans[0]) != 2 || plans[0][0].Status != acpsdk.PlanEntryStatusInProgress || plans[0][1].Content != "Fix Add" ||
		plans[1][1].Status != acpsdk.PlanEntryStatusCompleted {
		t.Errorf("plans %+v", plans)
	}

	if r := prompt(t, conn, id, "/context"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("/context: stopReason = %q", r.StopReason)
	}
	got := ed.answerText()
	for _, want := range []string{"Context of session", "tool results (2)", "Measured: the last request's prompt was "} {
		if !strings.Contains(got, want) {
			t.Errorf("/context's answer lacks %q:\n%s", want, got)
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests reached the model, want the turn's 3", n)
	}
}
