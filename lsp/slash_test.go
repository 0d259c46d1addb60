package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/lsptest"
)

func writeCommands(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, ".reasonix", "commands", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func askWith(t *testing.T, ed *lsptest.Editor, args map[string]any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(args)
	return execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
}

// TestListCommands: reasonix/listCommands lists the built-ins, the
// workspace's custom commands with their source, and logs the command
// files it skipped.
func TestListCommands(t *testing.T) {
	root, _ := workspace(t, "text unused\n", "")
	writeCommands(t, root, map[string]string{
		"review.md":     "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1",
		"git/commit.md": "Commit the staged changes",
		"broken.md":     "---\ndescription: never closed\n",
	})
	ed := lsptest.New(t, lsptest.Options{Root: root})
	var got struct {
		Commands []struct {
			Name         string `json:"name"`
			Description  string `json:"description"`
			ArgumentHint string `json:"argumentHint"`
			Source       string `json:"source"`
		} `json:"commands"`
	}
	if _, err := ed.Conn().Call(ctx(t), "reasonix/listCommands", map[string]any{"uri": string(ed.URI("calc.go"))}, &got); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, c := range got.Commands {
		rows = append(rows, strings.Join([]string{c.Name, c.ArgumentHint, c.Description, c.Source}, "|"))
	}
	for _, want := range []string{
		"/help||List the slash commands and @ references|builtin",
		"/new||Start a new session; this one stays saved|builtin",
		"/clear||Discard this conversation, after asking, and start afresh|builtin",
		"/model|[REF [prompt]]|Show the model; switch the session to REF; or run one prompt on REF|builtin",
		"/git:commit||Commit the staged changes|project",
		"/review|FILE|Review a file|project",
	} {
		if !slices.Contains(rows, want) {
			t.Errorf("no %q in\n%s", want, strings.Join(rows, "\n"))
		}
	}
	ed.Await("the warning about broken.md", 5*time.Second, func(r *lsptest.Recorded) bool {
		return slices.ContainsFunc(r.Logs, func(l string) bool { return strings.Contains(l, "broken.md: skipped:") })
	})
}

// TestSlashCommandsOverLSP: a custom command gets the editor's selection
// after its expanded body; /new and /clear change the session the client
// shows, /clear only once the user confirms it.
func TestSlashCommandsOverLSP(t *testing.T) {
	root, srv := workspace(t, `expect user Review the selection for bugs.
expect user The user's selection in calc.go:
expect user func Add(a, b int) int {
text One bug: Add subtracts.
`, "")
	writeCommands(t, root, map[string]string{"review.md": "Review the selection for bugs."})
	ed := lsptest.New(t, lsptest.Options{Root: root})
	ed.OpenFile("calc.go")
	first := askWith(t, ed, map[string]any{"prompt": "/review", "uri": ed.URI("calc.go"),
		"range": map[string]any{"start": map[string]int{"line": 2, "character": 0}, "end": map[string]int{"line": 4, "character": 1}}})
	if first["text"] != "One bug: Add subtracts." || srv.Remaining() != 0 {
		t.Fatalf("/review: %v", first)
	}
	id := first["sessionId"].(string)

	res := askWith(t, ed, map[string]any{"prompt": "/new", "sessionId": id})
	action, _ := res["action"].(map[string]any)
	if action["kind"] != "new" || res["sessionId"] == id || res["sessionId"] == "" || !strings.Contains(res["text"].(string), id+" stays saved") {
		t.Fatalf("/new: %v", res)
	}

	ed.Answer("Keep it")
	res = askWith(t, ed, map[string]any{"prompt": "/clear", "sessionId": id})
	action, _ = res["action"].(map[string]any)
	if action["kind"] != "clear" || action["cancelled"] != true || res["sessionId"] != id {
		t.Fatalf("/clear, kept: %v", res)
	}
	file := filepath.Join(os.Getenv("REASONIX_HOME"), "sessions", id+".jsonl")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the kept session's file: %v", err)
	}
	ed.Answer("Clear conversation")
	res = askWith(t, ed, map[string]any{"prompt": "/clear", "sessionId": id})
	action, _ = res["action"].(map[string]any)
	if action["kind"] != "clear" || action["cancelled"] != nil || res["sessionId"] == id {
		t.Fatalf("/clear: %v", res)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the cleared session's file is still there: %v", err)
	}
	dialogs := ed.Snapshot().Dialogs
	if len(dialogs) != 2 || !strings.Contains(dialogs[0].Message, "clear this conversation?") {
		t.Errorf("dialogs %+v", dialogs)
	}

	res = askWith(t, ed, map[string]any{"prompt": "/model scripted", "sessionId": res["sessionId"]})
	action, _ = res["action"].(map[string]any)
	if action["kind"] != "model" || action["model"] != "scripted/deepseek-flash" || res["text"] != "This session now runs on scripted/deepseek-flash." {
		t.Errorf("/model: %v", res)
	}
}
