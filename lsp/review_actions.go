package lsp

import (
	"fmt"

	"go.lsp.dev/protocol"
)

// kindReview is the code action kind of the review actions.
const kindReview protocol.CodeActionKind = "quickfix.reasonix.review"

// reviewActions are the code actions of the proposal pending for the
// document in range: accept or reject each hunk it touches, then the
// whole file's.
func (s *Server) reviewActions(params *protocol.CodeActionParams) []protocol.CommandOrCodeAction {
	path := pathOf(params.TextDocument.URI)
	if path == "" || !s.review.Has(path) {
		return nil
	}
	cur, err := s.userText(path)
	if err != nil {
		return nil
	}
	f, ok := s.review.Pending(path, cur)
	if !ok {
		return nil
	}
	s.mu.Lock()
	literals, enc := s.caps.codeActionLiterals, s.enc
	s.mu.Unlock()
	u := string(params.TextDocument.URI)
	var out []protocol.CommandOrCodeAction
	add := func(title, command string, args hunkData, diags []protocol.Diagnostic) {
		if !kindWanted(kindReview, params.Context.Only) {
			return
		}
		out = append(out, commandAction(literals, title, kindReview, command, args, diags))
	}
	lo, hi := params.Range.Start.Line, params.Range.End.Line
	groups, offered := s.symbolGroups(), map[string]bool{}
	for _, h := range f.Hunks {
		r := hunkRange(cur, h, enc)
		last := r.End.Line
		if r.End.Character == 0 && r.End.Line > r.Start.Line {
			last-- // the range ends at the start of the next line
		}
		if r.Start.Line > hi || last < lo {
			continue
		}
		diags := []protocol.Diagnostic{hunkDiagnostic(cur, f, h, enc, false)}
		if !h.Stale {
			add("Accept this change", cmdReviewAccept, hunkData{URI: u, Hunk: h.ID}, diags)
		}
		add("Reject this change", cmdReviewReject, hunkData{URI: u, Hunk: h.ID}, diags)
		symbolActions(groups, u, h.ID, offered, func(title, command string, args hunkData) { add(title, command, args, diags) })
	}
	n := len(f.Hunks)
	add(fileTitle("Accept", n), cmdReviewAccept, hunkData{URI: u}, nil)
	add(fileTitle("Reject", n), cmdReviewReject, hunkData{URI: u}, nil)
	add("Show diff", cmdReviewDiff, hunkData{URI: u}, nil)
	return out
}

// fileTitle is the title of a whole file's action.
func fileTitle(verb string, n int) string {
	if n == 1 {
		return verb + " the 1 change in this file"
	}
	return fmt.Sprintf("%s all %d changes in this file", verb, n)
}
