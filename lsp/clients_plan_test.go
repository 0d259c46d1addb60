//go:build unix

package lsp_test

import (
	"path/filepath"
	"testing"
)

// TestEditorPlanDocument plays plan.txtar in vscode-languageserver-protocol,
// a plain LSP client that opens documents: the planner's plan is opened
// as a Markdown file before the plan dialog, which says where it is, and
// the file is removed when the server exits.
func TestEditorPlanDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("the editor tests build the binary and run real editors")
	}
	requireNodeClient(t)
	script, files, _ := loadArchive(t, "plan.txtar")
	run := startClientRun(t, buildReasonix(t)(t), script, files)
	run.play(t, nil, "node", filepath.Join("node", "plan.js"))
	if n := run.srv.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were never asked for", n)
	}
}
