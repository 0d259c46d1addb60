package lsp

import (
	"context"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools"
)

// propose keeps changes as proposals instead of applying them.
func (f *editorFS) propose(ctx context.Context, changes []tools.Change) error {
	s := f.s
	session := agent.CallSession(ctx)
	var touched []string
	for _, c := range changes {
		switch c.Kind {
		case tools.Write:
			cur, exists, err := f.real(c.Path)
			if err != nil {
				return err
			}
			want := string(c.Content)
			s.review.Propose(session, c.Path, cur, exists, &want)
			touched = append(touched, c.Path)
		case tools.Delete:
			cur, exists, err := f.real(c.Path)
			if err != nil {
				return err
			}
			s.review.Propose(session, c.Path, cur, exists, nil)
			touched = append(touched, c.Path)
		case tools.Rename:
			// A move is two proposals: the new file with the content the
			// agent sees, and the removal of the old one.
			content, err := f.ReadFile(c.Path)
			if err != nil {
				return err
			}
			curNew, existsNew, err := f.real(c.NewPath)
			if err != nil {
				return err
			}
			curOld, existsOld, err := f.real(c.Path)
			if err != nil {
				return err
			}
			want := string(content)
			s.review.Propose(session, c.NewPath, curNew, existsNew, &want)
			s.review.Propose(session, c.Path, curOld, existsOld, nil)
			touched = append(touched, c.NewPath, c.Path)
		}
	}
	for _, p := range touched {
		s.publishProposals(ctx, p)
	}
	return nil
}

// real returns a file's text as the editor (or the disk) has it now, the
// agent's pending proposals left out.
func (f *editorFS) real(path string) (string, bool, error) {
	text, exists, _, err := f.current(path)
	return text, exists, err
}

// proposed returns the text the agent sees of path when a proposal is
// pending for it: held is false when none is.
func (f *editorFS) proposed(path string) (text string, deleted, held bool) {
	if !f.s.review.Proposes(path) {
		return "", false, false
	}
	cur, _, err := f.real(path)
	if err != nil {
		return "", false, false
	}
	return f.s.review.View(path, cur)
}
