package lsp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonix/reasonix/lsp/lsptest"
)

// TestMemoryMethod lists the workspace's notes and the user's with
// reasonix/memory, archived ones on request.
func TestMemoryMethod(t *testing.T) {
	root, _ := workspace(t, "text unused\n", "")
	home := os.Getenv("REASONIX_HOME")
	write := func(path, text string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, ".reasonix", "memory", "build.md"), "---\ndescription: How to build\n---\n\nRun make check.\n")
	write(filepath.Join(root, ".reasonix", "memory", "archive", "old.20261124-210000.md"), "Stale\n")
	write(filepath.Join(home, "memory", "indent.md"), "Tabs, never spaces.\n")
	ed := lsptest.New(t, lsptest.Options{Root: root})

	type note struct {
		Scope       string `json:"scope"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Path        string `json:"path"`
		Content     string `json:"content"`
		Archived    bool   `json:"archived"`
	}
	var got struct {
		Dirs  map[string]string `json:"dirs"`
		Notes []note            `json:"notes"`
	}
	if _, err := ed.Conn().Call(ctx(t), "reasonix/memory", map[string]any{"folder": string(ed.URI(""))}, &got); err != nil {
		t.Fatal(err)
	}
	want := []note{
		{Scope: "project", Name: "build", Description: "How to build", Path: filepath.Join(root, ".reasonix", "memory", "build.md"), Content: "Run make check."},
		{Scope: "user", Name: "indent", Description: "Tabs, never spaces.", Path: filepath.Join(home, "memory", "indent.md"), Content: "Tabs, never spaces."},
	}
	if len(got.Notes) != len(want) || got.Notes[0] != want[0] || got.Notes[1] != want[1] {
		t.Fatalf("notes:\n%+v\nwant\n%+v", got.Notes, want)
	}
	if got.Dirs["project"] != filepath.Join(root, ".reasonix", "memory") {
		t.Fatalf("dirs %v", got.Dirs)
	}
	if _, err := ed.Conn().Call(ctx(t), "reasonix/memory", map[string]any{"archived": true}, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != 3 || !got.Notes[1].Archived || got.Notes[1].Name != "old" {
		t.Fatalf("with archived: %+v", got.Notes)
	}
}
