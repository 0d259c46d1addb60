package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
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
