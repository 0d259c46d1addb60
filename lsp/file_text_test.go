package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/uri"
)

// TestFileTextViews: the user's text of a file is the open document, else
// the agent's unsaved content, else the disk; the agent's text is that
// with the pending proposal applied. docFor, which places the user's
// ranges, reads the user's text whether the file is open or not.
func TestFileTextViews(t *testing.T) {
	str := func(s string) *string { return &s }
	type want struct {
		text   string
		exists bool
	}
	tests := []struct {
		name      string
		disk      *string // nil: no file on disk
		open      *string // the open document's text
		wroteText *string // the agent's unsaved content when wrote; nil: deleted
		wrote     bool
		// propose is what the proposal wants the file to read (nil with
		// proposeSet: deleted).
		propose    *string
		proposeSet bool
		user       want
		agent      want
		agentHeld  bool
	}{
		{name: "disk", disk: str("d\n"), user: want{"d\n", true}, agent: want{"d\n", true}},
		{name: "missing", user: want{"", false}, agent: want{"", false}},
		{name: "open", disk: str("d\n"), open: str("o\n"), user: want{"o\n", true}, agent: want{"o\n", true}, agentHeld: true},
		{name: "unsaved", disk: str("d\n"), wrote: true, wroteText: str("w\n"), user: want{"w\n", true}, agent: want{"w\n", true}, agentHeld: true},
		{name: "unsaved deletion", disk: str("d\n"), wrote: true, user: want{"", false}, agent: want{"", false}, agentHeld: true},
		{name: "proposal on disk", disk: str("d\n"), propose: str("p\n"), proposeSet: true, user: want{"d\n", true}, agent: want{"p\n", true}, agentHeld: true},
		{name: "proposal in buffer", disk: str("d\n"), open: str("o\n"), propose: str("p\n"), proposeSet: true, user: want{"o\n", true}, agent: want{"p\n", true}, agentHeld: true},
		{name: "proposed deletion", disk: str("d\n"), proposeSet: true, user: want{"d\n", true}, agent: want{"", false}, agentHeld: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{})
			path := filepath.Join(t.TempDir(), "a.go")
			if tc.disk != nil {
				if err := os.WriteFile(path, []byte(*tc.disk), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.open != nil {
				s.docs.open(uri.File(path), "go", 1, *tc.open)
			}
			if tc.wrote {
				s.edits.wrote(path, tc.wroteText)
			}
			if tc.proposeSet {
				cur, err := s.currentText(path, userView)
				if err != nil {
					t.Fatal(err)
				}
				s.review.Propose("s1", path, cur.text, cur.exists, tc.propose)
			}
			for _, v := range []struct {
				view textView
				want want
			}{{userView, tc.user}, {agentView, tc.agent}} {
				got, err := s.currentText(path, v.view)
				if err != nil {
					t.Fatal(err)
				}
				if got.text != v.want.text || got.exists != v.want.exists {
					t.Errorf("currentText(view %d) = %q exists %v, want %q exists %v", v.view, got.text, got.exists, v.want.text, v.want.exists)
				}
			}
			if _, held := s.heldText(path, agentView); held != tc.agentHeld {
				t.Errorf("heldText(agentView) held = %v, want %v", held, tc.agentHeld)
			}
			d, ok := s.docFor(path)
			if ok != tc.user.exists || d.Text != tc.user.text {
				t.Errorf("docFor = %q, %v; want the user's text %q, %v", d.Text, ok, tc.user.text, tc.user.exists)
			}
		})
	}
}
