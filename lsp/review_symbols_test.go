package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/review"
	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

const (
	calcText = "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Sub subtracts.\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
	mainText = "package main\n\nfunc main() {\n\tx := calc.Add(1, 2)\n\ty := calc.Sub(3, 4)\n\tprintln(x, y)\n}\n"
)

// TestGroupHunks: the hunks of a declaration are those inside its lines
// and, in any file, those whose lines hold one of its call sites; a
// declaration with one such hunk makes no group.
func TestGroupHunks(t *testing.T) {
	add := tools.SymbolImpact{Symbol: "func Add", Path: "/w/calc.go", Lines: tools.LineSpan{Start: 4, End: 6},
		Callers: []tools.Place{{Path: "/w/main.go", Line: 4, Column: 12}}}
	sub := tools.SymbolImpact{Symbol: "func Sub", Path: "/w/calc.go", Lines: tools.LineSpan{Start: 9, End: 11},
		Callers: []tools.Place{{Path: "/w/main.go", Line: 5, Column: 12}}}
	mainFn := tools.SymbolImpact{Symbol: "func main", Path: "/w/main.go", Lines: tools.LineSpan{Start: 3, End: 7}}
	for _, c := range []struct {
		name     string
		calc, mn map[string]string // old → new in each file
		impacts  []tools.SymbolImpact
		want     []string // "symbol: file:first line of each hunk"
	}{{
		name:    "body and call site",
		calc:    map[string]string{"return a + b": "return b + a"},
		mn:      map[string]string{"calc.Add(1, 2)": "calc.Add(2, 1)"},
		impacts: []tools.SymbolImpact{add, mainFn},
		want:    []string{"func Add: calc.go:5 main.go:4"},
	}, {
		name:    "a call site of another declaration stays out",
		calc:    map[string]string{"return a + b": "return b + a", "return a - b": "return -(b - a)"},
		mn:      map[string]string{"calc.Sub(3, 4)": "calc.Sub(4, 3)"},
		impacts: []tools.SymbolImpact{add, sub, mainFn},
		want:    []string{"func Sub: calc.go:10 main.go:5"},
	}, {
		name:    "two call sites in one declaration group by it too",
		mn:      map[string]string{"x := calc.Add(1, 2)": "x := calc.Add(2, 1)", "println(x, y)": "println(y, x)"},
		impacts: []tools.SymbolImpact{add, mainFn},
		want:    []string{"func main: main.go:4 main.go:6"},
	}, {
		name:    "one hunk alone makes no group",
		calc:    map[string]string{"return a + b": "return b + a"},
		impacts: []tools.SymbolImpact{add},
	}, {
		name: "nothing known, nothing grouped",
		calc: map[string]string{"return a + b": "return b + a", "return a - b": "return -(b - a)"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			st := review.NewStore()
			var files []pendingHunks
			for _, f := range []struct {
				path, text string
				edits      map[string]string
			}{{"/w/calc.go", calcText, c.calc}, {"/w/main.go", mainText, c.mn}} {
				want := f.text
				for old, new := range f.edits {
					want = strings.Replace(want, old, new, 1)
				}
				st.Propose("s", f.path, f.text, true, &want)
				if p, ok := st.Pending(f.path, f.text); ok {
					files = append(files, pendingHunks{path: f.path, uri: "file://" + f.path, cur: f.text, file: p})
				}
			}
			var got []string
			for _, g := range groupHunks(files, c.impacts) {
				var at []string
				for _, h := range g.hunks {
					for _, pf := range files {
						for _, ph := range pf.file.Hunks {
							if pf.uri == h.URI && ph.ID == h.Hunk {
								at = append(at, fmt.Sprintf("%s:%d", strings.TrimPrefix(pf.path, "/w/"), hunkSpan(pf.cur, ph).Start))
							}
						}
					}
				}
				got = append(got, g.symbol+": "+strings.Join(at, " "))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("groups = %q, want %q", got, c.want)
			}
		})
	}
}

