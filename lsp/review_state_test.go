package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
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
