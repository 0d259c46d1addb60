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
	// target is a file a change says should read want (nil: not exist).
	type target struct {
		path string
		want *string
	}
	var touched []string
	for _, c := range changes {
		var targets []target
		switch c.Kind {
		case tools.Write:
			want := string(c.Content)
			targets = []target{{c.Path, &want}}
		case tools.Delete:
			targets = []target{{c.Path, nil}}
		case tools.Rename:
			// A move is two proposals: the new file with the content the
			// agent sees, and the removal of the old one.
			content, err := f.ReadFile(c.Path)
			if err != nil {
				return err
			}
			want := string(content)
			targets = []target{{c.NewPath, &want}, {c.Path, nil}}
		}
		// Each proposal is recorded against the user's text; all of a
		// change's files are read first, so it is proposed whole or not
		// at all.
		curs := make([]fileText, len(targets))
		for i, t := range targets {
			cur, err := s.currentText(t.path, userView)
			if err != nil {
				return err
			}
			curs[i] = cur
		}
		for i, t := range targets {
			s.review.Propose(session, t.path, curs[i].text, curs[i].exists, t.want)
			touched = append(touched, t.path)
		}
	}
	for _, p := range touched {
		s.publishProposals(ctx, p)
	}
	return nil
}
