package lsp

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/reasonix/reasonix/agent"
)

// TestNextTurnAfterTurnDone: a client may start a session's next turn as
// soon as it hears turn_done, while the server still closes the last one
// (its progress end, its diagnostics). That next turn waits for the close
// instead of being refused as busy; a turn the client has not been told is
// over — or whose built-in command still asks the user, or that is a
// sub-task's — keeps the session busy.
func TestNextTurnAfterTurnDone(t *testing.T) {
	tests := []struct {
		name string
		// done is the turn_done event the agent emits, if any.
		done     *agent.Event
		wantBusy bool
	}{
		{name: "running", wantBusy: true},
		{name: "turn_done", done: &agent.Event{Kind: agent.EventTurnDone, Done: &agent.TurnResult{}}},
		{name: "turn_done without a result", done: &agent.Event{Kind: agent.EventTurnDone}},
		{
			name: "turn_done of /help",
			done: &agent.Event{Kind: agent.EventTurnDone, Done: &agent.TurnResult{Action: &agent.Action{Kind: agent.ActionHelp}}},
		},
		{
			name:     "turn_done of /clear, whose question is still to come",
			done:     &agent.Event{Kind: agent.EventTurnDone, Done: &agent.TurnResult{Action: &agent.Action{Kind: agent.ActionClear}}},
			wantBusy: true,
		},
		{
			name:     "turn_done of /trust, whose question is still to come",
			done:     &agent.Event{Kind: agent.EventTurnDone, Done: &agent.TurnResult{Action: &agent.Action{Kind: agent.ActionTrust}}},
			wantBusy: true,
		},
		{
			name:     "turn_done of a sub-task",
			done:     &agent.Event{Kind: agent.EventTurnDone, Parent: "call-1", Done: &agent.TurnResult{}},
			wantBusy: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ls, first := runningTurn(t)
			if tt.done != nil {
				e := *tt.done
				e.SessionID = ls.id
				s.event(e)
			}

			type begun struct {
				ts  *turnState
				err error
			}
			next := make(chan begun, 1)
			ctx := newWatchedContext(t.Context())
			go func() {
				_, ts, err := s.sessions.begin(ctx, ls, "next")
				next <- begun{ts, err}
			}()
			if tt.wantBusy {
				if got := <-next; !errors.Is(got.err, errBusy) {
					t.Fatalf("the next turn: %v, want %v", got.err, errBusy)
				}
				s.sessions.end(ls, first)
				return
			}
			select {
			case <-ctx.waiting:
			case got := <-next:
				t.Fatalf("the next turn did not wait for the first to close: %v", got.err)
			}
			s.sessions.end(ls, first)
			got := <-next
			if got.err != nil {
				t.Fatalf("the next turn: %v, want it to start once the first ended", got.err)
			}
			s.sessions.end(ls, got.ts)
		})
	}
}

// runningTurn returns a server of the test's lifetime with one session,
// whose turn it has begun.
func runningTurn(t *testing.T) (*Server, *liveSession, *turnState) {
	t.Helper()
	s := New(Options{})
	s.ctx, s.cancel = context.WithCancel(t.Context())
	t.Cleanup(s.cancel)
	ls := &liveSession{id: "s1"}
	s.sessions.live[ls.id] = ls
	_, first, err := s.sessions.begin(t.Context(), ls, "first")
	if err != nil {
		t.Fatal(err)
	}
	return s, ls, first
}

// A watchedContext says when its Done channel is first asked for: begin
// asks only once it waits for a closing turn.
type watchedContext struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func newWatchedContext(parent context.Context) *watchedContext {
	return &watchedContext{Context: parent, waiting: make(chan struct{})}
}

func (c *watchedContext) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

// TestNextTurnGivesUpWithItsRequest: waiting for a closing turn ends with
// the request that waits.
func TestNextTurnGivesUpWithItsRequest(t *testing.T) {
	s, ls, first := runningTurn(t)
	defer s.sessions.end(ls, first)
	s.event(agent.Event{Kind: agent.EventTurnDone, SessionID: ls.id, Done: &agent.TurnResult{}})

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := s.sessions.begin(ctx, ls, "next"); !errors.Is(err, context.Canceled) {
		t.Fatalf("the next turn with its request cancelled: %v, want %v", err, context.Canceled)
	}
}
