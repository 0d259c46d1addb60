package lsp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/review"
	"github.com/reasonix/reasonix/lsp/wire"
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

// TestNewErrorPlace: an error the check found in the proposed text is
// shown on the hunk that brings its line, or on the line of the text now
// that it falls on, past the lines the hunks before it add.
func TestNewErrorPlace(t *testing.T) {
	const cur = "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
	// Proposed: two lines for Add's body, one comment line more before Sub.
	want := strings.Replace(cur, "\treturn a - b\n}\n\nfunc Sub", "\tc := a + b\n\treturn c\n}\n\n// Sub subtracts.\nfunc Sub", 1)
	st := review.NewStore()
	st.Propose("s", "/w/calc.go", cur, true, &want)
	f, ok := st.Pending("/w/calc.go", cur)
	if !ok {
		t.Fatal("nothing pending")
	}
	for _, tc := range []struct {
		line, col int
		want      protocol.Range
	}{
		// Line 5 of the proposal ("\treturn c") is in Add's hunk, which
		// replaces line 4 of the text now.
		{5, 9, protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 4}}},
		// Line 10 ("\treturn a - b" in Sub) is line 8 now: two lines added before.
		{10, 9, protocol.Range{Start: protocol.Position{Line: 7, Character: 8}, End: protocol.Position{Line: 7, Character: 8}}},
		// Before every hunk nothing moves.
		{1, 1, protocol.Range{}},
	} {
		d := newErrorDiagnostic(cur, f, tools.Diagnostic{Line: tc.line, Column: tc.col, Message: "undefined: x"}, wire.UTF16)
		if d.Range != tc.want {
			t.Errorf("error at %d:%d shown at %+v, want %+v", tc.line, tc.col, d.Range, tc.want)
		}
		if m, _ := d.Message.(protocol.String); m != "New error if accepted: undefined: x" || d.Severity != protocol.DiagnosticSeverityWarning {
			t.Errorf("diagnostic %+v", d)
		}
	}
}

// TestProposalOnlyIsNeverApplied: a call the permission gate let through
// only because its changes were proposals must not change anything once
// the workspace applies changes at once (its review setting changed while
// the call waited): the change was never approved.
func TestProposalOnlyIsNeverApplied(t *testing.T) {
	root := t.TempDir()
	s := New(Options{})
	if _, err := s.Initialize(t.Context(), &protocol.InitializeParams{}); err != nil {
		t.Fatal(err)
	}
	w := &workspace{root: root, review: reviewApply}
	s.mu.Lock()
	s.reviewModes[root] = reviewApply
	s.mu.Unlock()
	f := &editorFS{s: s, w: w}
	if f.Proposes() {
		t.Fatal("a workspace in apply mode proposes")
	}
	path := filepath.Join(root, "a.go")
	err := f.Apply(tools.WithProposalOnly(t.Context()), []tools.Change{{Kind: tools.Write, Path: path, Content: []byte("package a\n")}})
	if !errors.Is(err, tools.ErrNotPermitted) {
		t.Fatalf("Apply = %v, want a refusal wrapping ErrNotPermitted", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a.go was written (stat: %v)", err)
	}
}
