package graph

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

func TestPositionEncodings(t *testing.T) {
	// "Σ" is 2 bytes and 1 UTF-16 unit; "🎉" 4 bytes and 2 units.
	tx := wire.NewText("ab\r\nxΣ🎉y = 1\n")
	for _, c := range []struct {
		line, col int
		enc       wire.Encoding
		want      uint32
	}{
		{2, 1, wire.UTF8, 0}, {2, 2, wire.UTF8, 1}, {2, 3, wire.UTF8, 3}, {2, 4, wire.UTF8, 7},
		{2, 4, wire.UTF16, 4}, {2, 5, wire.UTF16, 5}, {2, 5, wire.UTF32, 4},
		{2, 99, wire.UTF16, 9}, // past the end: the line's end
		{1, 3, wire.UTF16, 2},  // the \r is not part of the line
	} {
		p := toServer(tx, c.line, c.col, c.enc)
		if p.Line != uint32(c.line-1) || p.Character != c.want {
			t.Errorf("toServer(%d, %d, %s) = %v, want character %d", c.line, c.col, c.enc, p, c.want)
		}
		if c.col > 90 {
			continue
		}
		if l, col := fromServer(tx, p, c.enc); l != c.line || col != min(c.col, 9) {
			t.Errorf("fromServer(%v, %s) = %d:%d, want %d:%d", p, c.enc, l, col, c.line, c.col)
		}
	}
	// A UTF-16 position inside the surrogate pair rounds down.
	if _, col := fromServer(tx, protocol.Position{Line: 1, Character: 3}, wire.UTF16); col != 3 {
		t.Errorf("inside a surrogate pair: column %d, want 3", col)
	}
	if off, err := tx.Offset(protocol.Position{Line: 2, Character: 0}, wire.UTF16); err != nil || off != len(tx.String()) {
		t.Errorf("offset just past the final newline = %d, %v", off, err)
	}
	if _, err := tx.Offset(protocol.Position{Line: 5}, wire.UTF16); err == nil {
		t.Error("offset past the end: no error")
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
	got := mergeServers(DefaultServers(), []ServerSpec{
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

// TestWithheldPlaces: a place in a file the query withholds keeps its
// file and position, and loses its snippet and its symbol's name; others
// keep theirs.
func TestWithheldPlaces(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{"open.go": "package p\n\nfunc Open() {}\n", "private.go": "package p\n\nfunc SecretPlan() {}\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := &Manager{root: root, realRoot: root}
	src := newSource(tools.DiskFS{}, nil)
	src.withhold = func(p string) bool { return filepath.Base(p) == "private.go" }
	pos := protocol.Position{Line: 2, Character: 5}
	open := m.place(src, wire.UTF16, filepath.Join(root, "open.go"), pos)
	if open.Withheld || open.Snippet != "func Open() {}" {
		t.Errorf("open.go: %+v", open)
	}
	sym := &symbol{name: "SecretPlan", container: "p", kind: protocol.SymbolKindFunction, path: filepath.Join(root, "private.go")}
	sym.srv = &server{enc: wire.UTF16}
	priv := m.symbolPlace(src, sym)
	if !priv.Withheld || priv.Path != "private.go" || priv.Snippet != "" || priv.Name != "" || priv.Container != "" || priv.Kind != "function" {
		t.Errorf("private.go: %+v", priv)
	}
	out, err := encode(priv)
	if err != nil || strings.Contains(out, "SecretPlan") || !strings.Contains(out, `"withheld":true`) {
		t.Errorf("encoded %s, %v", out, err)
	}
	// A failed lookup's nearest match: named from an open file, not from
	// a withheld one.
	pub := &symbol{name: "Open", path: filepath.Join(root, "open.go")}
	if got := closest(src, []*symbol{pub}); got != " (closest: Open)" {
		t.Errorf("closest in open.go = %q", got)
	}
	if got := closest(src, []*symbol{sym}); got != "" {
		t.Errorf("closest in private.go = %q", got)
	}
}
