package graph

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/tools"
)

func TestPositionEncodings(t *testing.T) {
	// "Σ" is 2 bytes and 1 UTF-16 unit; "🎉" 4 bytes and 2 units.
	tx := newText("ab\r\nxΣ🎉y = 1\n")
	for _, c := range []struct {
		line, col int
		enc       encoding
		want      uint32
	}{
		{2, 1, utf8Enc, 0}, {2, 2, utf8Enc, 1}, {2, 3, utf8Enc, 3}, {2, 4, utf8Enc, 7},
		{2, 4, utf16Enc, 4}, {2, 5, utf16Enc, 5}, {2, 5, utf32Enc, 4},
		{2, 99, utf16Enc, 9}, // past the end: the line's end
		{1, 3, utf16Enc, 2},  // the \r is not part of the line
	} {
		p := tx.toServer(c.line, c.col, c.enc)
		if p.Line != uint32(c.line-1) || p.Character != c.want {
			t.Errorf("toServer(%d, %d, %s) = %v, want character %d", c.line, c.col, c.enc, p, c.want)
		}
		if c.col > 90 {
			continue
		}
		if l, col := tx.fromServer(p, c.enc); l != c.line || col != min(c.col, 9) {
			t.Errorf("fromServer(%v, %s) = %d:%d, want %d:%d", p, c.enc, l, col, c.line, c.col)
		}
	}
	// A UTF-16 position inside the surrogate pair rounds down.
	if _, col := tx.fromServer(protocol.Position{Line: 1, Character: 3}, utf16Enc); col != 3 {
		t.Errorf("inside a surrogate pair: column %d, want 3", col)
	}
	if off, err := tx.offset(protocol.Position{Line: 2, Character: 0}, utf16Enc); err != nil || off != len(tx.s) {
		t.Errorf("offset just past the final newline = %d, %v", off, err)
	}
	if _, err := tx.offset(protocol.Position{Line: 5}, utf16Enc); err == nil {
		t.Error("offset past the end: no error")
	}
}

