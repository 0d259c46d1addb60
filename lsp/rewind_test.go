//go:build unix

package lsp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/lsp/lsptest"
)

// rewindWorkspace writes the files of a client archive and a project
// config pointing at a scripted model playing its script, trusted.
func rewindWorkspace(t *testing.T, archive string) (root string, srv *scripted.Server, want map[string]string) {
	t.Helper()
	script, files, want := loadArchive(t, archive)
	t.Setenv("REASONIX_HOME", t.TempDir())
	t.Setenv("DEEPSEEK_API_KEY", "")
	srv = scripted.NewServer(script, scripted.Options{})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	root, err = filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files["reasonix.toml"] = fmt.Sprintf("default_model = \"scripted\"\nreview = \"apply\"\n[[providers]]\nname = \"scripted\"\nbase_url = %q\nmodel = \"deepseek-flash\"\noptions = { retry_base_ms = 10 }\n", url)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	agenttest.Trust(t, root)
	return root, srv, want
}

// command runs a workspace/executeCommand command with one argument and
// decodes its result into out.
func command(t *testing.T, ed *lsptest.Editor, name string, arg any, out any) error {
	t.Helper()
	b, _ := json.Marshal(arg)
	res, err := ed.Server().ExecuteCommand(ctx(t), &protocol.ExecuteCommandParams{Command: name, Arguments: []protocol.LSPAny{b}})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("%s answered %s: %v", name, res, err)
	}
	return nil
}

// rewindPlan is what reasonix.rewind answers, as a client reads it.
type rewindPlan struct {
	SessionID string `json:"sessionId"`
	Turn      int    `json:"turn"`
	Turns     []int  `json:"turns"`
	Files     []struct {
		Path   string  `json:"path"`
		Action string  `json:"action"`
		Before *string `json:"before"`
		Saved  string  `json:"saved"`
	} `json:"files"`
	Messages int  `json:"messages"`
	Done     bool `json:"done"`
}

func (p rewindPlan) actions(root string) map[string]string {
	out := map[string]string{}
	for _, f := range p.Files {
		rel, _ := filepath.Rel(root, f.Path)
		out[filepath.ToSlash(rel)] = f.Action
	}
	return out
}

// TestRewind plays rewind.txtar through the fake editor: two turns change
// the open calc.go (a workspace edit), and with shell commands user.txt,
// made.txt (created), gone.txt (deleted) and shared.txt; the user then
// writes user.txt. reasonix.checkpoints lists both turns, a preview
// changes nothing, and reasonix.rewind to turn 1 changes the buffer with
// one versioned workspace edit, the closed files on disk, leaves user.txt
// (a conflict), shows a summary and takes both turns out of what the
// model is sent next. A plain editor has the server write the closed
// files; one with reasonix/saveDocuments and resource operations (as the
// VS Code extension) takes them in the same edit and is asked to save
// them.
func TestRewind(t *testing.T) {
	for _, c := range []struct {
		name string
		opts lsptest.Options
	}{
		{"plain", lsptest.Options{NoResourceOps: true}},
		{"saveDocuments", lsptest.Options{SaveDocuments: true}},
		// Neovim: resource operations, text edits without documentChanges.
		{"noDocumentChanges", lsptest.Options{SaveDocuments: true, NoDocumentChanges: true}},
	} {
		t.Run(c.name, func(t *testing.T) { playRewindInProcess(t, c.opts) })
	}
}

