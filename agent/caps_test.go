package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider"
)

// TestCallsPerResponseCapped: of a response of 1,000 calls the first
// maxCallsPerResponse run; every other call gets a result saying it did
// not run and why, so the log stays valid, and the user gets a notice.
func TestCallsPerResponseCapped(t *testing.T) {
	const n = 1000
	var many []provider.ToolCall
	for i := range n {
		many = append(many, tc(fmt.Sprint(i), "look", fmt.Sprintf(`{"n":%d}`, i)))
	}
	h := newHarness(t, []provider.Response{calls(many...), answer("done")}, &probeTool{name: "look", readOnly: true})
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.a.Run(context.Background(), s, "go")
	if err != nil || res.Text != "done" {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if res.ToolCalls != maxCallsPerResponse {
		t.Errorf("%d tool calls counted, want %d", res.ToolCalls, maxCallsPerResponse)
	}
	msgs := h.prov.requests[1].Messages
	results := msgs[len(msgs)-n:]
	for i, m := range results {
		ran := m.Content == fmt.Sprintf(`look {"n":%d}`, i)
		switch {
		case m.Role != provider.RoleTool || m.ToolCallID != fmt.Sprint(i):
			t.Fatalf("result %d: %+v", i, m)
		case i < maxCallsPerResponse && !ran:
			t.Errorf("call %d did not run: %q", i, m.Content)
		case i >= maxCallsPerResponse && (ran || !strings.Contains(m.Content, "at most 64 run per response")):
			t.Fatalf("call %d: %q", i, m.Content)
		}
	}
	if len(h.kinds(EventToolStart)) != maxCallsPerResponse {
		t.Errorf("%d tool rows shown", len(h.kinds(EventToolStart)))
	}
	notices := h.kinds(EventNotice)
	if len(notices) != 1 || !strings.Contains(notices[0].Text, "1000 tool calls in one response") {
		t.Errorf("notices %+v", notices)
	}
}

// TestOversizeArgumentsRefused: a call the provider stopped reading
// (Oversize) and one handed over whole but past MaxArgumentBytes are
// refused without running, each with a note saying how to go on.
func TestOversizeArgumentsRefused(t *testing.T) {
	big := `{"n":"` + strings.Repeat("x", provider.MaxArgumentBytes) + `"}`
	cut := tc("1", "look", "{}")
	cut.Oversize = provider.MaxArgumentBytes + 1
	probe := &probeTool{name: "look", readOnly: true}
	h := newHarness(t, []provider.Response{calls(cut, tc("2", "look", big)), answer("done")}, probe)
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	msgs := h.prov.requests[1].Messages
	for i, want := range []string{"stopped reading this response at this look call", "a call may carry at most 4 MiB"} {
		m := msgs[len(msgs)-2+i]
		if !strings.Contains(m.Content, want) || !strings.Contains(m.Content, "in parts") {
			t.Errorf("result %d: %.300q", i, m.Content)
		}
	}
	if probe.peak.Load() != 0 {
		t.Error("a call over the limit ran")
	}
	if n := len(h.kinds(EventNotice)); n != 2 {
		t.Errorf("%d notices, want one a call", n)
	}
}

// TestUnreportedUsageCountsAgainstTheBudget: a response that reports no
// usage — here one the provider cut at a call's oversize arguments — is
// charged to the budget at an estimate of what its prompt and its output
// cost, so a model that keeps streaming huge arguments cannot spend
// unseen: the next request does not fit.
func TestUnreportedUsageCountsAgainstTheBudget(t *testing.T) {
	cut := tc("1", "look", "{}")
	cut.Oversize = provider.MaxArgumentBytes + 1
	h := newHarness(t, []provider.Response{calls(cut), answer("never")}, &probeTool{name: "look", readOnly: true})
	h.prov.asGiven = true
	h.a.TokenBudget = 100_000
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.a.Run(context.Background(), s, "go")
	if !errors.Is(err, ErrBudgetExceeded) || res.Stop != StopBudget || len(h.prov.requests) != 1 {
		t.Fatalf("%d requests, res %+v, err %v", len(h.prov.requests), res, err)
	}
	if used, _ := s.Usage(); used.Total() != 0 {
		t.Errorf("the session's usage shows %d tokens no provider reported", used.Total())
	}
}
