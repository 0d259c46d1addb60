package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/permission"
)

// calcUnusedImport imports os without using it.
const calcUnusedImport = `package calc

import (
	"fmt"
	"os"
)

// Show shows.
func Show(n int) string { return fmt.Sprint(n) }
`

// organizeImports lists the code actions at the imports, then applies
// gopls's own Organize Imports.
const organizeImports = `call code_action {"path": "calc.go", "line": 5}
---
expect tool "title":"Organize Imports"
expect tool "kind":"source.organizeImports"
call code_action {"path": "calc.go", "line": 5, "apply": "Organize Imports"}
---
text done
`

// writeUnusedImport replaces the module's calc.go with one whose import
// of os is unused.
func writeUnusedImport(t *testing.T, a *agent.Agent) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(a.Env.Root, "calc.go"), []byte(calcUnusedImport), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCodeActionOrganizeImports: the model lists the file's code
// actions and applies gopls's Organize Imports; the unused import is
// gone, through the agent's write path, as a change of the turn.
func TestCodeActionOrganizeImports(t *testing.T) {
	res, _, root, reqs := runCheckedWith(t, organizeImports, func(a *agent.Agent) { writeUnusedImport(t, a) })
	if res.Text != "done" {
		t.Fatalf("answer %q after %d requests", res.Text, len(reqs))
	}
	got, err := os.ReadFile(filepath.Join(root, "calc.go"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), `"os"`) || !strings.Contains(string(got), `"fmt"`) {
		t.Errorf("after Organize Imports:\n%s", got)
	}
	if len(res.Changes) != 1 || filepath.Base(res.Changes[0].Path) != "calc.go" {
		t.Errorf("changes of the turn %+v, want calc.go", res.Changes)
	}
}

// TestCodeActionDenied: a deny rule on the file refuses the action, and
// the file keeps its import.
func TestCodeActionDenied(t *testing.T) {
	const script = `call code_action {"path": "calc.go", "line": 5, "apply": "Organize Imports"}
---
expect tool denied
text refused
`
	res, _, root, _ := runCheckedWith(t, script, func(a *agent.Agent) {
		writeUnusedImport(t, a)
		p, err := permission.NewPolicy("allow", nil, nil, []string{"Edit(calc.go)"})
		if err != nil {
			t.Fatal(err)
		}
		a.Gate = &permission.Checker{Policy: p}
	})
	if res.Text != "refused" {
		t.Fatalf("answer %q", res.Text)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(got) != calcUnusedImport {
		t.Errorf("calc.go changed:\n%s", got)
	}
}

// TestFormatGoFile: format gofmts a badly formatted file.
func TestFormatGoFile(t *testing.T) {
	const script = `call format {"path": "calc.go"}
---
expect tool formatted calc.go
text done
`
	res, _, root, _ := runCheckedWith(t, script, func(a *agent.Agent) {
		if err := os.WriteFile(filepath.Join(a.Env.Root, "calc.go"), []byte("package calc\nfunc Add(a,b int)int{\nreturn a+b}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if res.Text != "done" {
		t.Fatalf("answer %q", res.Text)
	}
	want := "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(got) != want {
		t.Errorf("formatted:\n%s\nwant:\n%s", got, want)
	}
}
