package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
)

// TestCheckpointBlobsAndLines: a text is stored once however often it is
// put, lines read back in order, a bad blob id is refused, and a session
// removed on close takes its checkpoints with it.
func TestCheckpointBlobsAndLines(t *testing.T) {
	st := &Store{Dir: t.TempDir()}
	f, err := st.Create(Meta{ID: "c1", Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	c := st.Checkpoints("c1")
	if c.Dir != f.CheckpointDir() {
		t.Fatalf("the store and the file disagree on the directory: %s, %s", c.Dir, f.CheckpointDir())
	}
	id, n, err := c.PutBlob([]byte("text"))
	if err != nil || n != 4 || id != BlobID([]byte("text")) {
		t.Fatalf("first put: %s %d %v", id, n, err)
	}
	if again, n, err := c.PutBlob([]byte("text")); err != nil || n != 0 || again != id {
		t.Fatalf("second put: %s %d %v, want nothing written", again, n, err)
	}
	if got, err := c.Blob(id); err != nil || string(got) != "text" {
		t.Fatalf("blob: %q %v", got, err)
	}
	if _, err := c.Blob("../../c1.jsonl"); err == nil {
		t.Error("a path as a blob id was read")
	}
	for _, l := range []string{`{"type":"turn","turn":1}`, `{"type":"rewind","turn":1}`} {
		if err := c.Append([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := c.Lines()
	if err != nil || len(lines) != 2 || string(lines[1]) != `{"type":"rewind","turn":1}` {
		t.Fatalf("lines %q, %v", lines, err)
	}
	f.Close() // never kept: removed, with its checkpoints
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("checkpoints of a removed session: %v", err)
	}
}

// TestMarksSurviveRewrite: messages' turns and numbers are read back
// from the session file and the archive after a rewrite.
func TestMarksSurviveRewrite(t *testing.T) {
	st := &Store{Dir: t.TempDir()}
	f, err := st.Create(Meta{ID: "m1", Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all := []provider.Message{{Role: provider.RoleSystem, Content: "sys"}, userMsg("one"), userMsg("two")}
	marks := []Mark{{Seq: 1}, {Turn: 1, Seq: 2}, {Turn: 2, Seq: 3}}
	for i := range all {
		if err := f.AppendMarked(&all[i], marks[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.RewriteMarked([]provider.Message{all[0], all[2]}, []Mark{marks[0], marks[2]}, all[1:2], marks[1:2],
		ArchiveBlock{Seq: 1, Messages: 1}, provider.Usage{}, 0, 2); err != nil {
		t.Fatal(err)
	}
	l, err := st.Load("m1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Marks, []Mark{marks[0], marks[2]}) || l.Turns != 2 {
		t.Errorf("view's marks %v, turns %d", l.Marks, l.Turns)
	}
	_, am, err := st.ArchiveMarked("m1")
	if err != nil || !slices.Equal(am, marks[1:2]) {
		t.Errorf("archive's marks %v, %v", am, err)
	}
	if _, err := os.Stat(filepath.Join(st.Dir, "m1.checkpoints")); !os.IsNotExist(err) {
		t.Errorf("a session with no turn has a checkpoint directory: %v", err)
	}
}
