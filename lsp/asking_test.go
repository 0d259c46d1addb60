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

	"github.com/reasonix/reasonix/lsp"
	"github.com/reasonix/reasonix/lsp/lsptest"
)

// turnDeadline bounds a turn that must end by itself: at once, or after
// the short answer timeout these tests give the server. A server that
// waits for an answer that never comes fails the test here instead of
// hanging it.
const turnDeadline = 30 * time.Second

// playUnasked runs one turn of script in the calc workspace with a
// client of opts, and checks that it ended in time without error and
// without changing calc.go, and that the model was asked every step
// (its expectations check what the turn's refusals told it). It returns
// what the client recorded.
func playUnasked(t *testing.T, script string, opts lsptest.Options) lsptest.Recorded {
	t.Helper()
	root, srv := workspace(t, script, "")
	opts.Root = root
	ed := lsptest.New(t, opts)
	res := askTurn(t, ed, map[string]any{"prompt": "Fix TestAdd"})
	if res["error"] != nil {
		t.Fatalf("the turn failed: %v", res["error"])
	}
	if n := srv.Remaining(); n != 0 {
		t.Fatalf("%d scripted steps unused", n)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(disk) != calcGo {
		t.Fatalf("calc.go changed:\n%s", disk)
	}
	return ed.Snapshot()
}

// askTurn runs one reasonix.ask turn with args, which answers when the
// turn ends, and fails the test unless it ends within turnDeadline.
func askTurn(t *testing.T, ed *lsptest.Editor, args map[string]any) map[string]any {
	t.Helper()
	arg, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), turnDeadline)
	defer cancel()
	res, err := ed.Server().ExecuteCommand(ctx, &protocol.ExecuteCommandParams{
		Command: "reasonix.ask", Arguments: []protocol.LSPAny{arg},
	})
	if ctx.Err() != nil {
		t.Fatalf("the turn did not end within %v: it waits for an answer that never comes", turnDeadline)
	}
	if err != nil {
		t.Fatalf("reasonix.ask: %v", err)
	}
	var out map[string]any
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatalf("reasonix.ask result %s: %v", res, err)
	}
	return out
}

// messages joins the window/showMessage texts of type typ.
func messages(r lsptest.Recorded, typ protocol.MessageType) string {
	var out []string
	for _, m := range r.Messages {
		if m.Type == typ {
			out = append(out, m.Message)
		}
	}
	return strings.Join(out, "\n")
}

// aleLike is a client that declared no way to ask, as ALE 3.3 does: no
// window capabilities, applyEdit false; and it leaves
// window/showMessageRequest unanswered.
var aleLike = lsptest.Options{NoApplyEdit: true, NoWindow: true, Unanswering: true}

