package agent

import (
	"context"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools/permission"
)

// slowApprover allows every call after thinking it over for a while.
type slowApprover struct{ think time.Duration }

func (a slowApprover) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	time.Sleep(a.think)
	return permission.AnswerOnce, nil
}

// TestDurationExcludesTheQuestion: a tool's duration is its run, not the
// time the user took to allow it.
func TestDurationExcludesTheQuestion(t *testing.T) {
	const think = 300 * time.Millisecond
	h := newHarness(t, []provider.Response{calls(tc("1", "poke", `{}`)), answer("ok")}, &probeTool{name: "poke"})
	policy, _ := permission.NewPolicy("ask", nil, nil, nil)
	h.a.Gate = &permission.Checker{Policy: policy, Approver: slowApprover{think}}
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	r := h.kinds(EventToolResult)[0].Tool
	if r.Denied || r.DurationMs >= think.Milliseconds() {
		t.Fatalf("duration %dms includes the %v spent asking (denied %v)", r.DurationMs, think, r.Denied)
	}
}
