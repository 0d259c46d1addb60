package lsp

import (
	"path/filepath"
	"slices"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/tools"
)

// TestReviewDefault: unset, review is apply for a client with a review
// panel of its own (declared either way) and propose for any other; a
// configured value wins.
func TestReviewDefault(t *testing.T) {
	for _, tc := range []struct {
		name       string
		experiment string
		initOpts   string
		configured string
		want       string
	}{
		{name: "plain client", want: reviewPropose},
		{name: "panel in capabilities", experiment: `{"reasonix": {"reviewPanel": true}}`, want: reviewApply},
		{name: "panel in initializationOptions", initOpts: `{"client": {"reviewPanel": true}}`, want: reviewApply},
		{name: "configured propose beats the panel", experiment: `{"reasonix": {"reviewPanel": true}}`, configured: reviewPropose, want: reviewPropose},
		{name: "configured apply", configured: reviewApply, want: reviewApply},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{})
			p := &protocol.InitializeParams{}
			if tc.experiment != "" {
				p.Capabilities.Experimental = protocol.LSPAny(tc.experiment)
			}
			if tc.initOpts != "" {
				p.InitializationOptions = protocol.LSPAny(tc.initOpts)
			}
			if _, err := s.Initialize(t.Context(), p); err != nil {
				t.Fatal(err)
			}
			if got := s.reviewModeFor(tc.configured); got != tc.want {
				t.Errorf("review = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestReplaceNewErrors: a turn's check replaces the errors of its own
// workspace and leaves the other workspaces' alone; every file that had
// errors or has them now is published again.
func TestReplaceNewErrors(t *testing.T) {
	a, b := filepath.Join("/w", "a", "x.go"), filepath.Join("/w", "b", "y.go")
	errA := []tools.Diagnostic{{Path: a, Line: 1, Message: "old"}}
	errB := []tools.Diagnostic{{Path: b, Line: 2, Message: "other workspace"}}
	tests := []struct {
		name        string
		next        map[string][]tools.Diagnostic
		wantA       []tools.Diagnostic
		wantPublish []string
	}{
		{"cleared", map[string][]tools.Diagnostic{}, nil, []string{a, b}},
		{"replaced", map[string][]tools.Diagnostic{a: {{Path: a, Line: 3, Message: "new"}}}, []tools.Diagnostic{{Path: a, Line: 3, Message: "new"}}, []string{a, b}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newReviewState()
			r.replaceNewErrors(filepath.Join("/w", "a"), map[string][]tools.Diagnostic{a: errA})
			r.replaceNewErrors(filepath.Join("/w", "b"), map[string][]tools.Diagnostic{b: errB})
			publish := r.replaceNewErrors(filepath.Join("/w", "a"), tc.next)
			slices.Sort(publish)
			if !slices.Equal(publish, tc.wantPublish) {
				t.Errorf("published again %v, want %v", publish, tc.wantPublish)
			}
			if got := r.newErrorsOf(a); !slices.Equal(got, tc.wantA) {
				t.Errorf("errors of a = %v, want %v", got, tc.wantA)
			}
			if got := r.newErrorsOf(b); !slices.Equal(got, errB) {
				t.Errorf("errors of b = %v, want %v (another workspace's)", got, errB)
			}
		})
	}
}
