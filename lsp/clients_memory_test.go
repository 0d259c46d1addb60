//go:build unix

package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// loadArchive reads a client archive of testdata/clients: its model
// script, the workspace's files (files/...) and the files as they must
// end (want/...).
func loadArchive(t *testing.T, name string) (*scripted.Script, map[string]string, map[string]string) {
	t.Helper()
	script, ar := readClientArchive(t, name)
	files, want := map[string]string{}, map[string]string{}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "files/"); ok {
			files[name] = string(f.Data)
		}
		if name, ok := strings.CutPrefix(f.Name, "want/"); ok {
			want[name] = string(f.Data)
		}
	}
	return script, files, want
}

// TestEditorMemoryAndAsk plays memory.txtar in Neovim's own client and in
// eglot, plain LSP: a preference saved with the user's approval in one
// server process is used by the next, and the agent's question is a
// dialog whose actions are its suggested answers.
func TestEditorMemoryAndAsk(t *testing.T) {
	if testing.Short() {
		t.Skip("the editor tests build the binary and run real editors")
	}
	reasonix := buildReasonix(t)
	t.Run("neovim", func(t *testing.T) {
		requirePeer(t, "Neovim (nvim)", runs("nvim", "--version"))
		playMemory(t, reasonix(t), "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile neovim-memory.lua")
	})
	t.Run("eglot", func(t *testing.T) {
		requirePeer(t, "Emacs with eglot", runs("emacs", "--batch", "--eval", "(require 'eglot)"))
		playMemory(t, reasonix(t), "emacs", "--batch", "-l", "eglot-memory.el")
	})
}

func playMemory(t *testing.T, bin string, argv ...string) {
	script, files, _ := loadArchive(t, "memory.txtar")
	run := startClientRun(t, bin, script, files)
	run.play(t, nil, argv...)

	note, err := os.ReadFile(filepath.Join(run.home, "memory", "indent.md"))
	if err != nil || !strings.Contains(string(note), "Indent with tabs, never spaces.") {
		t.Errorf("the note: %q, %v", note, err)
	}
	if n := run.srv.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were never asked for", n)
	}
}
