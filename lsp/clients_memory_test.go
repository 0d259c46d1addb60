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

// TestEditorMemoryAndAsk plays memory-delegation.txtar in Neovim's own
// client and in eglot, plain LSP, over two server processes that share
// the user's home: a preference saved with the user's approval in one
// process is used by the next, and the agent's question is a dialog whose
// actions are its suggested answers. The second process also finds a fact
// of the first through history and delegates two read-only tasks, which
// run side by side, and an edit task, whose edit lands in the editor's
// buffer.
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
		requireEglot(t)
		playMemory(t, reasonix(t), "emacs", "--batch", "-l", "eglot-memory.el")
	})
}

// playMemory plays memory-delegation.txtar with the client argv and
// checks what the model and the disk show: the note the first process
// saved, every scripted step asked for, and the second process's work
// (checkDelegation).
func playMemory(t *testing.T, bin string, argv ...string) {
	script, files, want := loadArchive(t, "memory-delegation.txtar")
	run := startClientRun(t, bin, script, files)
	run.play(t, nil, argv...)

	note, err := os.ReadFile(filepath.Join(run.home, "memory", "indent.md"))
	if err != nil || !strings.Contains(string(note), "Indent with tabs, never spaces.") {
		t.Errorf("the note: %q, %v", note, err)
	}
	if n := run.srv.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were never asked for", n)
	}
	checkDelegation(t, run, want)
}

// checkDelegation checks what the second process of
// memory-delegation.txtar did, from the model's side: its first request
// carries the note in the memory index; the two read-only tasks overlap,
// each sending its first request before the other's second (run one
// after the other, one would finish first); and the edit, saved by the
// client, is on disk.
func checkDelegation(t *testing.T, run *clientRun, want map[string]string) {
	t.Helper()
	first := map[string]int{}  // a conversation's first request
	second := map[string]int{} // and its second
	var later *scripted.Request
	for _, r := range run.srv.Requests() {
		if len(r.Messages) < 2 {
			continue
		}
		user := r.Messages[1].Content
		for _, key := range []string{"alpha:", "beta:"} {
			if strings.Contains(user, key) {
				if first[key] == 0 {
					first[key] = r.Seq
				} else if second[key] == 0 {
					second[key] = r.Seq
				}
			}
		}
		if later == nil && strings.Contains(user, "Which port does staging use") {
			later = &r
		}
	}
	if later == nil || !strings.Contains(later.Messages[0].Content, "- user/indent: The user indents with tabs") {
		t.Errorf("the second process's first request does not carry the note in its system message")
	}
	if first["alpha:"] == 0 || first["beta:"] == 0 || second["alpha:"] == 0 || second["beta:"] == 0 {
		t.Fatalf("the research tasks' requests: first %v, second %v", first, second)
	}
	if first["beta:"] > second["alpha:"] || first["alpha:"] > second["beta:"] {
		t.Errorf("the read-only tasks did not overlap: requests alpha %d, %d and beta %d, %d",
			first["alpha:"], second["alpha:"], first["beta:"], second["beta:"])
	}
	for name, body := range want {
		got, err := os.ReadFile(filepath.Join(run.root, filepath.FromSlash(name)))
		if err != nil || string(got) != body {
			t.Errorf("%s on disk: %q, %v; want %q", name, got, err, body)
		}
	}
}
