package graph

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
)

// writeModule writes files (relative path → text) under a new directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, text := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const unusedImport = `package calc

import (
	"fmt"
	"os"
)

func Add(a, b int) int { return a + b }

func Show(n int) string { return fmt.Sprint(n) }
`

// TestGoOrganizeImports: gopls's own Organize Imports, listed and then
// applied, removes an unused import.
func TestGoOrganizeImports(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	root := writeModule(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": unusedImport})
	fsys := tools.DiskFS{}
	m := newManager(t, root, fsys, nil, gopls)
	ctx := t.Context()
	q := tools.CodeActionQuery{Path: "calc.go", Line: 5}
	acts, err := m.CodeActions(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(acts, func(a tools.CodeAction) bool { return a.Title == "Organize Imports" })
	if i < 0 {
		t.Fatalf("no Organize Imports among %+v", acts)
	}
	if acts[i].Kind != "source.organizeImports" {
		t.Errorf("Organize Imports has kind %q", acts[i].Kind)
	}
	changes, summary, err := m.ApplyCodeAction(ctx, q, "Organize Imports")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(summary, "applied Organize Imports: ") || !strings.HasSuffix(summary, " in 1 file") {
		t.Errorf("summary %q", summary)
	}
	if len(changes) != 1 || changes[0].Path != filepath.Join(root, "calc.go") {
		t.Fatalf("changes %+v", changes)
	}
	if err := fsys.Apply(ctx, changes); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, "calc.go"))
	if strings.Contains(string(got), `"os"`) || !strings.Contains(string(got), `"fmt"`) {
		t.Errorf("after Organize Imports:\n%s", got)
	}
	// Only narrows the list to the kinds asked for.
	acts, err = m.CodeActions(ctx, tools.CodeActionQuery{Path: "calc.go", Line: 8, Only: []string{"refactor.rewrite"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		if !strings.HasPrefix(a.Kind, "refactor.rewrite") {
			t.Errorf("only refactor.rewrite gave %+v", a)
		}
	}
}

// TestGoCodeActionErrors: what the model is told when the action cannot
// be had.
func TestGoCodeActionErrors(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	root := writeModule(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": unusedImport, "notes.txt": "x\n"})
	m := newManager(t, root, tools.DiskFS{}, nil, gopls)
	ctx := t.Context()
	tests := []struct {
		name  string
		q     tools.CodeActionQuery
		title string
		want  []string
	}{
		{"unknown title", tools.CodeActionQuery{Path: "calc.go", Line: 5}, "Tidy Up", []string{`no code action titled "Tidy Up"`, `"Organize Imports"`}},
		{"no server", tools.CodeActionQuery{Path: "notes.txt", Line: 1}, "Organize Imports", []string{"no language server is configured for .txt files"}},
		{"past the end", tools.CodeActionQuery{Path: "calc.go", Line: 50}, "Organize Imports", []string{"the file has"}},
		{"backwards", tools.CodeActionQuery{Path: "calc.go", Line: 5, EndLine: 2}, "Organize Imports", []string{"not a range"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := m.ApplyCodeAction(ctx, tt.q, tt.title)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestGoFormat: gopls formats a badly formatted file as gofmt does, and
// says it formats whole files only.
func TestGoFormat(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	bad := "package calc\nfunc Add(a,b int)int{\nreturn a+b}\n"
	root := writeModule(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": bad})
	fsys := tools.DiskFS{}
	m := newManager(t, root, fsys, nil, gopls)
	ctx := t.Context()
	changes, summary, err := m.Format(ctx, "calc.go", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(summary, "formatted calc.go: ") {
		t.Errorf("summary %q", summary)
	}
	if err := fsys.Apply(ctx, changes); err != nil {
		t.Fatal(err)
	}
	want := "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(got) != want {
		t.Errorf("formatted:\n%s\nwant:\n%s", got, want)
	}
	if changes, summary, err := m.Format(ctx, "calc.go", 0, 0); err != nil || len(changes) != 0 || summary != "calc.go is already formatted" {
		t.Errorf("formatting again = %v, %q, %v", changes, summary, err)
	}
	if _, _, err := m.Format(ctx, "calc.go", 2, 3); err == nil || !strings.Contains(err.Error(), "formats whole files only") {
		t.Errorf("range formatting: %v", err)
	}
}

// TestGoCodeActionWays: gopls gives its actions' edits in each of the
// ways the protocol allows, and each is applied: Fill P through
// codeAction/resolve, Add struct tags by running its command and taking
// the edit it sends back. A command that is not an edit is not run.
func TestGoCodeActionWays(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	const calc = "package calc\n\ntype P struct {\n\tX, Y int\n\tName string\n}\n\nvar p = P{}\n"
	root := writeModule(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": calc})
	fsys := tools.DiskFS{}
	m := newManager(t, root, fsys, nil, gopls)
	ctx := t.Context()
	tests := []struct {
		line  int
		title string
		want  string
	}{
		{8, "Fill P", "X:    0,"},
		{4, "Add struct tags", "`json:\"x\"`"},
	}
	for _, tt := range tests {
		changes, _, err := m.ApplyCodeAction(ctx, tools.CodeActionQuery{Path: "calc.go", Line: tt.line}, tt.title)
		if err != nil {
			t.Fatalf("%s: %v", tt.title, err)
		}
		if err := fsys.Apply(ctx, changes); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); !strings.Contains(string(got), tt.want) {
			t.Errorf("after %s, calc.go lacks %q:\n%s", tt.title, tt.want, got)
		}
	}
	before, _ := os.ReadFile(filepath.Join(root, "calc.go"))
	_, _, err := m.ApplyCodeAction(ctx, tools.CodeActionQuery{Path: "calc.go", Line: 4}, "Browse documentation for type P")
	if err == nil || !strings.Contains(err.Error(), "is not an edit") {
		t.Errorf("browsing documentation: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(after) != string(before) {
		t.Errorf("calc.go changed:\n%s", after)
	}
}

// TestGoQuickFix: the request carries gopls's diagnostics at the lines,
// and its quick fix for one is listed with what it fixes, then applied.
func TestGoQuickFix(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	const calc = "package calc\n\nfunc F() string {\n\treturn strings.ToUpper(\"x\")\n}\n"
	root := writeModule(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": calc})
	fsys := tools.DiskFS{}
	m := newManager(t, root, fsys, nil, gopls)
	ctx := t.Context()
	q := tools.CodeActionQuery{Path: "calc.go", Line: 4, Only: []string{"quickfix"}}
	acts, err := m.CodeActions(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(acts, func(a tools.CodeAction) bool { return slices.Contains(a.Fixes, "undefined: strings") })
	if i < 0 {
		t.Fatalf("no fix for the undefined strings among %+v", acts)
	}
	if a := acts[i]; a.Kind != "quickfix" || !strings.Contains(a.Title, `"strings"`) {
		t.Errorf("the fix is %+v", a)
	}
	changes, _, err := m.ApplyCodeAction(ctx, q, acts[i].Title)
	if err != nil {
		t.Fatal(err)
	}
	if err := fsys.Apply(ctx, changes); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); !strings.Contains(string(got), `import "strings"`) {
		t.Errorf("after %q:\n%s", acts[i].Title, got)
	}
}
