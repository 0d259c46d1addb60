package agent

import (
	"context"
	"os"
	"testing"

	"github.com/reasonix/reasonix/agent/provider"
)

// TestSessionFileIsKeptOnlyWithATurn: a run that fails before the model
// answers leaves no session behind; one the user interrupts is kept to be
// resumed, and so is one the model answered.
func TestSessionFileIsKeptOnlyWithATurn(t *testing.T) {
	tests := []struct {
		name  string
		setup func(h *harness) context.Context
		kept  bool
	}{
		{"provider fails", func(h *harness) context.Context { return context.Background() }, false},
		{"answered", func(h *harness) context.Context {
			h.prov.responses = append(h.prov.responses, answer("done"))
			return context.Background()
		}, true},
		{"interrupted", func(h *harness) context.Context {
			h.prov.block = true
			ctx, cancel := context.WithCancel(context.Background())
			h.a.Sink = func(e Event) {
				if e.Kind == EventText {
					cancel()
				}
			}
			return ctx
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil)
			ctx := tt.setup(h)
			s, err := h.a.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			h.a.Run(ctx, s, "go")
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			list, err := h.a.Store.List()
			if err != nil {
				t.Fatal(err)
			}
			if kept := len(list) == 1; kept != tt.kept {
				t.Fatalf("sessions after the run: %+v, want kept %v", list, tt.kept)
			}
			if tt.kept && list[0].Updated.Before(list[0].Created) {
				t.Errorf("updated %v before created %v", list[0].Updated, list[0].Created)
			}
		})
	}
}

// TestResumedSessionIsNeverRemoved: only a file this process created can
// be removed as empty; a resumed one is the user's.
func TestResumedSessionIsNeverRemoved(t *testing.T) {
	h := newHarness(t, []provider.Response{answer("first")})
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(context.Background(), s, "one"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r, err := h.a.Resume(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	h.a.Run(context.Background(), r, "two") // the fake fails
	r.Close()
	if _, err := os.Stat(h.a.Store.Path(s.ID)); err != nil {
		t.Fatalf("the resumed session is gone: %v", err)
	}
}