func TestApplyEdits(t *testing.T) {
	pos := func(l, c uint32) protocol.Position { return protocol.Position{Line: l, Character: c} }
	edit := func(a, b protocol.Position, s string) protocol.TextEdit {
		return protocol.TextEdit{Range: protocol.Range{Start: a, End: b}, NewText: s}
	}
	for _, c := range []struct {
		name  string
		in    string
		edits []protocol.TextEdit
		enc   encoding
		want  string
		err   string
	}{
		{"replace in order given backwards", "Add(Add(1))\n", []protocol.TextEdit{edit(pos(0, 4), pos(0, 7), "Sum"), edit(pos(0, 0), pos(0, 3), "Sum")}, utf16Enc, "Sum(Sum(1))\n", ""},
		{"after an emoji in utf-16", "s := \"🎉\" + Add()\n", []protocol.TextEdit{edit(pos(0, 12), pos(0, 15), "Sum")}, utf16Enc, "s := \"🎉\" + Sum()\n", ""},
		{"after an emoji in utf-8", "s := \"🎉\" + Add()\n", []protocol.TextEdit{edit(pos(0, 14), pos(0, 17), "Sum")}, utf8Enc, "s := \"🎉\" + Sum()\n", ""},
		{"inserts at one place keep their order", "x\n", []protocol.TextEdit{edit(pos(0, 0), pos(0, 0), "a"), edit(pos(0, 0), pos(0, 0), "b")}, utf16Enc, "abx\n", ""},
		{"append at the end", "x\n", []protocol.TextEdit{edit(pos(1, 0), pos(1, 0), "y\n")}, utf16Enc, "x\ny\n", ""},
		{"overlap", "abcdef", []protocol.TextEdit{edit(pos(0, 0), pos(0, 3), "x"), edit(pos(0, 2), pos(0, 4), "y")}, utf16Enc, "", "overlaps"},
	} {
		got, err := applyEdits(c.in, c.edits, c.enc)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestRankSymbols(t *testing.T) {
	// Symbols as gopls (qualified names), pyright (containers) and
	// typescript-language-server (neither) report them.
	syms := []*symbol{
		{name: "calc.Calc.Add", container: "example.com/calc", kind: protocol.SymbolKindMethod, path: "/w/calc/calc.go"},
		{name: "calc.Add", container: "example.com/calc", kind: protocol.SymbolKindFunction, path: "/w/calc/calc.go"},
		{name: "other.Add", container: "example.com/other", kind: protocol.SymbolKindFunction, path: "/w/other/other.go"},
		{name: "calc.AddAll", container: "example.com/calc", kind: protocol.SymbolKindFunction, path: "/w/calc/calc.go"},
		{name: "calc.MustAdd", container: "example.com/calc", kind: protocol.SymbolKindFunction, path: "/w/calc/calc.go"},
		{name: "add", container: "Calc", kind: protocol.SymbolKindMethod, path: "/w/calc.py"},
		{name: "add", kind: protocol.SymbolKindFunction, path: "/w/calc.py"},
	}
	for _, s := range syms {
		s.qualifier, s.short = splitQuery(s.name)
	}
	for _, c := range []struct {
		query string
		want  []string // the order of the best few, as name@path
	}{
		// Exact names first, functions before methods; then the name but
		// for case; then prefixes.
		{"Add", []string{"calc.Add@/w/calc/calc.go", "other.Add@/w/other/other.go", "calc.Calc.Add@/w/calc/calc.go", "add@/w/calc.py", "add@/w/calc.py", "calc.AddAll@/w/calc/calc.go"}},
		// The package qualifies the function directly, the method from
		// further up.
		{"calc.Add", []string{"calc.Add@/w/calc/calc.go", "calc.Calc.Add@/w/calc/calc.go", "add@/w/calc.py"}},
		{"Calc.Add", []string{"calc.Calc.Add@/w/calc/calc.go", "calc.Add@/w/calc/calc.go"}},
		{"other.Add", []string{"other.Add@/w/other/other.go"}},
		// A Python module qualifies by its file.
		{"calc.add", []string{"add@/w/calc.py", "add@/w/calc.py", "calc.Add@/w/calc/calc.go"}},
		// Contains.
		{"dd", []string{"add@/w/calc.py"}},
	} {
		qual, name := splitQuery(c.query)
		ranked := slices.Clone(syms)
		for _, s := range ranked {
			s.rank = rankSymbol(s, qual, name)
		}
		slices.SortStableFunc(ranked, func(a, b *symbol) int {
			switch {
			case a.rank.less(b.rank):
				return -1
			case b.rank.less(a.rank):
				return 1
			}
			return 0
		})
		var got []string
		for _, s := range ranked[:len(c.want)] {
			got = append(got, s.name+"@"+s.path)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q ranks\n %v\nwant\n %v", c.query, got, c.want)
		}
	}
}

func TestCoalesceAndSort(t *testing.T) {
	w := func(p, s string) tools.Change { return tools.Change{Kind: tools.Write, Path: p, Content: []byte(s)} }
	got := sortWrites(coalesce([]tools.Change{
		w("/b", "1"), w("/a", "1"), w("/b", "2"),
		{Kind: tools.Rename, Path: "/b", NewPath: "/c"},
		w("/c", "3"), w("/a", "2"),
	}))
	var s []string
	for _, c := range got {
		s = append(s, c.Kind.String()+" "+c.Path+" "+c.NewPath+string(c.Content))
	}
	// The first writes to /a and /b are replaced before anything else
	// happens to those files.
	want := []string{"write /b 2", "rename /b /c", "write /a 2", "write /c 3"}
	if !slices.Equal(s, want) {
		t.Errorf("got %q\nwant %q", s, want)
	}
}

func TestWordAt(t *testing.T) {
	for _, c := range []struct {
		line string
		col  int
		want string
	}{
		{"c.Add(calc.Add(1, 2))", 3, "Add"},
		{"c.Add(calc.Add(1, 2))", 5, "Add"},
		{"\"🎉\" + calc.Label(x)", 14, "Label"},
		{"x := $el", 7, "$el"},
		{"", 1, ""},
	} {
		if got := wordAt(c.line, c.col); got != c.want {
			t.Errorf("wordAt(%q, %d) = %q, want %q", c.line, c.col, got, c.want)
		}
	}
}

func TestMergeServers(t *testing.T) {
	got := mergeServers(DefaultServers(), []config.GraphServer{
		{Name: "gopls", Command: []string{"/opt/gopls", "serve"}, InitializationOptions: map[string]any{"staticcheck": true}},
		{Name: "rust-analyzer", Command: []string{"rust-analyzer"}, Extensions: []string{".rs"}, RootMarkers: []string{"Cargo.toml"}},
		{Name: "broken"},
	})
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	if want := []string{"gopls", "pyright", "typescript-language-server", "rust-analyzer"}; !slices.Equal(names, want) {
		t.Fatalf("servers %v, want %v", names, want)
	}
	g := got[0]
	if g.Command[0] != "/opt/gopls" || !slices.Equal(g.Extensions, []string{".go"}) || g.InitializationOptions["staticcheck"] != true || g.InitializationOptions["symbolStyle"] != "package" {
		t.Errorf("merged gopls: %+v", g)
	}
	if DefaultServers()[0].InitializationOptions["staticcheck"] != nil {
		t.Error("merging changed the defaults")
	}
	if !handles(got[3], "/x/main.rs") || handles(got[3], "/x/main.go") || !handles(got[0], "/x/A.GO") {
		t.Error("handles by extension")
	}
}

func TestServerMessages(t *testing.T) {
	msg := "TypeScript Server Error (6.0.3)\nNo Project.\nError: No Project.\n    at Object.ThrowNoProject (typescript.js:1:1)\n    at x (y.js:2:2)"
	if got := trimStack(msg); got != "TypeScript Server Error (6.0.3)\nNo Project." {
		t.Errorf("trimStack = %q", got)
	}
	if got := oneLine("calc.go:10:6: renaming this func\ncalc.go:13:6:\tconflicts with func in same block\n"); got != "calc.go:10:6: renaming this func; calc.go:13:6: conflicts with func in same block" {
		t.Errorf("oneLine = %q", got)
	}
}
