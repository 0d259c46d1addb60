package agent

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

// slowAsker answers each question with its first option after a while,
// counting how many it is asked at once.
type slowAsker struct {
	running, peak atomic.Int32
	sessions      []string
}

func (a *slowAsker) Ask(ctx context.Context, q tools.Question) (string, error) {
	n := a.running.Add(1)
	defer a.running.Add(-1)
	if n > a.peak.Load() {
		a.peak.Store(n)
	}
	a.sessions = append(a.sessions, q.SessionID)
	time.Sleep(20 * time.Millisecond)
	return q.Options[0], nil
}

// TestAskRunsAlone: questions are read-only — no permission question, and
// plan mode runs them — but never asked two at a time, nor batched with
// other reads.
func TestAskRunsAlone(t *testing.T) {
	// Three different questions: the same one again would be a storm
	// (repair_storm.go), answered without asking.
	q := `{"question":"Which?","options":["left","right"]}`
	q2 := `{"question":"Which one?","options":["left","right"]}`
	q3 := `{"question":"Which, really?","options":["left","right"]}`
	reader := &probeTool{name: "look", readOnly: true}
	h := newHarness(t, []provider.Response{
		calls(tc("1", "ask", q), tc("2", "ask", q2), tc("3", "look", `{}`), tc("4", "ask", q3)),
		answer("ok"),
	}, append(builtin(t, "ask"), reader)...)
	asker := &slowAsker{}
	h.a.Env.Asker = asker
	policy, _ := permission.NewPolicy("deny", nil, nil, nil)
	h.a.Gate = &permission.Checker{Policy: policy}
	s, _ := h.a.NewSession()
	s.SetPlanMode(true)
	if _, err := h.a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	if asker.peak.Load() != 1 || len(asker.sessions) != 3 || asker.sessions[0] != s.ID {
		t.Fatalf("peak %d, sessions %v", asker.peak.Load(), asker.sessions)
	}
	for _, e := range h.kinds(EventToolResult) {
		if e.Tool.Name == "ask" && (e.Tool.Denied || e.Tool.Result != "The user picked: left") {
			t.Errorf("ask: %+v", e.Tool)
		}
	}
	if h.kinds(EventToolStart)[0].Tool.Title != "ask Which?" {
		t.Errorf("title %q", h.kinds(EventToolStart)[0].Tool.Title)
	}
}

// TestAskUnattended: with no one to ask, the model is told to go on with
// a labelled assumption.
func TestAskUnattended(t *testing.T) {
	h := newHarness(t, []provider.Response{
		calls(tc("1", "ask", `{"question":"Tabs or spaces?","options":["tabs","spaces"]}`)),
		answer("Assumption: tabs, as gofmt does."),
	}, builtin(t, "ask")...)
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	r := h.kinds(EventToolResult)[0].Tool
	if r.IsError || !strings.HasPrefix(r.Result, "No user available") || !strings.Contains(r.Result, `"Assumption:"`) {
		t.Fatalf("result: %+v", r)
	}
}
