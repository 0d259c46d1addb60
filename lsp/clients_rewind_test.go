//go:build unix

package lsp_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// TestEditorRewind plays rewind.txtar in eglot and in
// vscode-languageserver-protocol: two turns change five files (an edit of
// the open calc.go; a file a command created, one it deleted, one it
// changed; one the user changed after the agent), and reasonix.rewind to
// before the first turn puts back all but the user's, which is left as
// it is. The client programs check the buffer, the plan, the summary and
// the errors of bad arguments; here the files on disk, and that the
// third turn's request to the model holds neither rewound turn.
func TestEditorRewind(t *testing.T) {
	if testing.Short() {
		t.Skip("the editor tests build the binary and run real editors")
	}
	reasonix := buildReasonix(t)
	t.Run("eglot", func(t *testing.T) {
		requireEglot(t)
		playRewind(t, reasonix(t), "emacs", "--batch", "-l", "eglot-rewind.el")
	})
	t.Run("node", func(t *testing.T) {
		requireNodeClient(t)
		playRewind(t, reasonix(t), "node", filepath.Join("node", "rewind.js"))
	})
}

func playRewind(t *testing.T, bin string, argv ...string) {
	run := playReviewArchive(t, bin, "rewind.txtar", "calc.go", argv...)
	if _, err := os.Stat(filepath.Join(run.root, "made.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("made.txt, which the rewound turn created, is still there: %v", err)
	}
	checkRewoundRequest(t, run.srv.Requests(), "Third turn", "First turn", "Second turn")
}

// checkRewoundRequest checks that the request the model answered for the
// prompt holding after holds none of the rewound prompts.
func checkRewoundRequest(t *testing.T, reqs []scripted.Request, after string, rewound ...string) {
	t.Helper()
	found := false
	for _, r := range reqs {
		if r.Step == 0 || len(r.Messages) == 0 || !strings.Contains(r.Messages[len(r.Messages)-1].Content, after) {
			continue
		}
		found = true
		for _, m := range r.Messages {
			for _, p := range rewound {
				if strings.Contains(m.Content, p) {
					t.Errorf("the request for %q still holds the rewound turn's %q (a %s message)", after, p, m.Role)
				}
			}
		}
	}
	if !found {
		t.Errorf("the model answered no request for %q", after)
	}
}
