package lsp

import (
	"errors"
	"io/fs"
	"os"
)

// A file's text now has two answers inside the editor, and every reader in
// the server takes one of them from here.
//
// The user's text is what the editor has: the open document (as the
// agent's last accepted edit left it, until the editor reports a newer
// version), else what the agent wrote into a document the editor does not
// report open (many clients hold such an edit in a hidden buffer), else
// the disk. Edits are computed against it, the review's hunks are placed
// in it, and the ranges the user sends refer to it.
//
// The agent's text is the user's text with the pending proposal applied
// (review = "propose"): what the agent's tools read and the language
// servers of the project graph see, so a multi-step turn stays coherent.

// A textView says whose text of a file is wanted.
type textView int

const (
	userView textView = iota
	agentView
)

// fileText is a file's text as one view has it.
type fileText struct {
	text   string
	exists bool
	// version is the open document's version to send an edit against:
	// nil when the editor does not have the file open, and also when the
	// editor has not yet reported the version our last edit produced (the
	// text is then known exactly, the version number is not).
	version *int32
}

// heldText returns path's text in view v when the server holds it apart
// from the disk: an open document, the agent's unsaved content, or (in
// the agent's view) a pending proposal. held is false when the disk has
// the answer; the caller reads it, judging what it opened.
func (s *Server) heldText(path string, v textView) (t fileText, held bool) {
	if v == agentView && s.review.Proposes(path) {
		// The proposal is placed in the user's text, which may be the
		// disk's. A file that cannot be read shows no proposal.
		if cur, err := s.currentText(path, userView); err == nil {
			if text, deleted, ok := s.review.View(path, cur.text); ok {
				return fileText{text: text, exists: !deleted}, true
			}
		}
	}
	if d, ok := s.docs.byPath(path); ok {
		if text, ok := s.edits.afterEdit(d); ok {
			return fileText{text: text, exists: true}, true
		}
		version := d.Version
		return fileText{text: d.Text, exists: true, version: &version}, true
	}
	if c, ok := s.edits.lookup(path); ok {
		if c == nil {
			return fileText{}, true // the agent deleted it
		}
		return fileText{text: *c, exists: true}, true
	}
	return fileText{}, false
}

// currentText returns path's text in view v: what the server holds, else
// the disk's. A file that does not exist is no error: exists is false.
func (s *Server) currentText(path string, v textView) (fileText, error) {
	if t, held := s.heldText(path, v); held {
		return t, nil
	}
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		return fileText{text: string(b), exists: true}, nil
	case errors.Is(err, fs.ErrNotExist):
		return fileText{}, nil
	}
	return fileText{}, err
}

// userText is the user's text of path, in which the review places its
// hunks; a file that does not exist reads as empty.
func (s *Server) userText(path string) (string, error) {
	t, err := s.currentText(path, userView)
	return t.text, err
}