// TestClientThatCannotAskIsNeverAsked: a client that declared no way to
// ask gets no question. What needed asking is refused at once: a call,
// with the allow rule that would let it run named to the model and to
// the user; the agent's question, with no answer; a plan, unapproved. The
// turn then ends.
func TestClientThatCannotAskIsNeverAsked(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		// notice is in the warning the user is shown, "" for none.
		notice string
	}{
		{
			name: "edit",
			script: `expect user TestAdd
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
expect tool Permission denied: it needs approval, and no one is available to approve calls in this run (the allow rule "Edit(calc.go)" under [permissions] would let it run)
text I may not edit calc.go here.
`,
			notice: `Reasonix refused edit_file calc.go: it needs approval, and this editor cannot ask you (it declares neither window.showMessage nor workspace.applyEdit). To allow it, add to reasonix.toml: [permissions] allow = ["Edit(calc.go)"].`,
		},
		{
			name: "command",
			script: `expect user TestAdd
call bash {"command": "go test ./..."}
---
expect tool the allow rule "Bash(go test:*)" under [permissions] would let it run
text I may not run the tests here.
`,
			notice: `allow = ["Bash(go test:*)"]`,
		},
		{
			name: "question",
			script: `expect user TestAdd
call ask {"question": "Fix Add or the test?", "options": ["Add", "the test"]}
---
expect tool The question could not be shown (this editor declared no way to ask the user
text I fixed nothing: no one could say which.
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := playUnasked(t, tc.script, aleLike)
			if len(rec.Dialogs) != 0 {
				t.Fatalf("a client that cannot ask was asked %d questions: %+v", len(rec.Dialogs), rec.Dialogs)
			}
			warnings := messages(rec, protocol.MessageTypeWarning)
			if tc.notice != "" && !strings.Contains(warnings, tc.notice) {
				t.Errorf("the user was not told what to allow; warnings:\n%s", warnings)
			}
		})
	}
}

// TestUnansweredQuestionEndsTheTurn: a client that can ask but never
// answers holds a question no longer than the answer timeout. The
// permission counts as denied, the user is told, and the rest of the
// turn asks nothing more: its next call is refused at once. As a dialog
// and as reasonix/approve.
func TestUnansweredQuestionEndsTheTurn(t *testing.T) {
	const script = `expect user TestAdd
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
expect tool Permission denied: approval failed: the user gave no answer in time (50ms)
call bash {"command": "go test ./..."}
---
expect tool Permission denied: approval failed: an earlier question of this turn had no answer in time
text No one answered; I changed nothing.
`
	for _, tc := range []struct {
		name string
		opts lsptest.Options
	}{
		{"dialog", lsptest.Options{ShowMessage: true, Unanswering: true}},
		{"reasonix/approve", lsptest.Options{Approvals: true, Unanswering: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Server = lsp.Options{AnswerTimeout: 50 * time.Millisecond}
			rec := playUnasked(t, script, opts)
			if len(rec.Dialogs) != 1 {
				t.Fatalf("%d questions, want 1: the edit's, and none after it went unanswered", len(rec.Dialogs))
			}
			const notice = "Reasonix: The question whether to allow edit_file calc.go had no answer within 50ms, so it counts as Deny."
			if warnings := messages(rec, protocol.MessageTypeWarning); !strings.Contains(warnings, notice) {
				t.Errorf("the user was not told; warnings:\n%s", warnings)
			}
		})
	}
}

// TestClientThatCannotAskKeepsWhatNeedsAYes: what only a person's yes
// may do, a client that cannot ask does not get: /clear keeps the
// conversation, saying why, and a workspace's configuration that needs
// trust stays off, with the way to trust it from a terminal.
func TestClientThatCannotAskKeepsWhatNeedsAYes(t *testing.T) {
	root, _ := workspace(t, "text unused\n", "")
	appendLines(t, projectFile(t, root), "\n[permissions]\nallow = [\"Bash(go test:*)\"]\n")
	opts := aleLike
	opts.Root = root
	ed := lsptest.New(t, opts)

	res := askTurn(t, ed, map[string]any{"prompt": "/clear"})
	action, _ := res["action"].(map[string]any)
	if action["kind"] != "clear" || action["cancelled"] != true ||
		!strings.HasPrefix(fmt.Sprint(res["text"]), "The conversation was kept: this editor cannot ask you to confirm /clear.") {
		t.Fatalf("/clear: %v", res)
	}
	file := filepath.Join(os.Getenv("REASONIX_HOME"), "sessions", fmt.Sprint(res["sessionId"])+".jsonl")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the kept session's file: %v", err)
	}

	const how = "This editor cannot ask you, so it stays off: to trust it, run `reasonix trust "
	ed.Await("how to trust the workspace", turnDeadline, func(r *lsptest.Recorded) bool {
		return strings.Contains(messages(*r, protocol.MessageTypeWarning), how)
	})
	if rec := ed.Snapshot(); len(rec.Dialogs) != 0 {
		t.Fatalf("a client that cannot ask was asked: %+v", rec.Dialogs)
	}
}
