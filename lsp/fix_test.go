package lsp_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/lsptest"
)

// brokenCalcGo does not build: gopls reports both undefined names, and a
// client that sends no diagnostic of its own gets them from the project
// graph.
const brokenCalcGo = `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a + zz
}

// Sub returns a minus b.
func Sub(a, b int) int {
	return a - yy
}
`

// graphFixScript is the model of TestGraphQuickFix: a turn from the code
// action, then one from reasonix.fix. Each starts from gopls's diagnostic.
const graphFixScript = `expect user Fix this problem in calc.go at line 5, column 13
expect user error from gopls: undefined: zz
call edit_file {"path": "calc.go", "old_string": "return a + zz", "new_string": "return a + b"}
---
expect tool Edited calc.go
text Add used a name that does not exist; it adds b now.
---
expect user Fix this problem in calc.go at line 10, column 13
expect user error from gopls: undefined: yy
call edit_file {"path": "calc.go", "old_string": "return a - yy", "new_string": "return a - b"}
---
expect tool Edited calc.go
call bash {"command": "go test ./..."}
---
expect tool Exit code: 0
text Sub used a name that does not exist; it subtracts b now, and the tests pass.
`

// vimLSPOnly is the context.only vim-lsp sends: the empty kind first.
var vimLSPOnly = []protocol.CodeActionKind{"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports"}

