package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/review"
	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

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
