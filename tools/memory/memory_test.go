package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools/sandbox"
)

func newStore(t *testing.T) (s *Store, home, root string) {
	t.Helper()
	home, root = t.TempDir(), t.TempDir()
	s = New(home, root, nil)
	s.now = func() time.Time { return time.Date(2026, 11, 24, 21, 0, 0, 0, time.UTC) }
	return s, home, root
}

func TestSaveListGetArchive(t *testing.T) {
	s, home, root := newStore(t)
	ctx := context.Background()
	path, err := s.Save(ctx, Note{Scope: User, Name: "Tabs Please", Description: "The user wants tabs in Go", Content: "Indent Go with tabs.\n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "memory", "tabs-please.md"); path != want {
		t.Fatalf("saved at %s, want %s", path, want)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "---\ndescription: The user wants tabs in Go\n---\n\nIndent Go with tabs.\n" {
		t.Fatalf("file:\n%s", data)
	}
	if _, err := s.Save(ctx, Note{Scope: Project, Name: "build", Description: "How to build", Content: "make check"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".reasonix", "memory", "build.md")); err != nil {
		t.Fatal(err)
	}

	list, err := s.List(false)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(list); got != "project/build user/tabs-please" {
		t.Fatalf("list: %s", got)
	}
	e, err := s.Get(User, "tabs-please")
	if err != nil || e.Content != "Indent Go with tabs." || e.Description != "The user wants tabs in Go" {
		t.Fatalf("get: %+v, %v", e, err)
	}

	archived, err := s.Archive(ctx, User, "tabs-please")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "memory", "archive", "tabs-please.20261124-210000.md"); archived != want {
		t.Fatalf("archived at %s, want %s", archived, want)
	}
	if _, err := s.Get(User, "tabs-please"); err == nil {
		t.Fatal("an archived note is still active")
	}
	list, _ = s.List(false)
	if got := ids(list); got != "project/build" {
		t.Fatalf("active after archiving: %s", got)
	}
	all, _ := s.List(true)
	if len(all) != 2 || !all[1].Archived || all[1].Name != "tabs-please" {
		t.Fatalf("with archived: %+v", all)
	}
	// Archiving the same name again, in the same second, keeps both.
	s.Save(ctx, Note{Scope: User, Name: "tabs-please", Description: "again", Content: "x"})
	again, err := s.Archive(ctx, User, "tabs-please")
	if err != nil || !strings.HasSuffix(again, "tabs-please.20261124-210000-2.md") {
		t.Fatalf("second archive: %s, %v", again, err)
	}
}

func ids(es []Entry) string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID())
	}
	return strings.Join(out, " ")
}

func TestNoteChecks(t *testing.T) {
	for _, tc := range []struct {
		note Note
		err  string
	}{
		{Note{Name: "../x", Description: "d", Content: "c"}, "may hold only"},
		{Note{Name: "", Description: "d", Content: "c"}, "name is required"},
		{Note{Name: "-x", Description: "d", Content: "c"}, "must start with"},
		{Note{Name: "x", Description: "", Content: "c"}, "description is required"},
		{Note{Name: "x", Description: "a\nb", Content: "c"}, "one line"},
		{Note{Name: "x", Description: "d", Content: "  "}, "content is required"},
		{Note{Name: "x", Description: "d", Content: strings.Repeat("a", MaxContentBytes+1)}, "longer than"},
	} {
		err := tc.note.Check()
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: %v, want %q", tc.note.Name, err, tc.err)
		}
	}
}

// A note written by hand, without a header, is described by its first
// line; links and other files among the notes are not notes.
func TestHandWrittenAndLinks(t *testing.T) {
	s, home, root := newStore(t)
	dir := filepath.Join(root, ".reasonix", "memory")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "deploy.md"), []byte("# Deploys go through CI\n\nNever push to prod by hand.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a note"), 0o644)
	secret := filepath.Join(home, "secret.md")
	os.WriteFile(secret, []byte("s3cr3t"), 0o644)
	if err := os.Symlink(secret, filepath.Join(dir, "linked.md")); err != nil {
		t.Skip("no symlinks:", err)
	}
	list, err := s.List(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "deploy" || list[0].Description != "Deploys go through CI" {
		t.Fatalf("list: %+v", list)
	}
	if _, err := s.Get(Project, "linked"); err == nil {
		t.Fatal("a linked note was read")
	}
}

// A memory directory that links into a forbidden one lists nothing, and
// a write through it fails: the disk does not follow links.
func TestForbiddenMemoryDirectory(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id.md"), []byte("PRIVATE KEY"), 0o600)
	os.MkdirAll(filepath.Join(root, ".reasonix"), 0o755)
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(root, ".reasonix", "memory")); err != nil {
		t.Skip("no symlinks:", err)
	}
	guard := sandbox.New([]string{root}, sandbox.HomeDefaults(home))
	s := New("", root, guard.CheckRead)
	list, _ := s.List(false)
	if len(list) != 0 {
		t.Fatalf("listed through a link into ~/.ssh: %+v", list)
	}
	if _, err := s.Save(context.Background(), Note{Scope: Project, Name: "x", Description: "d", Content: "c"}); err == nil {
		t.Fatal("saved through a link")
	}
	if _, err := os.Stat(filepath.Join(home, ".ssh", "x.md")); err == nil {
		t.Fatal("a note landed in ~/.ssh")
	}
}

func TestSearchAndIndex(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	if s.Index() != "" {
		t.Fatal("an index without notes")
	}
	s.Save(ctx, Note{Scope: User, Name: "go-style", Description: "Go style the user wants", Content: "Tabs, not spaces.\nTable tests."})
	s.Save(ctx, Note{Scope: Project, Name: "testing", Description: "How this project runs its tests", Content: "Run make test; tests need Docker."})
	s.Save(ctx, Note{Scope: Project, Name: "release", Description: "Releases", Content: "Tag and push."})

	hits, err := s.Search("tests docker", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Name != "testing" || hits[1].Name != "go-style" {
		t.Fatalf("hits: %+v", hits)
	}
	if hits[0].Line != "Run make test; tests need Docker." {
		t.Fatalf("line: %q", hits[0].Line)
	}
	if hits, _ := s.Search("kubernetes", 10); len(hits) != 0 {
		t.Fatalf("hits for an absent word: %+v", hits)
	}

	idx := s.Index()
	for _, want := range []string{"# Memory", "- project/release: Releases", "- project/testing: How this project runs its tests", "- user/go-style: Go style the user wants"} {
		if !strings.Contains(idx, want) {
			t.Errorf("index lacks %q:\n%s", want, idx)
		}
	}
	if strings.Contains(idx, "Tabs, not spaces") {
		t.Errorf("the index holds content:\n%s", idx)
	}
}

// TestListBoundsNotesPerDirectory: a repository that commits a flood of
// notes gets the first of them read, by name, and an error says the rest
// were not.
func TestListBoundsNotesPerDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".reasonix", "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range maxNotesPerDir + 5 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%05d.md", i)), []byte("a note\n"), 0o644)
	}
	notes, err := New("", root, nil).List(false)
	if len(notes) != maxNotesPerDir || notes[0].Name != "n00000" || err == nil || !strings.Contains(err.Error(), "the rest are not read") {
		t.Fatalf("%d notes, first %q, err %v", len(notes), notes[0].Name, err)
	}
}