// TestGraphQuickFix plays a client that sends no diagnostic with its
// requests for code actions, as eglot, vim-lsp and yegappan/lsp do for a
// server that publishes none: the quick fix comes from what gopls, behind
// the project graph, reports on the requested line; a client that sends
// its own diagnostics gets only those; reasonix.fix fixes what gopls
// reports at a position. Both fixes land and the module's tests pass.
func TestGraphQuickFix(t *testing.T) {
	requireProgram(t, "gopls")
	root, srv := workspace(t, graphFixScript, "")
	if err := os.WriteFile(filepath.Join(root, "calc.go"), []byte(brokenCalcGo), 0o644); err != nil {
		t.Fatal(err)
	}
	ed := lsptest.New(t, lsptest.Options{Root: root, Events: true, SaveDocuments: true})
	ed.OpenFile("calc.go")
	ed.Answer("Allow once")
	addLine := protocol.Range{Start: protocol.Position{Line: 4, Character: 3}, End: protocol.Position{Line: 4, Character: 3}}

	// gopls starts with the first request and loads the module; until it
	// has reported, each request comes back, within its bound, without
	// the fix.
	var fix *protocol.CodeAction
	for deadline := time.Now().Add(time.Minute); fix == nil; {
		if time.Now().After(deadline) {
			t.Fatal("no quick fix from gopls's diagnostics within a minute")
		}
		fix = findAction(t, codeActions(t, ed, addLine, nil, vimLSPOnly), "Ask Reasonix to fix: undefined: zz")
	}
	if fix.Kind == nil || *fix.Kind != protocol.CodeActionKindQuickFix || fix.Command.Command != "reasonix.start" {
		t.Errorf("the fix: kind %v, command %q", fix.Kind, fix.Command.Command)
	}
	zz := protocol.Range{Start: protocol.Position{Line: 4, Character: 12}, End: protocol.Position{Line: 4, Character: 14}}
	if len(fix.Diagnostics) != 1 {
		t.Fatalf("the fix's diagnostics: %+v, want gopls's one", fix.Diagnostics)
	}
	if src, _ := fix.Diagnostics[0].Source.Get(); fix.Diagnostics[0].Range != zz || src != "gopls" {
		t.Errorf("the fix's diagnostic: %+v, want gopls's at %v", fix.Diagnostics[0], zz)
	}

	// On a selection of Add, with vim-lsp's kinds: the fix for its line
	// and the selection's actions; not the fix for Sub's line.
	sel := protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 6}}
	titles := actionTitles(codeActions(t, ed, sel, nil, vimLSPOnly))
	want := []string{"Ask Reasonix to fix: undefined: zz", "Ask Reasonix to explain this code", "Ask Reasonix to refactor this code", "Ask Reasonix to add tests for this code"}
	if !slices.Equal(titles, want) {
		t.Errorf("actions on a selection of Add: %q, want %q", titles, want)
	}
	// A client that sends its own diagnostic gets the fix for that one.
	own := protocol.Diagnostic{Range: zz, Severity: protocol.DiagnosticSeverityError, Source: protocol.NewOptional("compiler"), Message: protocol.String("zz is not declared")}
	if titles := actionTitles(codeActions(t, ed, addLine, []protocol.Diagnostic{own}, nil)); !slices.Equal(titles, []string{"Ask Reasonix to fix: zz is not declared"}) {
		t.Errorf("actions with the client's diagnostic: %q", titles)
	}
	// Only refactorings: no fix, and no wait for gopls.
	if titles := actionTitles(codeActions(t, ed, addLine, nil, []protocol.CodeActionKind{"refactor"})); len(titles) != 0 {
		t.Errorf("actions of kind refactor on an empty range: %q", titles)
	}

	execute(t, ed, fix.Command)
	ed.Await("the first turn to end", 30*time.Second, func(r *lsptest.Recorded) bool { return countEnds(r) == 1 })
	if text, _ := ed.Buffer("calc.go"); !strings.Contains(text, "return a + b") {
		t.Fatalf("the buffer after the code action's turn:\n%s", text)
	}

	// reasonix.fix: the file is required, and a line gopls reports
	// nothing on is refused.
	for _, tc := range []struct {
		arg  map[string]any
		code jsonrpc2.Code
		msg  string
	}{
		{map[string]any{"position": map[string]int{"line": 9, "character": 0}}, jsonrpc2.InvalidParams, "needs the uri of a file"},
		{map[string]any{"uri": string(ed.URI("calc.go")), "position": map[string]int{"line": 4, "character": 0}}, jsonrpc2.InvalidRequest, "report no error or warning on line 5 of calc.go"},
	} {
		_, err := runCommand(t, ed, "reasonix.fix", tc.arg)
		var je *jsonrpc2.Error
		if !errors.As(err, &je) || je.Code != tc.code || !strings.Contains(je.Message, tc.msg) {
			t.Errorf("reasonix.fix %v: %v, want %d %q", tc.arg, err, tc.code, tc.msg)
		}
	}
	// The argument as TextDocumentPositionParams.
	res, err := runCommand(t, ed, "reasonix.fix", map[string]any{
		"textDocument": map[string]string{"uri": string(ed.URI("calc.go"))},
		"position":     map[string]int{"line": 9, "character": 0},
	})
	if err != nil {
		t.Fatalf("reasonix.fix on Sub's line: %v", err)
	}
	if res["problem"] != "calc.go:10:13: undefined: yy" || res["sessionId"] == "" {
		t.Errorf("reasonix.fix answered %v", res)
	}
	ed.Await("the second turn to end", 60*time.Second, func(r *lsptest.Recorded) bool { return countEnds(r) == 2 })

	disk, err := os.ReadFile(filepath.Join(root, "calc.go"))
	if err != nil {
		t.Fatal(err)
	}
	if fixed := strings.NewReplacer("a + zz", "a + b", "a - yy", "a - b").Replace(brokenCalcGo); string(disk) != fixed {
		t.Errorf("calc.go on disk after both turns:\n%s\nwant:\n%s", disk, fixed)
	}
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were never asked for", n)
	}
	if code := ed.Shutdown(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// codeActions asks for the code actions of calc.go on r.
func codeActions(t *testing.T, ed *lsptest.Editor, r protocol.Range, diags []protocol.Diagnostic, only []protocol.CodeActionKind) []protocol.CommandOrCodeAction {
	t.Helper()
	acts, err := ed.Server().CodeAction(ctx(t), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: ed.URI("calc.go")},
		Range:        r,
		Context:      protocol.CodeActionContext{Diagnostics: diags, Only: only},
	})
	if err != nil {
		t.Fatal(err)
	}
	return acts
}

// findAction returns the code action titled title, or nil.
func findAction(t *testing.T, acts []protocol.CommandOrCodeAction, title string) *protocol.CodeAction {
	t.Helper()
	for _, a := range acts {
		if ca, ok := a.(*protocol.CodeAction); ok && ca.Title == title {
			return ca
		}
	}
	return nil
}

// runCommand executes a command with one argument object and decodes its
// result.
func runCommand(t *testing.T, ed *lsptest.Editor, command string, arg any) (map[string]any, error) {
	t.Helper()
	b, _ := json.Marshal(arg)
	res, err := ed.Server().ExecuteCommand(ctx(t), &protocol.ExecuteCommandParams{Command: command, Arguments: []protocol.LSPAny{b}})
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatalf("%s result %s: %v", command, res, err)
	}
	return out, nil
}

// countEnds counts the turns whose progress has ended.
func countEnds(r *lsptest.Recorded) int {
	n := 0
	for _, p := range r.Progress {
		if p.Kind == "end" {
			n++
		}
	}
	return n
}
