package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
)

// TestRewindLeavesWhatItCannotPutBack: a file whose text before was not
// kept is "unknown", a control file is a conflict the rewind does not
// write, and both are left as they are; the others are put back. The
// session is not stored: its checkpoints are in memory.
func TestRewindLeavesWhatItCannotPutBack(t *testing.T) {
	h := newHarness(t, nil)
	h.a.Store = nil
	root := h.a.Env.Root
	writeFiles(t, root, map[string]string{"reasonix.toml": "# after\n", "lost.txt": "after\n", "plain.txt": "after\n"})
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	log := &changeLog{}
	log.remember(filepath.Join(root, "reasonix.toml"), original{text: []byte("# before\n"), existed: true, known: true, source: SourceShell, last: SourceShell})
	log.remember(filepath.Join(root, "lost.txt"), original{existed: true, source: SourceShell, last: SourceShell})
	log.remember(filepath.Join(root, "plain.txt"), original{text: []byte("before\n"), existed: true, known: true, source: SourceTool, last: SourceTool})
	if _, err := h.a.recordCheckpoint(s, 1, "change them", log); err != nil {
		t.Fatal(err)
	}
	plan, err := h.a.Rewind(context.Background(), s, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"reasonix.toml": RewindConflict, "lost.txt": RewindUnknown, "plain.txt": RewindRestore}
	for _, f := range plan.Files {
		name := filepath.Base(f.Path)
		if f.Action != want[name] {
			t.Errorf("%s: %s (%s), want %s", name, f.Action, f.Note, want[name])
		}
		if f.Action == RewindConflict {
			if f.Saved == "" {
				t.Errorf("%s: its text before is not saved", name)
			} else {
				defer os.RemoveAll(filepath.Dir(filepath.Dir(f.Saved)))
			}
		}
	}
	for name, text := range map[string]string{"reasonix.toml": "# after\n", "lost.txt": "after\n", "plain.txt": "before\n"} {
		if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != text {
			t.Errorf("%s after the rewind: %q, want %q", name, got, text)
		}
	}
}

// TestRewindRefusesAnUnnumberedSession: a session recorded before
// messages carried their turn cannot have its conversation cut.
func TestRewindRefusesAnUnnumberedSession(t *testing.T) {
	h := newHarness(t, nil)
	st := h.a.Store
	f, err := st.Create(Meta{ID: "old", Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []provider.Message{
		{Role: provider.RoleSystem, Content: "sys"},
		{Role: provider.RoleUser, Content: "go"},
		{Role: provider.RoleAssistant, Content: "done"},
	} {
		f.AppendMessage(&m)
	}
	f.Keep()
	f.Close()
	s, err := h.a.Resume("old")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := h.a.recordCheckpoint(s, 1, "go", &changeLog{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.a.Rewind(context.Background(), s, 1); !errors.Is(err, errUnnumbered) {
		t.Errorf("rewinding an unnumbered session: %v", err)
	}
}

// TestRewindIsRefusedWhileATurnRuns: ErrBusy.
func TestRewindIsRefusedWhileATurnRuns(t *testing.T) {
	h := newHarness(t, nil)
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, end, err := h.a.begin(s, true)
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	if _, err := h.a.Rewind(context.Background(), s, 1); !errors.Is(err, ErrBusy) {
		t.Errorf("rewinding during a turn: %v", err)
	}
}
