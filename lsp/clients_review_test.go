//go:build unix

package lsp_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEditorReview plays review.txtar in Neovim's own client, in eglot, in
// lsp-mode and in vscode-languageserver-protocol, each with review =
// "propose": the agent's edits arrive as diagnostics, one hunk is accepted
// and one rejected through code actions, and a hunk the user's own edit
// made stale cannot be accepted. The file on disk must then hold exactly the accepted
// hunk and the user's edit.
func TestEditorReview(t *testing.T) {
	if testing.Short() {
		t.Skip("the editor tests build the binary and run real editors")
	}
	reasonix := buildReasonix(t)
	t.Run("neovim", func(t *testing.T) {
		requirePeer(t, "Neovim (nvim)", runs("nvim", "--version"))
		playReview(t, reasonix(t), "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile neovim-review.lua")
	})
	t.Run("eglot", func(t *testing.T) {
		requireEglot(t)
		playReview(t, reasonix(t), "emacs", "--batch", "-l", "eglot-review.el")
	})
	t.Run("lsp-mode", func(t *testing.T) {
		requireLSPMode(t)
		playReview(t, reasonix(t), "emacs", "--batch", "-l", "lsp-mode-review.el")
	})
	t.Run("node", func(t *testing.T) {
		requireNodeClient(t)
		playReview(t, reasonix(t), "node", filepath.Join("node", "review.js"))
	})
}

// TestEditorReviewShell plays review-shell.txtar in Neovim's own client
// (the file opened after the command) and in
// vscode-languageserver-protocol (the file closed), with review =
// "propose": a shell command of the agent changes two lines of a file on
// disk, and the client rejects one and accepts the other with the
// proposals' code actions. The file must then hold exactly the accepted
// change. vscode-languageserver-protocol also plays
// review-shell-create.txtar: the command creates one file and deletes
// another, and the client rejects both.
func TestEditorReviewShell(t *testing.T) {
	if testing.Short() {
		t.Skip("the editor tests build the binary and run real editors")
	}
	reasonix := buildReasonix(t)
	t.Run("neovim", func(t *testing.T) {
		requirePeer(t, "Neovim (nvim)", runs("nvim", "--version"))
		playReviewArchive(t, reasonix(t), "review-shell.txtar", "notes.txt", "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile neovim-review-shell.lua")
	})
	t.Run("node", func(t *testing.T) {
		requireNodeClient(t)
		playReviewArchive(t, reasonix(t), "review-shell.txtar", "notes.txt", "node", filepath.Join("node", "review-shell.js"))
	})
	t.Run("node-create-delete", func(t *testing.T) {
		requireNodeClient(t)
		playReviewArchive(t, reasonix(t), "review-shell-create.txtar", "old.txt", "node", filepath.Join("node", "review-shell-create.js"))
	})
}

func playReview(t *testing.T, bin string, argv ...string) {
	playReviewArchive(t, bin, "review.txtar", "calc.go", argv...)
}

// playReviewArchive plays a review archive whose client reviews file,
// and returns the run for further checks.
func playReviewArchive(t *testing.T, bin, archive, file string, argv ...string) *clientRun {
	script, files, want := loadArchive(t, archive)
	run := startClientRun(t, bin, script, files)
	run.play(t, []string{"REASONIX_TEST_FILE=" + filepath.Join(run.root, file)}, argv...)
	for name, w := range want {
		got, err := os.ReadFile(filepath.Join(run.root, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != w {
			t.Errorf("%s on disk:\n%s\nwant:\n%s", name, got, w)
		}
	}
	if n := run.srv.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were never asked for", n)
	}
	return run
}