func TestImpactSummary(t *testing.T) {
	at := func(paths ...string) []tools.Place {
		var out []tools.Place
		for i, p := range paths {
			out = append(out, tools.Place{Path: p, Line: i + 1, Column: 1})
		}
		return out
	}
	for _, c := range []struct {
		imp  tools.SymbolImpact
		want string
	}{
		{tools.SymbolImpact{Symbol: "func Add", Callers: at("/a.go", "/b.go")}, "changes func Add — 2 callers in 2 files"},
		{tools.SymbolImpact{Symbol: "func Add", Callers: at("/a.go", "/a.go", "/a.go")}, "changes func Add — 3 callers in 1 file"},
		{tools.SymbolImpact{Symbol: "method (*Calc).Add", Callers: at("/a.go")}, "changes method (*Calc).Add — 1 caller in 1 file"},
		{tools.SymbolImpact{Symbol: "func Add"}, "changes func Add — no callers"},
		{tools.SymbolImpact{Symbol: "struct T", References: true, Callers: at("/a.go", "/b.go", "/b.go")}, "changes struct T — 3 references in 2 files"},
	} {
		if got := impactSummary(c.imp); got != c.want {
			t.Errorf("impactSummary(%+v) = %q, want %q", c.imp, got, c.want)
		}
	}
}

// TestImpactOfHunk: a hunk belongs to the innermost declaration holding
// all of its lines.
func TestImpactOfHunk(t *testing.T) {
	class := tools.SymbolImpact{Symbol: "class Calc", Lines: tools.LineSpan{Start: 1, End: 20}}
	method := tools.SymbolImpact{Symbol: "method Calc.add", Lines: tools.LineSpan{Start: 5, End: 8}}
	impacts := []tools.SymbolImpact{class, method}
	for _, c := range []struct {
		span tools.LineSpan
		want string
	}{
		{tools.LineSpan{Start: 6, End: 7}, "method Calc.add"},
		{tools.LineSpan{Start: 4, End: 6}, "class Calc"},
		{tools.LineSpan{Start: 19, End: 22}, ""},
	} {
		got, _ := impactOfHunk(impacts, c.span)
		if got.Symbol != c.want {
			t.Errorf("impactOfHunk(%v) = %q, want %q", c.span, got.Symbol, c.want)
		}
	}
}

// TestAddImpact: once the graph has answered for a file's text, the
// diagnostic of a hunk inside a declaration says what it reaches and
// points to each call site, in the editor's encoding; a hunk outside any
// declaration is left as it was.
func TestAddImpact(t *testing.T) {
	root := t.TempDir()
	calcPath, mainPath := filepath.Join(root, "calc.go"), filepath.Join(root, "main.go")
	// "é" is one character, two bytes and one UTF-16 unit.
	main := strings.Replace(mainText, "\tx := calc.Add", "\té := calc.Add", 1)
	for p, text := range map[string]string{calcPath: calcText, mainPath: main} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := New(Options{})
	want := strings.Replace(strings.Replace(calcText, "return a + b", "return b + a", 1), "package calc\n", "package calc // adds\n", 1)
	s.review.Propose("s", calcPath, calcText, true, &want)
	f, ok := s.review.Pending(calcPath, calcText)
	if !ok || len(f.Hunks) != 2 {
		t.Fatalf("pending: %+v, want two hunks", f)
	}
	key, _ := impactKey(calcText, f)
	s.review.impact.byPath = map[string]fileImpact{calcPath: {key: key, impacts: []tools.SymbolImpact{{
		Symbol: "func Add", Path: calcPath, Lines: tools.LineSpan{Start: 4, End: 6},
		Callers: []tools.Place{{Path: mainPath, Line: 4, Column: 7}},
	}}}}
	var diags []protocol.Diagnostic
	for _, h := range f.Hunks {
		diags = append(diags, hunkDiagnostic(calcText, f, h, wire.UTF16, false))
	}
	s.addImpact(calcPath, calcText, f, diags, wire.UTF16)
	if got := messageText(diags[0].Message); strings.Contains(got, "changes") || len(diags[0].RelatedInformation) != 0 {
		t.Errorf("the package clause's hunk: %q, %+v; want no impact", got, diags[0].RelatedInformation)
	}
	if got := messageText(diags[1].Message); !strings.HasSuffix(got, "\nchanges func Add — 1 caller in 1 file") {
		t.Errorf("Add's hunk says %q", got)
	}
	wantRel := []protocol.DiagnosticRelatedInformation{{
		Location: protocol.Location{URI: uri.File(mainPath), Range: protocol.Range{Start: protocol.Position{Line: 3, Character: 6}, End: protocol.Position{Line: 3, Character: 6}}},
		Message:  "calls func Add",
	}}
	if !slices.Equal(diags[1].RelatedInformation, wantRel) {
		t.Errorf("related information %+v, want %+v", diags[1].RelatedInformation, wantRel)
	}
}
