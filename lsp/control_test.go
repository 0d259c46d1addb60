package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/lsptest"
)

// TestControlFileDialogShowsTheChange: in the editor, a write to one of
// Reasonix's control files is asked even under approval = "yolo", the
// dialog shows the content to be written, and only an approval writes it.
func TestControlFileDialogShowsTheChange(t *testing.T) {
	const hook = "#!/bin/sh\necho planted\n"
	for _, answer := range []string{"Deny", "Allow once"} {
		t.Run(answer, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"path": ".git/hooks/pre-commit", "content": hook})
			root, _ := workspace(t, "call write_file "+string(args)+"\n---\ntext done\n", "[permissions]\napproval = \"yolo\"\n")
			if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			msg := onlyDialog(t, root, answer, "add a hook")
			for _, want := range []string{
				"It is asked each time, since it changes .git/hooks/pre-commit, one of Reasonix's control files: any answer but Deny allows this call only.",
				"echo planted",
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("dialog lacks %q:\n%s", want, msg)
				}
			}
			_, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit"))
			if written := err == nil; written != (answer == "Allow once") {
				t.Errorf("answer %q: hook written = %v", answer, written)
			}
		})
	}
}

// TestRememberDialogSaysWhyOnce: a note's dialog says once that it is
// asked each time, and shows the note.
func TestRememberDialogSaysWhyOnce(t *testing.T) {
	root, _ := workspace(t, `call remember {"scope": "project", "name": "runner", "description": "How tests run", "content": "Run gotestsum."}`+"\n---\ntext done\n", "")
	msg := onlyDialog(t, root, "Deny", "remember the runner")
	want := "Reasonix wants to save a note in its memory. It is asked each time: any answer but Deny allows this call only.\n\nSave the note project/runner"
	if !strings.HasPrefix(msg, want) || strings.Count(msg, "each time") != 1 {
		t.Errorf("dialog:\n%s\nwant it to start\n%s", msg, want)
	}
}

// onlyDialog asks prompt in an editor of root that answers its one dialog
// with answer, and returns the dialog's message.
func onlyDialog(t *testing.T, root, answer, prompt string) string {
	t.Helper()
	ed := lsptest.New(t, lsptest.Options{Root: root})
	ed.Answer(answer)
	q, _ := json.Marshal(map[string]any{"prompt": prompt})
	execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{q}})
	rec := ed.Snapshot()
	if len(rec.Dialogs) != 1 {
		t.Fatalf("%d dialogs, want 1", len(rec.Dialogs))
	}
	return rec.Dialogs[0].Message
}
