package projectdoc

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// fakeLister answers for files by path below root: with decls, with an
// error, or (block) not before the draft's wait ends.
type fakeLister struct {
	root    string
	answers map[string][]tools.Declaration
	err     error
	block   bool

	mu    sync.Mutex // guards asked
	asked []string
}

func (f *fakeLister) Declarations(ctx context.Context, path string) ([]tools.Declaration, error) {
	rel, _ := filepath.Rel(f.root, path)
	rel = filepath.ToSlash(rel)
	f.mu.Lock()
	f.asked = append(f.asked, rel)
	f.mu.Unlock()
	switch {
	case f.block:
		<-ctx.Done()
		return nil, ctx.Err()
	case f.err != nil:
		return nil, f.err
	}
	return f.answers[rel], nil
}

func decl(kind, name string) tools.Declaration { return tools.Declaration{Kind: kind, Name: name} }

// symbolTree is a Go package of nine files and Python, TypeScript and
// JavaScript modules, some of them where no main module is looked for.
var symbolTree = map[string]string{
	"go.mod":                    "module example.com/calc\n\ngo 1.22\n",
	"calc.go":                   "// Package calc adds numbers.\npackage calc\n\ntype Calc struct{}\n",
	"doc.go":                    "package calc\n",
	"a.go":                      "package calc\n\ntype Alpha int\n",
	"b.go":                      "package calc\n",
	"c.go":                      "package calc\n",
	"d.go":                      "package calc\n",
	"e.go":                      "package calc\n\ntype Echo int\n",
	"f.go":                      "package calc\n",
	"calc_test.go":              "package calc\n",
	"pkg/__init__.py":           "",
	"pkg/pkg.py":                "",
	"pkg/util.py":               "",
	"pkg/sub/deep/main.py":      "",
	"tests/__init__.py":         "",
	"web/index.ts":              "",
	"web/types.d.ts":            "",
	"node_modules/x/index.js":   "",
	"main.py":                   "",
	"web/node_modules/index.js": "",
}

// TestDraftSymbols: with a source of symbols, a Go package lists the
// exported types and functions the server reports for the files it
// answered for, and go/parser's types for the others; the main modules
// list their classes and functions, Python's private names left out. The
// files asked about are a bounded set, none the read rules withhold; a source that fails or
// does not answer in time leaves the draft as it is without one.
func TestDraftSymbols(t *testing.T) {
	root := writeTree(t, symbolTree)
	withhold := func(p string) bool { return strings.Contains(p, "secret") }
	plain, err := Draft(t.Context(), root, Options{Withhold: withhold})
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string][]tools.Declaration{
		"calc.go": {decl("struct", "Server"), decl("class", "op"), decl("function", "New"), decl("function", "helper"),
			decl("method", "(*Server).Add"), decl("constant", "Zero"), decl("interface", "Adder")},
		"doc.go": {decl("function", "Parse")},
		"pkg/__init__.py": {decl("class", "Calc"), decl("class", "_Hidden"), decl("function", "total"),
			decl("function", "_helper"), decl("variable", "LIMIT")},
		"pkg/pkg.py":   {decl("variable", "X")},
		"web/index.ts": {decl("class", "App"), decl("function", "_start"), decl("function", "main")},
		"main.py":      {decl("function", "run")},
	}
	for _, c := range []struct {
		name   string
		lister *fakeLister
		wait   time.Duration
		want   []string // the draft holds each
		not    []string // and none of these
	}{
		{
			name:   "answered",
			lister: &fakeLister{answers: answers},
			wait:   time.Hour,
			want: []string{
				// Six files of a package are asked about, e.go and f.go
				// not: Echo is go/parser's; calc.go's types are the
				// server's, and it reported none in a.go.
				"\n- `.` (package calc): Package calc adds numbers. Types: Adder, Echo, Server. Funcs: New, Parse.\n",
				"\n## Main modules\n\n- `main.py` Functions: run.\n- `pkg/__init__.py` Classes: Calc. Functions: total.\n- `web/index.ts` Classes: App. Functions: _start, main.\n",
			},
			not: []string{"op", "helper", "Zero", "_Hidden", "_helper", "LIMIT", "pkg/pkg.py"},
		},
		{
			name:   "failing",
			lister: &fakeLister{err: errors.New("gopls: not installed")},
			wait:   time.Hour,
		},
		{
			name:   "late",
			lister: &fakeLister{block: true},
			wait:   time.Millisecond,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.lister.root = root
			draft, err := Draft(t.Context(), root, Options{Withhold: withhold, Symbols: c.lister, SymbolWait: c.wait})
			if err != nil {
				t.Fatal(err)
			}
			if c.want == nil && draft != plain {
				t.Errorf("the draft differs from the one without symbols:\n%s\n---\n%s", draft, plain)
			}
			for _, w := range c.want {
				if !strings.Contains(draft, w) {
					t.Errorf("the draft lacks %q:\n%s", w, draft)
				}
			}
			for _, n := range c.not {
				if strings.Contains(draft, n) {
					t.Errorf("the draft holds %q:\n%s", n, draft)
				}
			}
			if !strings.Contains(plain, "Types: Alpha, Calc, Echo.\n") || strings.Contains(plain, "## Main modules") {
				t.Errorf("the draft without symbols:\n%s", plain)
			}
			if c.lister.block {
				return // the wait may end before every file is asked about
			}
			wantAsked := []string{"calc.go", "doc.go", "a.go", "b.go", "c.go", "d.go",
				"main.py", "pkg/__init__.py", "pkg/pkg.py", "web/index.ts"}
			slices.Sort(c.lister.asked)
			slices.Sort(wantAsked)
			if !slices.Equal(c.lister.asked, wantAsked) {
				t.Errorf("asked about %v, want %v", c.lister.asked, wantAsked)
			}
		})
	}
}
