//go:build unix

package lsp_test

import (
	"path/filepath"
	"testing"
)

// TestEglotGraphFix runs eglot-graph.el in real eglot, a client that
// sends no diagnostic with its requests for code actions: the quick fix
// for what gopls reports on the line comes from the project graph, and
// M-x reasonix-fix of the eglot snippet fixes what gopls reports at
// point. Both fixes land in the buffer, the agent's own `go test` passes
// inside the second turn, and so does `go test` afterwards.
func TestEglotGraphFix(t *testing.T) {
	if testing.Short() {
		t.Skip("the editor tests build the binary and run real editors")
	}
	requireEglot(t)
	requireProgram(t, "gopls")
	bin := buildReasonix(t)(t)

	script, files, want := loadArchive(t, "eglot-graph.txtar")
	snippet, err := filepath.Abs(filepath.Join("..", "editors", "emacs", "reasonix-eglot.el"))
	if err != nil {
		t.Fatal(err)
	}
	run := startClientRun(t, bin, script, files)
	run.play(t, []string{
		"REASONIX_TEST_FILE=" + filepath.Join(run.root, "calc.go"),
		"REASONIX_TEST_WANT=" + want["calc.go"],
		"REASONIX_TEST_SNIPPET=" + snippet,
	}, "emacs", "--batch", "-l", "eglot-graph.el")
	run.checkAfter(t, want, "")
}
