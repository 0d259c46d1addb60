package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/review"
)

// reviewParams is the reasonix/review request: the pending proposals of
// one document, or of all when uri is empty.
type reviewParams struct {
	URI string `json:"uri,omitempty"`
}

type reviewFile struct {
	URI   string       `json:"uri"`
	Kind  review.Kind  `json:"kind"`
	Hunks []reviewHunk `json:"hunks"`
}

type reviewHunk struct {
	ID      int            `json:"id"`
	Range   protocol.Range `json:"range"`
	OldText string         `json:"oldText"`
	NewText string         `json:"newText"`
	Stale   bool           `json:"stale"`
	// Applied marks a change a shell command made, on disk already;
	// its range is NewText's.
	Applied bool `json:"applied,omitempty"`
	// Created marks the one applied hunk of a file a shell command
	// created: rejecting it removes the file.
	Created bool `json:"created,omitempty"`
}

type reviewList struct {
	Files []reviewFile `json:"files"`
}

// listReview answers reasonix/review.
func (s *Server) listReview(_ context.Context, p reviewParams) (reviewList, error) {
	paths := s.review.Paths()
	if p.URI != "" {
		want := pathOf(uri.URI(p.URI))
		paths = nil
		if s.review.Has(want) {
			paths = []string{want}
		}
	}
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()
	out := reviewList{Files: []reviewFile{}}
	for _, path := range paths {
		cur, err := s.userText(path)
		if err != nil {
			continue
		}
		f, ok := s.review.Pending(path, cur)
		if !ok {
			continue
		}
		rf := reviewFile{URI: string(uri.File(path)), Kind: f.Kind, Hunks: []reviewHunk{}}
		for _, h := range f.Hunks {
			rf.Hunks = append(rf.Hunks, reviewHunk{ID: h.ID, Range: hunkRange(cur, h, enc), OldText: h.Old, NewText: h.New, Stale: h.Stale, Applied: h.Applied, Created: h.Created})
		}
		out.Files = append(out.Files, rf)
	}
	return out, nil
}
