package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
)

// TestUpdatedIsNeverBeforeCreated: the file's modification time comes
// from a coarser clock than the header's creation time.
func TestUpdatedIsNeverBeforeCreated(t *testing.T) {
	st := &Store{Dir: t.TempDir()}
	created := time.Now().Add(time.Hour) // as if the file's clock lagged
	f, err := st.Create(Meta{ID: "x1", Created: created})
	if err != nil {
		t.Fatal(err)
	}
	f.Keep()
	f.Close()
	l, err := st.Load("x1")
	if err != nil {
		t.Fatal(err)
	}
	if l.Updated.Before(created) {
		t.Fatalf("updated %v before created %v", l.Updated, created)
	}
}

func userMsg(s string) provider.Message { return provider.Message{Role: provider.RoleUser, Content: s} }

// TestRewriteArchivesFirst: a compaction's rewrite leaves the session
// file holding the view and the totals, the archive holding what was
// dropped, and listings and id prefixes ignore the archive.
func TestRewriteArchivesFirst(t *testing.T) {
	st := &Store{Dir: t.TempDir()}
	f, err := st.Create(Meta{ID: "20260101-000000-aaaaaa", Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	all := []provider.Message{{Role: provider.RoleSystem, Content: "sys"}, userMsg("one"), userMsg("two"), userMsg("three")}
	for i := range all {
		f.AppendMessage(&all[i])
	}
	f.AppendUsage(3, "", provider.Usage{PromptTokens: 300, CacheMissTokens: 300}, 0.5, 1000)
	view := []provider.Message{all[0], all[3]}
	total := provider.Usage{PromptTokens: 300, CacheMissTokens: 300}
	if err := f.Rewrite(view, all[1:3], ArchiveBlock{Seq: 1, Messages: 2}, total, 0.5, 3); err != nil {
		t.Fatal(err)
	}
	// The file stays open for appending.
	more := userMsg("four")
	if err := f.AppendMessage(&more); err != nil {
		t.Fatal(err)
	}
	f.Close()

	l, err := st.Load("20260101-000000-aaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Messages) != 3 || l.Messages[1].Content != "three" || l.Messages[2].Content != "four" {
		t.Fatalf("view = %+v", l.Messages)
	}
	if l.Usage != total || l.Cost != 0.5 || l.Turns != 3 || l.Meta.Compactions != 1 || l.Meta.Archived != 2 {
		t.Fatalf("loaded %+v", l)
	}
	arch, err := st.Archive("20260101-000000-aaaaaa")
	if err != nil || len(arch) != 2 || arch[0].Content != "one" || arch[1].Content != "two" {
		t.Fatalf("archive = %+v, %v", arch, err)
	}
	// A leftover of a rewrite cut short is no session either.
	os.WriteFile(filepath.Join(st.Dir, "20260101-000000-aaaaaa"+tmpSuffix), []byte("x"), 0o600)
	list, err := st.List()
	if err != nil || len(list) != 1 || list[0].Messages != 3 || list[0].Archived != 2 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	for _, ref := range []string{"2026", "20260101-000000-aaaaaa"} {
		if id, err := st.Resolve(ref); err != nil || id != "20260101-000000-aaaaaa" {
			t.Errorf("Resolve(%q) = %q, %v", ref, id, err)
		}
	}
	if id, err := st.Resolve("20260101-000000-aaaaaa.archive"); err == nil {
		t.Errorf("Resolve found the archive as session %q", id)
	}
}

// TestArchiveBlockRepeated: a compaction cut short after writing its
// archive block but before the rewrite leaves the session whole; the
// next compaction repeats the block's number, and the archive reads back
// without the first attempt's duplicates.
func TestArchiveBlockRepeated(t *testing.T) {
	st := &Store{Dir: t.TempDir()}
	path := st.ArchivePath("s")
	one, two, three := userMsg("one"), userMsg("two"), userMsg("three")
	if err := appendArchive(path, ArchiveBlock{Seq: 1, Messages: 1}, []provider.Message{one}, nil); err != nil {
		t.Fatal(err)
	}
	// The killed process's retry, later, drops more.
	if err := appendArchive(path, ArchiveBlock{Seq: 1, Messages: 2}, []provider.Message{one, two}, nil); err != nil {
		t.Fatal(err)
	}
	if err := appendArchive(path, ArchiveBlock{Seq: 2, Messages: 1}, []provider.Message{three}, nil); err != nil {
		t.Fatal(err)
	}
	// And a torn line at the end.
	af, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	af.WriteString(`{"type":"message","message":{"role":"us`)
	af.Close()
	arch, err := st.Archive("s")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range arch {
		got = append(got, m.Content)
	}
	if strings.Join(got, ",") != "one,two,three" {
		t.Fatalf("archive = %v", got)
	}
}

// TestRewriteFailureKeepsTheSession: a rewrite that cannot write its new
// file leaves the old one whole and open for appending.
func TestRewriteFailureKeepsTheSession(t *testing.T) {
	st := &Store{Dir: t.TempDir()}
	f, err := st.Create(Meta{ID: "s1", Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	all := []provider.Message{{Role: provider.RoleSystem, Content: "sys"}, userMsg("one"), userMsg("two")}
	for i := range all {
		f.AppendMessage(&all[i])
	}
	// A directory where the new file would go makes the write fail.
	os.Mkdir(filepath.Join(st.Dir, "s1"+tmpSuffix), 0o700)
	if err := f.Rewrite(all[:1], all[1:], ArchiveBlock{Seq: 1}, provider.Usage{}, 0, 1); err == nil {
		t.Fatal("rewrite succeeded")
	}
	more := userMsg("three")
	if err := f.AppendMessage(&more); err != nil {
		t.Fatal(err)
	}
	f.Keep()
	f.Close()
	l, err := st.Load("s1")
	if err != nil || len(l.Messages) != 4 || l.Meta.Compactions != 0 {
		t.Fatalf("after a failed rewrite: %+v, %v", l, err)
	}
}

// TestTitle: a session's title is its first prompt on one line, without
// what was attached to it.
func TestTitle(t *testing.T) {
	for in, want := range map[string]string{
		"first question": "first question",
		"what is in @notes/\n\n<directory path=\"notes\">\na.txt\n</directory>":                                                                                    "what is in @notes/",
		"explain this\n\nThe user's selection in calc.go:\n\nLines 1-2:\n```go\n```\n":                                                                             "explain this",
		"<skill name=\"deploy\" folder=\".reasonix/skills/deploy\">\nRun make deploy.\n\nThen check.\n</skill>\n\nARGUMENTS: now\n\n<file path=\"a.go\">\n</file>": "/deploy now",
		"<skill name=\"deploy\" folder=\".reasonix/skills/deploy\">\nRun make deploy.\n</skill>":                                                                   "/deploy",
		"fix the\ntest  please\n":   "fix the test please",
		strings.Repeat("word ", 20): strings.Repeat("word ", 14) + "w…",
	} {
		if got := title(in); got != want {
			t.Errorf("title(%q) = %q, want %q", in, got, want)
		}
	}
}
