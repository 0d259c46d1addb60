package lsp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/lsp/review"
	"github.com/reasonix/reasonix/tools"
)

// rejectionNote tells a session's next turn which of its proposed changes
// the user rejected (rs, taken from the store), as an attachment of the
// user message: the history before it stays as it was.
func (s *Server) rejectionNote(rs []review.Rejection) (agent.Attachment, bool) {
	if len(rs) == 0 {
		return agent.Attachment{}, false
	}
	var b strings.Builder
	b.WriteString("(The user rejected these changes you proposed; they were not applied:")
	for _, r := range rs {
		h := r.Hunk
		switch {
		case h.Applied && h.Created:
			fmt.Fprintf(&b, "\n- %s, which your shell command created, was removed", s.relPath(r.Path))
		case h.Applied && h.Delete:
			fmt.Fprintf(&b, "\n- %s, which your shell command deleted, was put back; it reads:\n%s", s.relPath(r.Path), fence(h.Old))
		case h.Applied && h.Old == "":
			fmt.Fprintf(&b, "\n- in %s, your shell command's insertion was undone:\n%s", s.relPath(r.Path), fence(h.New))
		case h.Applied:
			fmt.Fprintf(&b, "\n- in %s, your shell command's change was undone; the file reads again:\n%s  instead of:\n%s", s.relPath(r.Path), fence(h.Old), fence(h.New))
		case h.Delete:
			fmt.Fprintf(&b, "\n- deleting %s", s.relPath(r.Path))
		case h.Old == "":
			fmt.Fprintf(&b, "\n- in %s, inserting:\n%s", s.relPath(r.Path), fence(h.New))
		default:
			fmt.Fprintf(&b, "\n- in %s, replacing:\n%s  with:\n%s", s.relPath(r.Path), fence(h.Old), fence(h.New))
		}
	}
	b.WriteString(")")
	return agent.Attachment{Kind: agent.AttachNote, Text: b.String()}, true
}

func fence(t string) string {
	return "```\n" + strings.TrimRight(t, "\n") + "\n```\n"
}

// showNewErrors puts the errors a turn's check left, and the outcome of
// the tests that reach its changes, where the user sees them. In propose
// mode they are kept with the proposals of their files (each turn's check
// replaces the last's) and the message says they come with accepting
// them; tests the turn broke get a message of their own (a test failing
// before the turn too is said only with the outcome). Every client gets
// the summary as a message: the progress end, which has it too, is not
// shown by every editor.
func (s *Server) showNewErrors(ws *workspace, res agent.TurnResult) {
	proposing := ws != nil && s.review.proposing(ws.root)
	if proposing {
		byPath := map[string][]tools.Diagnostic{}
		for _, e := range res.NewErrors {
			if e.Path != "" && s.review.Proposes(e.Path) {
				byPath[e.Path] = append(byPath[e.Path], e)
			}
		}
		publish := s.review.replaceNewErrors(ws.root, byPath)
		tests := map[string]string{}
		if line := agent.TestsSummary(res.Tests); line != "" {
			for _, c := range res.Changes {
				if c.Abs != "" && s.review.Proposes(c.Abs) {
					tests[c.Abs] = line
				}
			}
		}
		for _, p := range s.review.replaceTests(ws.root, tests) {
			if !slices.Contains(publish, p) {
				publish = append(publish, p)
			}
		}
		for _, p := range publish {
			s.publishProposals(s.ctx, p)
		}
	}
	if res.Tests != nil && res.Tests.Regressed() {
		s.showWarning(s.ctx, "Reasonix: "+agent.TestsSummary(res.Tests))
	}
	n := agent.NewErrorsSummary(res.NewErrors)
	if n == "" {
		return
	}
	msg := "Reasonix: " + n
	if proposing {
		msg += " if the proposed changes are accepted"
	}
	s.showWarning(s.ctx, msg)
}
