package graph

import (
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/tools"
)

// TestEnclosingLabel: a span belongs to the innermost declaration of the
// outline holding all its lines, named with its kind and, when the server
// names a member bare, its container.
func TestEnclosingLabel(t *testing.T) {
	lines := func(a, b uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: a}, End: protocol.Position{Line: b}}
	}
	outline := []protocol.DocumentSymbol{
		{Name: "Add", Kind: protocol.SymbolKindFunction, Range: lines(3, 5)},
		{Name: "(*Calc).Sub", Kind: protocol.SymbolKindMethod, Range: lines(7, 9)},
		{Name: "Calc", Kind: protocol.SymbolKindClass, Range: lines(11, 20), Children: []protocol.DocumentSymbol{
			{Name: "add", Kind: protocol.SymbolKindMethod, Range: lines(12, 14)},
		}},
	}
	for _, c := range []struct {
		span tools.LineSpan
		want string
	}{
		{tools.LineSpan{Start: 5, End: 5}, "func Add"},
		{tools.LineSpan{Start: 4, End: 6}, "func Add"},
		{tools.LineSpan{Start: 9, End: 9}, "method (*Calc).Sub"},
		{tools.LineSpan{Start: 14, End: 15}, "method Calc.add"},
		{tools.LineSpan{Start: 14, End: 17}, "class Calc"},
		{tools.LineSpan{Start: 6, End: 8}, ""}, // across two declarations
		{tools.LineSpan{Start: 1, End: 1}, ""},
	} {
		got := ""
		if chain := enclosing(outline, c.span); len(chain) > 0 {
			got = symbolLabel(chain)
		}
		if got != c.want {
			t.Errorf("span %v: %q, want %q", c.span, got, c.want)
		}
	}
}