func playRewindInProcess(t *testing.T, opts lsptest.Options) {
	root, srv, want := rewindWorkspace(t, "rewind.txtar")
	opts.Root = root
	ed := lsptest.New(t, opts)
	ed.OpenFile("calc.go")
	ed.Answer("Allow once")
	original, _ := ed.Buffer("calc.go")

	var first struct {
		SessionID string `json:"sessionId"`
		Stop      string `json:"stop"`
	}
	if err := command(t, ed, "reasonix.ask", map[string]any{"prompt": "First turn: fix Add, and user.txt."}, &first); err != nil || first.Stop != "done" {
		t.Fatalf("first turn: %+v, %v", first, err)
	}
	session := first.SessionID
	if text, _ := ed.Buffer("calc.go"); !strings.Contains(text, "return a + b") {
		t.Fatalf("calc.go after the first turn:\n%s", text)
	}
	var second map[string]any
	if err := command(t, ed, "reasonix.ask", map[string]any{"prompt": "Second turn: the other files.", "sessionId": session}, &second); err != nil || second["stop"] != "done" {
		t.Fatalf("second turn: %v, %v", second, err)
	}
	if err := os.WriteFile(filepath.Join(root, "user.txt"), []byte("gamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	var listed struct {
		SessionID string `json:"sessionId"`
		Turns     []struct {
			Turn   int    `json:"turn"`
			Prompt string `json:"prompt"`
			Files  []struct {
				Path string `json:"path"`
			} `json:"files"`
		} `json:"turns"`
	}
	if err := command(t, ed, "reasonix.checkpoints", map[string]any{"sessionId": session}, &listed); err != nil {
		t.Fatal(err)
	}
	if listed.SessionID != session || len(listed.Turns) != 2 || listed.Turns[0].Turn != 1 || listed.Turns[1].Turn != 2 ||
		!strings.HasPrefix(listed.Turns[0].Prompt, "First turn") || len(listed.Turns[0].Files) != 2 || len(listed.Turns[1].Files) != 3 {
		t.Fatalf("reasonix.checkpoints answered %+v", listed)
	}

	wantActions := map[string]string{"calc.go": "restore", "user.txt": "conflict", "made.txt": "remove", "gone.txt": "recreate", "shared.txt": "restore"}
	var preview rewindPlan
	if err := command(t, ed, "reasonix.rewind", map[string]any{"sessionId": session, "turn": 1, "preview": true}, &preview); err != nil {
		t.Fatal(err)
	}
	if preview.Done || fmt.Sprint(preview.actions(root)) != fmt.Sprint(wantActions) {
		t.Errorf("preview: done %v, actions %v, want %v", preview.Done, preview.actions(root), wantActions)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); err != nil {
		t.Errorf("the preview removed made.txt: %v", err)
	}

	edits := len(ed.Snapshot().Edits)
	var plan rewindPlan
	if err := command(t, ed, "reasonix.rewind", map[string]any{"sessionId": session, "turn": 1}, &plan); err != nil {
		t.Fatal(err)
	}
	if !plan.Done || plan.Turn != 1 || fmt.Sprint(plan.Turns) != "[1 2]" || plan.Messages == 0 ||
		fmt.Sprint(plan.actions(root)) != fmt.Sprint(wantActions) {
		t.Errorf("reasonix.rewind answered %+v", plan)
	}
	for _, f := range plan.Files {
		if f.Action == "conflict" && f.Saved != "" {
			if saved, err := os.ReadFile(f.Saved); err != nil || string(saved) != "alpha\n" {
				t.Errorf("the conflict's earlier text in %s: %q, %v", f.Saved, saved, err)
			}
		}
	}

	rec := ed.Snapshot()
	if got := len(rec.Edits) - edits; got != 1 {
		t.Fatalf("%d workspace edits for the rewind, want 1", got)
	}
	var docEdits []string
	for _, dc := range rec.Edits[edits].Edit.DocumentChanges {
		if te, ok := dc.(*protocol.TextDocumentEdit); ok {
			docEdits = append(docEdits, string(te.TextDocument.URI))
			if string(te.TextDocument.URI) == string(ed.URI("calc.go")) && te.TextDocument.Version == nil {
				t.Errorf("the rewind's edit of the open calc.go has no version")
			}
		}
	}
	if !slices.Contains(docEdits, string(ed.URI("calc.go"))) || (!opts.SaveDocuments && len(docEdits) != 1) {
		t.Errorf("the rewind's edit changes %v, want calc.go (and with saveDocuments the closed files too)", docEdits)
	}
	if text, _ := ed.Buffer("calc.go"); text != original {
		t.Errorf("calc.go's buffer after the rewind:\n%s\nwant:\n%s", text, original)
	}
	for name, body := range want {
		if name == "calc.go" {
			continue // in the buffer; the disk never had the edit
		}
		if got, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(got) != body {
			t.Errorf("%s after the rewind: %q, %v; want %q", name, got, err, body)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("made.txt after the rewind: %v", err)
	}
	summary := ""
	for _, m := range rec.Messages {
		if strings.HasPrefix(m.Message, "Reasonix: Rewound to before turn 1") {
			summary = m.Message
		}
	}
	if !strings.Contains(summary, "1 conflict") || !strings.Contains(summary, "(user.txt: ") ||
		!strings.Contains(summary, "1 file removed") || !strings.Contains(summary, "1 file recreated") {
		t.Errorf("the summary: %q", summary)
	}

	var left struct {
		Turns []any `json:"turns"`
	}
	if err := command(t, ed, "reasonix.checkpoints", map[string]any{"sessionId": session}, &left); err != nil || len(left.Turns) != 0 {
		t.Errorf("turns after the rewind: %v, %v", left.Turns, err)
	}
	var third struct {
		Turn int    `json:"turn"`
		Text string `json:"text"`
	}
	if err := command(t, ed, "reasonix.ask", map[string]any{"prompt": "Third turn: start again.", "sessionId": session}, &third); err != nil ||
		third.Text != "Third turn done." || third.Turn != 3 {
		t.Fatalf("third turn: %+v, %v", third, err)
	}
	checkRewoundRequest(t, srv.Requests(), "Third turn", "First turn", "Second turn")
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were never asked for", n)
	}
}

// TestRewindBadArguments refuses what reasonix.rewind and
// reasonix.checkpoints cannot do with InvalidParams, naming what is
// wrong, and never rewinds anything.
func TestRewindBadArguments(t *testing.T) {
	root, _ := workspace(t, "expect user Only turn\ntext Done.\n", "")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	var turn struct {
		SessionID string `json:"sessionId"`
	}
	if err := command(t, ed, "reasonix.ask", map[string]any{"prompt": "Only turn"}, &turn); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		command string
		arg     string
		want    string
	}{
		{"no argument", "reasonix.rewind", "", "needs an argument"},
		{"turn as a string", "reasonix.rewind", `{"sessionId": %q, "turn": "1"}`, "bad command argument"},
		{"fractional turn", "reasonix.rewind", `{"sessionId": %q, "turn": 1.5}`, "bad command argument"},
		{"no turn", "reasonix.rewind", `{"sessionId": %q}`, "needs a turn"},
		{"turn out of range", "reasonix.rewind", `{"sessionId": %q, "turn": 2}`, "has no turn 2 to rewind to (its turns are 1)"},
		{"turn 0", "reasonix.rewind", `{"sessionId": %q, "turn": 0, "preview": true}`, "has no turn 0"},
		{"no session", "reasonix.rewind", `{"turn": 1}`, "needs a sessionId"},
		{"unknown session", "reasonix.rewind", `{"sessionId": "20990101-000000-ffffff", "turn": 1}`, `no session "20990101-000000-ffffff"`},
		{"session as a number", "reasonix.checkpoints", `{"sessionId": 7}`, "bad command argument"},
		{"unknown session listed", "reasonix.checkpoints", `{"sessionId": "nope"}`, `no session "nope"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			params := &protocol.ExecuteCommandParams{Command: c.command}
			if c.arg != "" {
				arg := c.arg
				if strings.Contains(arg, "%q") {
					arg = fmt.Sprintf(arg, turn.SessionID)
				}
				params.Arguments = []protocol.LSPAny{protocol.LSPAny(arg)}
			}
			_, err := ed.Server().ExecuteCommand(ctx(t), params)
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams || !strings.Contains(rpcErr.Message, c.want) {
				t.Errorf("got %v, want InvalidParams containing %q", err, c.want)
			}
		})
	}
	var listed struct {
		Turns []any `json:"turns"`
	}
	if err := command(t, ed, "reasonix.checkpoints", map[string]any{"sessionId": turn.SessionID}, &listed); err != nil || len(listed.Turns) != 1 {
		t.Errorf("after the refusals: %v, %v", listed.Turns, err)
	}
}

// TestRewindBusy refuses to rewind a session while it runs a turn (here
// one waiting on its permission dialog), and rewinds it once the turn is
// over.
func TestRewindBusy(t *testing.T) {
	root, _ := workspace(t, `match First
text One.
---
match Second
call write_file {"path": "x.txt", "content": "x"}
---
match Second
expect tool denied
text Not written.
`, "")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	asked, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ed.AnswerWith(func(*protocol.ShowMessageRequestParams) string {
		once.Do(func() { close(asked) })
		<-release
		return "Deny"
	})
	var first struct {
		SessionID string `json:"sessionId"`
	}
	if err := command(t, ed, "reasonix.ask", map[string]any{"prompt": "First"}, &first); err != nil {
		t.Fatal(err)
	}
	var started map[string]any
	if err := command(t, ed, "reasonix.start", map[string]any{"prompt": "Second", "sessionId": first.SessionID}, &started); err != nil {
		t.Fatal(err)
	}
	<-asked
	var plan rewindPlan
	err := command(t, ed, "reasonix.rewind", map[string]any{"sessionId": first.SessionID, "turn": 1}, &plan)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidRequest || !strings.Contains(rpcErr.Message, "running a turn") {
		t.Errorf("rewinding a busy session: %v", err)
	}
	close(release)
	ed.Await("the second turn's progress to end", 30*time.Second, func(r *lsptest.Recorded) bool {
		ends := 0
		for _, p := range r.Progress {
			if p.Kind == "end" {
				ends++
			}
		}
		return ends == 2
	})
	// The turn is over once its progress ends; the session may take the
	// moments it needs to close it, and a rewind waits for those.
	if err := command(t, ed, "reasonix.rewind", map[string]any{"sessionId": first.SessionID, "turn": 1}, &plan); err != nil || !plan.Done {
		t.Errorf("rewinding after the turn: %+v, %v", plan, err)
	}
}

// TestRewindDropsProposals rewinds a session in propose mode whose turn
// proposed an edit of the open calc.go and whose command changed
// notes.txt (an applied change under review): the proposal is dropped
// with its diagnostics, the buffer is as it was, and the command's change
// is undone on disk, at once rather than proposed; as reasonix.rewind
// and as a prompt /rewind 1 through reasonix.ask.
func TestRewindDropsProposals(t *testing.T) {
	t.Run("command", func(t *testing.T) { rewindProposals(t, false) })
	t.Run("prompt", func(t *testing.T) { rewindProposals(t, true) })
}

func rewindProposals(t *testing.T, prompt bool) {
	root, _ := workspace(t, `call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
expect tool calc.go
call bash {"command": "echo changed > notes.txt"}
---
expect tool Exit code: 0
text Proposed.
`, "")
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("as it was\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ed := lsptest.New(t, lsptest.Options{Root: root, Settings: map[string]any{"review": "propose"}})
	ed.OpenFile("calc.go")
	ed.AnswerWith(func(p *protocol.ShowMessageRequestParams) string {
		for _, a := range p.Actions {
			if a.Title == "Run without them" || a.Title == "Allow once" {
				return a.Title
			}
		}
		return ""
	})
	var turn struct {
		SessionID string `json:"sessionId"`
		Stop      string `json:"stop"`
	}
	if err := command(t, ed, "reasonix.ask", map[string]any{"prompt": "Fix Add"}, &turn); err != nil || turn.Stop != "done" {
		t.Fatalf("the turn: %+v, %v", turn, err)
	}
	reviewCount := func() int {
		var list struct {
			Files []json.RawMessage `json:"files"`
		}
		if _, err := ed.Conn().Call(ctx(t), "reasonix/review", map[string]any{}, &list); err != nil {
			t.Fatal(err)
		}
		return len(list.Files)
	}
	if n := reviewCount(); n != 2 {
		t.Fatalf("%d files under review after the turn, want 2 (the proposal, the command's change)", n)
	}
	if prompt {
		var res struct {
			Text   string `json:"text"`
			Action struct {
				Kind   string      `json:"kind"`
				Rewind *rewindPlan `json:"rewind"`
			} `json:"action"`
		}
		if err := command(t, ed, "reasonix.ask", map[string]any{"prompt": "/rewind 1", "sessionId": turn.SessionID}, &res); err != nil ||
			res.Action.Kind != "rewind" || res.Action.Rewind == nil || !res.Action.Rewind.Done {
			t.Fatalf("/rewind 1: %+v, %v", res, err)
		}
	} else {
		var plan rewindPlan
		if err := command(t, ed, "reasonix.rewind", map[string]any{"sessionId": turn.SessionID, "turn": 1}, &plan); err != nil || !plan.Done {
			t.Fatalf("reasonix.rewind: %+v, %v", plan, err)
		}
	}
	if n := reviewCount(); n != 0 {
		t.Errorf("%d files still under review after the rewind", n)
	}
	ed.Await("no proposal diagnostics on calc.go", 10*time.Second, func(r *lsptest.Recorded) bool {
		return len(r.Diagnostics[ed.Path("calc.go")]) == 0
	})
	if text, _ := ed.Buffer("calc.go"); !strings.Contains(text, "return a - b") {
		t.Errorf("calc.go's buffer after the rewind:\n%s", text)
	}
	if got, err := os.ReadFile(filepath.Join(root, "notes.txt")); err != nil || string(got) != "as it was\n" {
		t.Errorf("notes.txt after the rewind: %q, %v", got, err)
	}
}
