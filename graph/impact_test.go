package graph

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
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

// TestGoImpacts asks gopls what changes to three declarations reach, with
// the user's text of main.go laid over a disk that differs: the call
// sites of a function outside it (its own recursive call left out), a
// method's named with its receiver, and a type's references, which have
// no call hierarchy.
func TestGoImpacts(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	root := writeModule(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"calc/calc.go": `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	if a < 0 {
		return Add(-a, b) - 2*a
	}
	return a + b
}

// Calc adds up.
type Calc struct {
	Sum int
}

// Double doubles the sum.
func (c *Calc) Double() int {
	return Add(c.Sum, c.Sum)
}
`,
		"main.go": "package main\n\nimport \"example.com/m/calc\"\n\nfunc main() {\n\tprintln(calc.Add(1, 2))\n}\n",
	})
	m := newManager(t, root, nil, nil, gopls)
	mainPath := filepath.Join(root, "main.go")
	texts := map[string]string{mainPath: "package main\n\nimport \"example.com/m/calc\"\n\nfunc main() {\n\tc := calc.Calc{Sum: calc.Add(1, 2)}\n\tprintln(calc.Add(3, 4), c.Double())\n}\n"}
	calcPath := filepath.Join(root, "calc", "calc.go")
	got, err := m.Impacts(t.Context(), texts, calcPath, []tools.LineSpan{{Start: 8, End: 8}, {Start: 18, End: 18}, {Start: 12, End: 12}, {Start: 1, End: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, imp := range got {
		s := fmt.Sprintf("%s %d-%d refs=%v:", imp.Symbol, imp.Lines.Start, imp.Lines.End, imp.References)
		for _, c := range imp.Callers {
			rel, _ := filepath.Rel(root, c.Path)
			s += fmt.Sprintf(" %s:%d:%d", rel, c.Line, c.Column)
		}
		summary = append(summary, s)
	}
	want := []string{
		"func Add 4-9 refs=false: calc/calc.go:18:9 main.go:6:27 main.go:7:15",
		"method (*Calc).Double 17-19 refs=false: main.go:7:28",
		"struct Calc 12-14 refs=true: calc/calc.go:17:10 main.go:6:12",
	}
	if !slices.Equal(summary, want) {
		t.Errorf("impacts:\n%s\nwant:\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
	}
}
