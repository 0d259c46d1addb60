package lsp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"

	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/graph"
	"github.com/reasonix/reasonix/lsp/lsptest"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
	"github.com/reasonix/reasonix/tools/pytest/pytesttest"
)

// TestScenarios plays the txtar scenarios in testdata/scenarios through a
// fake editor connected to the real server, with a scripted model.
//
// A scenario holds the workspace (files/...), the model's script (model),
// extra project config (config), programs it needs (needs: language
// servers; skipped without them), the editor's capabilities (editor: words
// among events, saveDocuments, noResourceOps, noProgress, noShowDocument,
// utf8, lateDidChange, openToEdit, loseProgressCreate, approvals,
// questions, propose) and the steps, one per line:
//
//	open PATH                         open a file in a buffer
//	type PATH "OLD" "NEW"             edit a buffer without saving
//	save PATH                         save a buffer
//	answer TITLE[|TITLE…]             answer dialogs with the first offered title ("" = dismiss)
//	reply TEXT                        answer dialogs with TEXT, offered or not (a typed answer)
//	reject REASON                     refuse workspace edits with REASON
//	settings JSON                     send workspace/didChangeConfiguration (JSON without spaces)
//	codeaction PATH L:C-L:C [MESSAGE] request actions (with a diagnostic when MESSAGE is given)
//	run TITLE-PREFIX                  execute a returned action's command
//	ask "PROMPT" [PATH [L:C-L:C]]     run reasonix.ask and keep its result
//	plan "PROMPT" ...                 the same in plan mode
//	again "PROMPT" ...                the same in the last result's session
//	wait progress end | wait edits N  wait for a condition
//	try TITLE-PREFIX                  execute an action's command, which must fail
//	expect WHAT ...                   assert: buffer/disk PATH contains|lacks TEXT,
//	                                  buffer PATH absent (the editor holds none),
//	                                  dialogs N, approvals N, questions N,
//	                                  dialog|log|message|progress contains TEXT,
//	                                  result FIELD contains TEXT, actions N, edits N,
//	                                  action TITLE, error contains TEXT (of try),
//	                                  diagnostics PATH N,
//	                                  diagnostic PATH contains "L:C-L:C MESSAGE",
//	                                  file PATH exists|missing (on disk),
//	                                  review N (files reasonix/review lists)
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/scenarios/*.txtar")
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runScenario(t, file)
		})
	}
}

type scenario struct {
	t       *testing.T
	ed      *lsptest.Editor
	srv     *scripted.Server
	root    string
	actions []protocol.CommandOrCodeAction
	result  map[string]any
	// failed is the error of the last "try" step.
	failed string
	// session is the session of the last ask.
	session any
}

func runScenario(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	var model, config, editor, steps string
	files := map[string]string{}
	for _, f := range ar.Files {
		switch {
		case f.Name == "model":
			model = string(f.Data)
		case f.Name == "config":
			config = string(f.Data)
		case f.Name == "editor":
			editor = string(f.Data)
		case f.Name == "steps":
			steps = string(f.Data)
		case f.Name == "needs":
			for _, prog := range strings.Fields(string(f.Data)) {
				if strings.HasPrefix(prog, "mcp-server-") {
					// Plugins name the npm MCP servers; the server runs in
					// this process, so they go on its PATH.
					mcptest.Require(t, prog)
					t.Setenv("PATH", mcptest.BinDir()+string(os.PathListSeparator)+os.Getenv("PATH"))
					continue
				}
				if prog == "pytest" {
					pytesttest.Require(t)
					continue
				}
				if bin, _ := filepath.Abs("../graph/testdata/servers/node_modules/.bin"); strings.HasSuffix(prog, "-langserver") {
					// The npm language servers the graph's tests install
					// beside them; on PATH for the graph of this process.
					if _, err := os.Stat(filepath.Join(bin, prog)); err == nil {
						t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
					}
				}
				requireProgram(t, prog)
			}
		case strings.HasPrefix(f.Name, "files/"):
			files[strings.TrimPrefix(f.Name, "files/")] = string(f.Data)
		default:
			t.Fatalf("unknown section %q", f.Name)
		}
	}
	if strings.Contains(config, "{{EVERYTHING_HTTP}}") {
		base, _ := mcptest.ServeEverything(t, "streamableHttp")
		config = strings.ReplaceAll(config, "{{EVERYTHING_HTTP}}", base+"/mcp")
	}
	root, srv := workspace(t, model, config)
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := lsptest.Options{Root: root}
	for _, w := range strings.Fields(editor) {
		switch w {
		case "events":
			opts.Events = true
		case "saveDocuments":
			opts.SaveDocuments = true
		case "noResourceOps":
			opts.NoResourceOps = true
		case "noProgress":
			opts.NoProgress = true
		case "noShowDocument":
			opts.NoShowDocument = true
		case "utf8":
			opts.UTF8 = true
		case "lateDidChange":
			opts.LateDidChange = true
		case "openToEdit":
			opts.OpenToEdit = true
		case "loseProgressCreate":
			opts.LoseProgressCreate = true
		case "approvals":
			opts.Approvals = true
		case "questions":
			opts.Questions = true
		case "propose":
			// Above the project file's review = "apply".
			opts.Settings = map[string]any{"review": "propose"}
		default:
			t.Fatalf("unknown editor option %q", w)
		}
	}
	sc := &scenario{t: t, ed: lsptest.New(t, opts), srv: srv, root: root}
	for i, line := range strings.Split(steps, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		args, err := splitArgs(line)
		if err != nil {
			t.Fatalf("steps line %d: %v", i+1, err)
		}
		sc.step(i+1, args)
	}
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were never requested", n)
	}
}

// splitArgs splits a step into words, honouring "quoted strings".
func splitArgs(line string) ([]string, error) {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			end := 1
			for end < len(line) && (line[end] != '"' || line[end-1] == '\\') {
				end++
			}
			if end == len(line) {
				return nil, fmt.Errorf("unterminated string")
			}
			s, err := strconv.Unquote(line[:end+1])
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			line = line[end+1:]
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		out = append(out, word)
		line = rest
	}
	return out, nil
}

// cloneActions copies what the steps use of code actions: their strings
// may share the connection's read buffer, which is reused.
func cloneActions(acts []protocol.CommandOrCodeAction) []protocol.CommandOrCodeAction {
	out := make([]protocol.CommandOrCodeAction, 0, len(acts))
	for _, act := range acts {
		ca, ok := act.(*protocol.CodeAction)
		if !ok {
			out = append(out, act)
			continue
		}
		c := &protocol.CodeAction{Title: strings.Clone(ca.Title), Command: protocol.Command{
			Title: strings.Clone(ca.Command.Title), Command: strings.Clone(ca.Command.Command)}}
		for _, a := range ca.Command.Arguments {
			c.Command.Arguments = append(c.Command.Arguments, protocol.LSPAny(bytes.Clone(a)))
		}
		out = append(out, c)
	}
	return out
}

// requireProgram skips the test when a program the project graph starts
// (a language server) is not installed, or fails it when
// REASONIX_REQUIRE_PEERS=1.
func requireProgram(t *testing.T, prog string) {
	t.Helper()
	if _, err := graph.LookPath(prog); err != nil {
		if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
			t.Fatalf("%v; REASONIX_REQUIRE_PEERS=1 requires it (make peers installs it)", err)
		}
		t.Skipf("%v (make peers installs it)", err)
	}
}

// actionTitles lists the titles of code actions.
func actionTitles(acts []protocol.CommandOrCodeAction) []string {
	var out []string
	for _, act := range acts {
		if ca, ok := act.(*protocol.CodeAction); ok {
			out = append(out, ca.Title)
		}
	}
	return out
}

// diagnosticText is a diagnostic's message.
func diagnosticText(d protocol.Diagnostic) string {
	if m, ok := d.Message.(protocol.String); ok {
		return string(m)
	}
	return ""
}

func parseRange(t *testing.T, s string) protocol.Range {
	var a, b, c, d uint32
	if _, err := fmt.Sscanf(s, "%d:%d-%d:%d", &a, &b, &c, &d); err != nil {
		t.Fatalf("range %q: %v", s, err)
	}
	return protocol.Range{Start: protocol.Position{Line: a - 1, Character: b - 1}, End: protocol.Position{Line: c - 1, Character: d - 1}}
}

func (sc *scenario) step(n int, a []string) {
	t := sc.t
	t.Helper()
	rest := strings.Join(a[1:], " ")
	switch a[0] {
	case "open":
		sc.ed.OpenFile(a[1])
	case "type":
		sc.ed.Type(a[1], a[2], a[3])
	case "save":
		sc.ed.Save(a[1])
	case "answer":
		// "A|B" answers each dialog with the first of A, B it offers.
		choices := strings.Split(rest, "|")
		sc.ed.AnswerWith(func(p *protocol.ShowMessageRequestParams) string {
			for _, c := range choices {
				for _, a := range p.Actions {
					if a.Title == strings.TrimSpace(c) {
						return a.Title
					}
				}
			}
			return ""
		})
	case "reply":
		// Answers every dialog with the text as typed, offered or not.
		sc.ed.AnswerWith(func(*protocol.ShowMessageRequestParams) string { return rest })
	case "reject":
		sc.ed.RejectEdits(rest)
	case "settings":
		if err := sc.ed.Server().DidChangeConfiguration(ctx(t), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(rest)}); err != nil {
			t.Fatalf("step %d: %v", n, err)
		}
	case "codeaction":
		params := &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: sc.ed.URI(a[1])}, Range: parseRange(t, a[2])}
		if len(a) > 3 {
			params.Context.Diagnostics = []protocol.Diagnostic{{
				Range: params.Range, Severity: protocol.DiagnosticSeverityError, Message: protocol.String(strings.Join(a[3:], " ")),
			}}
		}
		acts, err := sc.ed.Server().CodeAction(ctx(t), params)
		if err != nil {
			t.Fatalf("step %d: %v", n, err)
		}
		sc.actions = cloneActions(acts)
	case "run":
		for _, act := range sc.actions {
			if ca, ok := act.(*protocol.CodeAction); ok && strings.HasPrefix(ca.Title, rest) {
				sc.result = execute(t, sc.ed, ca.Command)
				return
			}
		}
		t.Fatalf("step %d: no action titled %q in %s", n, rest, actionTitles(sc.actions))
	case "try":
		for _, act := range sc.actions {
			if ca, ok := act.(*protocol.CodeAction); ok && strings.HasPrefix(ca.Title, rest) {
				_, err := sc.ed.Server().ExecuteCommand(ctx(t), &protocol.ExecuteCommandParams{Command: ca.Command.Command, Arguments: ca.Command.Arguments})
				if err == nil {
					t.Fatalf("step %d: %q succeeded", n, rest)
				}
				sc.failed = err.Error()
				return
			}
		}
		t.Fatalf("step %d: no action titled %q", n, rest)
	case "ask", "plan", "again":
		args := map[string]any{"prompt": a[1], "plan": a[0] == "plan"}
		if a[0] == "again" {
			args["sessionId"] = sc.session
		}
		if len(a) > 2 {
			args["uri"] = string(sc.ed.URI(a[2]))
		}
		if len(a) > 3 {
			args["range"] = parseRange(t, a[3])
		}
		b, _ := json.Marshal(args)
		sc.result = execute(t, sc.ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
		sc.session = sc.result["sessionId"]
	case "wait":
		switch a[1] {
		case "progress":
			sc.ed.Await("the turn's progress to end", 30*time.Second, progressEnded)
		case "edits":
			want, _ := strconv.Atoi(a[2])
			sc.ed.Await(fmt.Sprintf("%d edits", want), 30*time.Second, func(r *lsptest.Recorded) bool { return len(r.Edits) >= want })
		default:
			t.Fatalf("step %d: wait for what?", n)
		}
	case "expect":
		sc.expect(n, a[1:])
	default:
		t.Fatalf("step %d: unknown step %q", n, a[0])
	}
}

func (sc *scenario) expect(n int, a []string) {
	t := sc.t
	t.Helper()
	rec := sc.ed.Snapshot()
	count := func(what string, got int) {
		want, _ := strconv.Atoi(a[1])
		if got != want {
			t.Fatalf("step %d: %d %s, want %d", n, got, what, want)
		}
	}
	has := func(what string, texts []string, want string) {
		for _, s := range texts {
			if strings.Contains(s, want) {
				return
			}
		}
		t.Fatalf("step %d: no %s contains %q; got %q", n, what, want, texts)
	}
	switch a[0] {
	case "buffer", "disk":
		var text string
		if a[0] == "buffer" && a[2] == "absent" {
			if text, held := sc.ed.Buffer(a[1]); held {
				t.Fatalf("step %d: the editor holds a buffer of %s (dirty: %v):\n%s", n, a[1], sc.ed.Dirty(a[1]), text)
			}
			return
		}
		if a[0] == "buffer" {
			text, _ = sc.ed.Buffer(a[1])
		} else {
			b, _ := os.ReadFile(filepath.Join(sc.root, filepath.FromSlash(a[1])))
			text = string(b)
		}
		want := strings.Join(a[3:], " ")
		if (a[2] == "contains") != strings.Contains(text, want) {
			t.Fatalf("step %d: %s %s should %s %q:\n%s", n, a[0], a[1], a[2], want, text)
		}
	case "file":
		_, err := os.Stat(filepath.Join(sc.root, filepath.FromSlash(a[1])))
		if exists := err == nil; exists != (a[2] == "exists") {
			t.Fatalf("step %d: file %s should be %s (stat: %v)", n, a[1], a[2], err)
		}
	case "review":
		var list struct {
			Files []json.RawMessage `json:"files"`
		}
		if _, err := sc.ed.Conn().Call(ctx(t), "reasonix/review", map[string]any{}, &list); err != nil {
			t.Fatalf("step %d: reasonix/review: %v", n, err)
		}
		count(fmt.Sprintf("review files %s", list.Files), len(list.Files))
	case "dialogs":
		var msgs []string
		for _, d := range rec.Dialogs {
			msgs = append(msgs, d.Message)
		}
		count(fmt.Sprintf("dialogs %q", msgs), len(rec.Dialogs))
	case "approvals":
		count("approvals", len(rec.Approvals))
	case "questions":
		count("questions", len(rec.Questions))
	case "edits":
		count("edits", len(rec.Edits))
	case "actions":
		count("actions", len(sc.actions))
	case "action":
		var titles []string
		for _, act := range sc.actions {
			if ca, ok := act.(*protocol.CodeAction); ok {
				titles = append(titles, ca.Title)
			}
		}
		has("action title", titles, strings.Join(a[1:], " "))
	case "error":
		has("error", []string{sc.failed}, strings.Join(a[2:], " "))
	case "diagnostics":
		// expect diagnostics PATH N: the diagnostics follow the buffer's
		// changes, which the server reads in its own time, as with
		// "diagnostic".
		want, _ := strconv.Atoi(a[2])
		path := sc.ed.Path(a[1])
		sc.ed.Await(fmt.Sprintf("step %d: %d diagnostics for %s", n, want, a[1]), 10*time.Second, func(r *lsptest.Recorded) bool {
			return len(r.Diagnostics[path]) == want
		})
	case "diagnostic":
		// expect diagnostic PATH contains TEXT: the diagnostics follow the
		// buffer's changes, which the server reads in its own time.
		want := strings.Join(a[3:], " ")
		sc.ed.Await(fmt.Sprintf("a diagnostic of %s containing %q", a[1], want), 10*time.Second, func(r *lsptest.Recorded) bool {
			for _, d := range r.Diagnostics[sc.ed.Path(a[1])] {
				got := fmt.Sprintf("%d:%d-%d:%d %s", d.Range.Start.Line+1, d.Range.Start.Character+1,
					d.Range.End.Line+1, d.Range.End.Character+1, diagnosticText(d))
				if strings.Contains(got, want) {
					return true
				}
			}
			return false
		})
	case "dialog":
		var msgs []string
		for _, d := range rec.Dialogs {
			msgs = append(msgs, d.Message)
		}
		has("dialog", msgs, strings.Join(a[2:], " "))
	case "log":
		has("log line", rec.Logs, strings.Join(a[2:], " "))
	case "shown":
		// expect shown contains TEXT: a document the editor was asked to
		// open (window/showDocument) holds TEXT.
		var texts []string
		for _, u := range rec.Shown {
			b, err := os.ReadFile(uri.URI(u).FsPath())
			if err != nil {
				t.Fatalf("step %d: the shown document %s: %v", n, u, err)
			}
			texts = append(texts, string(b))
		}
		has("shown document", texts, strings.Join(a[2:], " "))
	case "progress":
		var msgs []string
		for _, p := range rec.Progress {
			msgs = append(msgs, p.Message)
		}
		has("progress message", msgs, strings.Join(a[2:], " "))
	case "message":
		var msgs []string
		for _, m := range rec.Messages {
			msgs = append(msgs, m.Message)
		}
		has("message", msgs, strings.Join(a[2:], " "))
	case "result":
		got := fmt.Sprint(sc.result[a[1]])
		if want := strings.Join(a[3:], " "); !strings.Contains(got, want) {
			t.Fatalf("step %d: result %s = %q, want it to contain %q (result: %v)", n, a[1], got, want, sc.result)
		}
	default:
		t.Fatalf("step %d: unknown expectation %q", n, a[0])
	}
}
