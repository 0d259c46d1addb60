package lsp

import (
	"path/filepath"
	"slices"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// TestKindWanted: context.only keeps an action whose kind is an entry or
// lies below one in the hierarchy of dotted kinds, and the empty kind is
// the root of that hierarchy, so it keeps every action (vim-lsp sends it
// first among the kinds it asks for).
func TestKindWanted(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind protocol.CodeActionKind
		only []protocol.CodeActionKind
		want bool
	}{
		{"no filter", kindExplain, nil, true},
		{"exact", protocol.CodeActionKindQuickFix, []protocol.CodeActionKind{"quickfix"}, true},
		{"below an entry", protocol.CodeActionKindRefactorRewrite, []protocol.CodeActionKind{"refactor"}, true},
		{"review below quickfix", "quickfix.reasonix.review", []protocol.CodeActionKind{"quickfix"}, true},
		{"above an entry", protocol.CodeActionKindRefactor, []protocol.CodeActionKind{"refactor.rewrite"}, false},
		{"a prefix that is not a parent", "reasonix.tests", []protocol.CodeActionKind{"reasonix.te"}, false},
		{"other kinds only", kindExplain, []protocol.CodeActionKind{"quickfix", "refactor"}, false},
		{"the empty kind keeps a custom kind", kindExplain, []protocol.CodeActionKind{""}, true},
		{"the empty kind keeps quickfix", protocol.CodeActionKindQuickFix, []protocol.CodeActionKind{""}, true},
		{"vim-lsp's list", kindTests, []protocol.CodeActionKind{"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kindWanted(tc.kind, tc.only); got != tc.want {
				t.Errorf("kindWanted(%q, %q) = %v, want %v", tc.kind, tc.only, got, tc.want)
			}
		})
	}
}

// TestProblemsOn: of the project graph's diagnostics, a request for code
// actions gets the errors and warnings on its lines, with their ranges
// counted in the client's position encoding.
func TestProblemsOn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calc.go")
	const text = "package calc\n\n// 😀 is two UTF-16 units, four bytes.\nvar s = \"😀\" + zz\nvar t = yy\n\nfunc f() { _ = 1 }\n"
	// Line and column count characters from 1, as tools.Diagnostic does.
	zz := tools.Diagnostic{Line: 4, Column: 15, EndLine: 4, EndColumn: 17, Severity: "error", Message: "undefined: zz", Server: "gopls"}
	yy := tools.Diagnostic{Line: 5, Column: 9, EndLine: 5, EndColumn: 11, Severity: "warning", Message: "yy is odd", Server: "gopls"}
	hint := tools.Diagnostic{Line: 7, Column: 12, EndLine: 7, EndColumn: 18, Severity: "hint", Message: "could be simpler", Server: "gopls"}
	spanning := tools.Diagnostic{Line: 3, Column: 1, EndLine: 5, EndColumn: 1, Severity: "error", Message: "a block", Server: "pyright"}
	found := []tools.Diagnostic{spanning, zz, yy, hint}

	pos := func(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }
	rng := func(a, b protocol.Position) protocol.Range { return protocol.Range{Start: a, End: b} }
	for _, tc := range []struct {
		name string
		enc  wire.Encoding
		span lineSpan
		want []protocol.Range // of the problems kept, in order
	}{
		{"the line of zz, utf-16", wire.UTF16, lineSpan{3, 3}, []protocol.Range{rng(pos(2, 0), pos(4, 0)), rng(pos(3, 15), pos(3, 17))}},
		{"the line of zz, utf-8", wire.UTF8, lineSpan{3, 3}, []protocol.Range{rng(pos(2, 0), pos(4, 0)), rng(pos(3, 17), pos(3, 19))}},
		{"the line of zz, utf-32", wire.UTF32, lineSpan{3, 3}, []protocol.Range{rng(pos(2, 0), pos(4, 0)), rng(pos(3, 14), pos(3, 16))}},
		// The block ends at the start of line 5 (0-based 4): not on it.
		{"the line of yy", wire.UTF16, lineSpan{4, 4}, []protocol.Range{rng(pos(4, 8), pos(4, 10))}},
		{"a hint is no problem to fix", wire.UTF16, lineSpan{6, 6}, nil},
		{"a clean line", wire.UTF16, lineSpan{0, 0}, nil},
		{"the whole file", wire.UTF16, lineSpan{0, -1}, []protocol.Range{rng(pos(2, 0), pos(4, 0)), rng(pos(3, 15), pos(3, 17)), rng(pos(4, 8), pos(4, 10))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{})
			s.enc = tc.enc
			s.docs.open(uri.File(path), "go", 1, text)
			var got []protocol.Range
			for _, p := range s.problemsOn(path, found, tc.span) {
				got = append(got, p.d.Range)
				if src, _ := p.d.Source.Get(); src != p.Server || p.d.Message != protocol.String(p.Message) || p.d.Severity != severityOf(p.Severity) {
					t.Errorf("diagnostic %+v from %+v", p.d, p.Diagnostic)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ranges %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLinesOf: a range covers the lines it touches, but not a line it
// ends at the very start of.
func TestLinesOf(t *testing.T) {
	for _, tc := range []struct {
		r    protocol.Range
		want lineSpan
	}{
		{protocol.Range{Start: protocol.Position{Line: 3, Character: 2}, End: protocol.Position{Line: 3, Character: 2}}, lineSpan{3, 3}},
		{protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 5, Character: 1}}, lineSpan{3, 5}},
		{protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 5}}, lineSpan{3, 4}},
		{protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 3}}, lineSpan{3, 3}},
	} {
		if got := linesOf(tc.r); got != tc.want {
			t.Errorf("linesOf(%v) = %v, want %v", tc.r, got, tc.want)
		}
	}
}
