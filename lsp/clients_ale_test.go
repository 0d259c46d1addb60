//go:build unix

package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditorALE runs the quick fix in Vim with ALE (Debian's vim-nox and
// vim-ale 3.3.0), set up as docs/editors.md shows: ALECodeAction on a
// failing test that a `go test` linter reports, with Reasonix as an LSP
// linter. ALE declares no way to ask and never answers
// window/showMessageRequest. Each archive (testdata/clients/ale*.txtar)
// holds:
//
//	-- config --     lines added to the project's reasonix.toml, which is
//	                 then trusted as the user's own (reasonix trust --yes)
//	-- shown --      texts that must reach the user, one a line; the last
//	                 is the turn's answer
//	-- go test fails -- what `go test` in the module prints afterwards,
//	                 when it fails; without it, it must pass
//	-- model --, -- files/<path> --, -- want/<path> -- as in TestEditorClients
//
// Nothing waits for an answer: the run has clientTimeout, far below the
// server's answer timeout, so a question to ALE would fail it.
func TestEditorALE(t *testing.T) {
	if testing.Short() {
		t.Skip("the editor tests build the binary and run real editors")
	}
	requirePeer(t, "Vim with ALE (vim-nox, vim-ale)", runs("vim", "-N", "-u", "NONE", "-i", "NONE", "-n", "-es",
		"-c", "packadd ale", "-c", "if !exists('g:loaded_ale') | cquit 1 | endif", "-c", "qall!"))
	reasonix := buildReasonix(t)
	for _, name := range []string{"ale.txtar", "ale-refused.txtar"} {
		t.Run(strings.TrimSuffix(name, ".txtar"), func(t *testing.T) {
			playALE(t, reasonix(t), name)
		})
	}
}

// playALE plays one ALE archive.
func playALE(t *testing.T, bin, name string) {
	script, ar := readClientArchive(t, name)
	files, want := map[string]string{}, map[string]string{}
	var config, shown, gotestFails string
	for _, f := range ar.Files {
		switch dir, rest, _ := strings.Cut(f.Name, "/"); dir {
		case "model":
		case "config":
			config = string(f.Data)
		case "shown":
			shown = strings.Join(strings.Split(strings.TrimSpace(string(f.Data)), "\n"), "|")
		case "go test fails":
			gotestFails = strings.TrimSpace(string(f.Data))
		case "files":
			files[rest] = string(f.Data)
		case "want":
			want[rest] = string(f.Data)
		default:
			t.Fatalf("%s: unknown section %q", name, f.Name)
		}
	}
	if shown == "" || len(want) == 0 {
		t.Fatalf("%s: needs shown and want/<path> sections", name)
	}
	run := startClientRun(t, bin, script, files)
	if config != "" {
		toml := filepath.Join(run.root, "reasonix.toml")
		f, err := os.OpenFile(toml, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString(config)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		// The allow rules are the user's: trusted again.
		run.trust(t, bin)
	}
	// The vimrc of docs/editors.md, as is: its `reasonix` is, first on
	// the PATH, the binary under test with its log kept.
	vimrc := filepath.Join(t.TempDir(), "vimrc")
	if err := os.WriteFile(vimrc, []byte(aleVimrc(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	wrapper := fmt.Sprintf("#!/bin/sh\nexec %q \"$@\" 2>>%q\n", bin, run.serverLog)
	if err := os.WriteFile(filepath.Join(path, "reasonix"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	run.play(t, []string{
		"PATH=" + path + string(os.PathListSeparator) + os.Getenv("PATH"),
		"REASONIX_TEST_VIMRC=" + vimrc,
		"REASONIX_TEST_FILE=" + filepath.Join(run.root, "calc_test.go"),
		"REASONIX_TEST_SHOWN=" + shown,
	}, "vim", "-N", "-u", "NONE", "-i", "NONE", "-n", "-es", "-S", "ale.vim")

	run.checkAfter(t, want, gotestFails)
}

// aleVimrc is the Vim script of docs/editors.md's section on ALE: its
// first vim code block.
func aleVimrc(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "editors.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Vim (ALE)\n")
	if !ok {
		t.Fatal(`docs/editors.md has no section "## Vim (ALE)"`)
	}
	_, block, ok := strings.Cut(section, "\n```vim\n")
	if !ok {
		t.Fatal("docs/editors.md: no vim block in the section on ALE")
	}
	block, _, ok = strings.Cut(block, "\n```\n")
	if !ok {
		t.Fatal("docs/editors.md: the vim block on ALE does not end")
	}
	return block + "\n"
}
