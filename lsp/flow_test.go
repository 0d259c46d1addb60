package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent/agenttest"
	_ "github.com/reasonix/reasonix/agent/provider/openai"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/lsp/lsptest"
	_ "github.com/reasonix/reasonix/tools/builtin"
)

const calcGo = `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}
`

const calcTest = `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}
`

// fixScript is the scripted model of the quick-fix flow.
const fixScript = `expect user TestAdd
expect user return a - b
call read_file {"path": "calc.go"}
---
expect tool return a - b
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
expect tool Edited calc.go
call bash {"command": "go test ./..."}
---
expect tool Exit code: 0
text Add subtracted; it adds now and the test passes.
`

// workspace writes a Go module with a failing test and a project config
// pointing at a scripted model server playing script.
func workspace(t testing.TB, script string, extraConfig string) (string, *scripted.Server) {
	return workspaceWith(t, script, extraConfig, scripted.Options{})
}

// workspaceWith is workspace with the scripted server's options.
func workspaceWith(t testing.TB, script string, extraConfig string, opts scripted.Options) (string, *scripted.Server) {
	t.Helper()
	t.Setenv("REASONIX_HOME", t.TempDir())
	t.Setenv("DEEPSEEK_API_KEY", "")
	srv, url := agenttest.Serve(t, script, opts)
	root := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.21\n",
		"calc.go":      calcGo,
		"calc_test.go": calcTest,
		"reasonix.toml": fmt.Sprintf(`default_model = "scripted"
review = "apply"
[[providers]]
name = "scripted"
base_url = %q
model = "deepseek-flash"
options = { retry_base_ms = 10 }
%s`, url, extraConfig),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	agenttest.Trust(t, root)
	return root, srv
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// diagnostic is what gopls would report for the failing test.
var diagnostic = protocol.Diagnostic{
	Range:    protocol.Range{Start: protocol.Position{Line: 4, Character: 1}, End: protocol.Position{Line: 4, Character: 13}},
	Severity: protocol.DiagnosticSeverityError,
	Source:   protocol.NewOptional("go test"),
	Message:  protocol.String("TestAdd fails: Add(2, 3) = -1, want 5"),
}

// quickFix asks for the code actions at the diagnostic and returns the
// quick fix.
func quickFix(t *testing.T, ed *lsptest.Editor) *protocol.CodeAction {
	t.Helper()
	actions, err := ed.Server().CodeAction(ctx(t), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: ed.URI("calc.go")},
		Range:        diagnostic.Range,
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{diagnostic}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		if ca, ok := a.(*protocol.CodeAction); ok && ca.Kind != nil && *ca.Kind == protocol.CodeActionKindQuickFix {
			return ca
		}
	}
	t.Fatalf("no quick fix among %d actions", len(actions))
	return nil
}

func execute(t *testing.T, ed *lsptest.Editor, cmd protocol.Command) map[string]any {
	t.Helper()
	res, err := ed.Server().ExecuteCommand(ctx(t), &protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: cmd.Arguments})
	if err != nil {
		t.Fatalf("%s: %v", cmd.Command, err)
	}
	var out map[string]any
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatalf("%s result %s: %v", cmd.Command, res, err)
	}
	return out
}

func progressEnded(r *lsptest.Recorded) bool {
	for _, p := range r.Progress {
		if p.Kind == "end" {
			return true
		}
	}
	return false
}

// TestQuickFixFlow is the main job: a diagnostic's quick fix runs the
// agent, the user allows the command, the fix arrives as a workspace edit
// in the buffer, and the saved file passes its test.
func TestQuickFixFlow(t *testing.T) {
	root, srv := workspace(t, fixScript, "")
	ed := lsptest.New(t, lsptest.Options{Root: root, Events: true, SaveDocuments: true})
	ed.OpenFile("calc.go")
	ed.Answer("Allow once")

	fix := quickFix(t, ed)
	if !strings.HasPrefix(fix.Title, "Ask Reasonix to fix: TestAdd fails") {
		t.Fatalf("title %q", fix.Title)
	}
	started := execute(t, ed, fix.Command)
	if started["sessionId"] == "" {
		t.Fatalf("start result %v", started)
	}
	ed.Await("the turn to end", 30*time.Second, progressEnded)

	if text, _ := ed.Buffer("calc.go"); !strings.Contains(text, "return a + b") {
		t.Fatalf("buffer:\n%s", text)
	}
	disk, _ := os.ReadFile(filepath.Join(root, "calc.go"))
	if !strings.Contains(string(disk), "return a + b") {
		t.Fatalf("not saved before go test:\n%s", disk)
	}
	rec := ed.Snapshot()
	if len(rec.Edits) != 1 || len(rec.Saves) != 1 {
		t.Fatalf("%d edits, %d saves", len(rec.Edits), len(rec.Saves))
	}
	if len(rec.Dialogs) != 2 {
		t.Fatalf("%d dialogs, want 2 (edit and command)", len(rec.Dialogs))
	}
	for _, d := range rec.Dialogs {
		var titles []string
		for _, a := range d.Actions {
			titles = append(titles, a.Title)
		}
		if strings.Join(titles, "|") != "Allow once|Allow for session|Always allow|Deny" {
			t.Fatalf("dialog actions %v", titles)
		}
	}
	if srv.Remaining() != 0 {
		t.Fatalf("%d scripted steps unused", srv.Remaining())
	}
	last := rec.Progress[len(rec.Progress)-1]
	if !strings.HasPrefix(last.Message, "Done: 3 tool calls") {
		t.Fatalf("progress end %q", last.Message)
	}
	kinds := map[string]bool{}
	for _, ev := range rec.Events {
		kinds[fmt.Sprint(ev["kind"])] = true
	}
	for _, k := range []string{"turn_start", "tool_start", "tool_result", "usage", "turn_done", "approval"} {
		if !kinds[k] {
			t.Errorf("no %s event", k)
		}
	}
	if code := ed.Shutdown(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
