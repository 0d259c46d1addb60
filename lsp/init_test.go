package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/lsp/lsptest"
)

// TestInitOverLSP: /init asks before writing AGENTS.md, with the dialog
// a write_file call of the model would get, and the file arrives through
// the editor; declined, nothing is written and the answer holds the
// draft.
func TestInitOverLSP(t *testing.T) {
	root, srv := workspace(t, "text never asked\n", "")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	agents := filepath.Join(root, "AGENTS.md")

	ed.Answer("Deny")
	res := askWith(t, ed, map[string]any{"prompt": "/init"})
	if msg, _ := res["error"].(string); !strings.HasPrefix(msg, "/init: AGENTS.md was not written") || !strings.Contains(res["text"].(string), "## Go packages") {
		t.Fatalf("denied: %v", res)
	}
	if _, err := os.Stat(agents); !os.IsNotExist(err) {
		t.Fatalf("AGENTS.md after a denial: %v", err)
	}

	ed.Answer("Allow once")
	res = askWith(t, ed, map[string]any{"prompt": "/init", "sessionId": res["sessionId"]})
	action, _ := res["action"].(map[string]any)
	if action["kind"] != "init" || res["error"] != nil || !strings.HasPrefix(res["text"].(string), "Wrote AGENTS.md: ") {
		t.Fatalf("allowed: %v", res)
	}
	got, err := os.ReadFile(agents)
	if err != nil || !strings.Contains(string(got), "`go build ./...` builds and `go test ./...` tests (go.mod: module example.com/calc") {
		t.Errorf("AGENTS.md: %v\n%s", err, got)
	}
	dialogs := ed.Snapshot().Dialogs
	if len(dialogs) != 2 || !strings.Contains(dialogs[1].Message, "AGENTS.md") {
		t.Errorf("dialogs %+v", dialogs)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}

// TestInitProposes: in propose mode /init's AGENTS.md is a proposal, as a
// model's write would be: nothing is asked, nothing is written, and the
// review lists it.
func TestInitProposes(t *testing.T) {
	root, _ := workspace(t, "text never asked\n", "")
	ed := lsptest.New(t, lsptest.Options{Root: root, Settings: map[string]any{"review": "propose"}})
	res := askWith(t, ed, map[string]any{"prompt": "/init"})
	if res["error"] != nil || !strings.HasPrefix(res["text"].(string), "Proposed AGENTS.md for your review") {
		t.Fatalf("/init: %v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "AGENTS.md")); !os.IsNotExist(err) {
		t.Errorf("AGENTS.md was written before review: %v", err)
	}
	var list struct {
		Files []struct {
			URI string `json:"uri"`
		} `json:"files"`
	}
	if _, err := ed.Conn().Call(ctx(t), "reasonix/review", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Files) != 1 || !strings.HasSuffix(list.Files[0].URI, "/AGENTS.md") {
		t.Errorf("under review: %+v", list.Files)
	}
	if n := len(ed.Snapshot().Dialogs); n != 0 {
		t.Errorf("%d dialogs", n)
	}
}
