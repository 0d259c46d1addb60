package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/tools"
)

// beforeShell runs before every shell command: what the agent changed must
// be on disk first. Clients that implement reasonix/saveDocuments save the
// documents themselves. For others the agent's changes to files the editor
// does not have open went to disk as they were made (editorFS.apply); the
// server writes only what is left of those (an edit to a document closed
// since), never an open one (that would put its buffer in conflict with the
// disk), and tells the model which edits the command cannot see.
func (s *Server) beforeShell(ctx context.Context, w *workspace) (string, error) {
	proposed := s.review.proposedUnder(w.root)
	note, err := s.beforeShellProposals(ctx, w)
	if err != nil {
		return "", err
	}
	saved, err := s.saveBeforeShell(ctx, w)
	s.review.noteShellBases(proposed)
	if note != "" && saved != "" {
		note += "\n"
	}
	return note + saved, err
}

// saveBeforeShell saves the agent's edits before a shell command.
func (s *Server) saveBeforeShell(ctx context.Context, w *workspace) (string, error) {
	paths := s.edits.dirtyUnder(w.root)
	if len(paths) == 0 {
		return "", nil
	}
	s.mu.Lock()
	saveDocs := s.caps.saveDocuments
	s.mu.Unlock()

	var unsaved []string
	if saveDocs {
		var err error
		if unsaved, err = s.saveThroughClient(ctx, paths); err != nil {
			return "", fmt.Errorf("saving the edited files before the command: %w", err)
		}
	} else {
		for _, p := range paths {
			if _, open := s.docs.byPath(p); open {
				unsaved = append(unsaved, s.relPath(p))
				continue
			}
			c, ok := s.edits.lookup(p)
			if !ok {
				continue
			}
			var change tools.Change
			if c == nil {
				change = tools.Change{Kind: tools.Delete, Path: p}
			} else {
				change = tools.Change{Kind: tools.Write, Path: p, Content: []byte(*c)}
			}
			if err := w.agent.Disk.Apply(ctx, []tools.Change{change}); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("writing %s before the command: %w", s.relPath(p), err)
			}
			s.edits.saved(p)
		}
	}
	if len(unsaved) == 0 {
		return "", nil
	}
	return "Note: the editor holds unsaved edits to " + strings.Join(unsaved, ", ") +
		"; this command sees the versions on disk.", nil
}

// saveThroughClient asks a client that declared saveDocuments to save
// paths, and returns those it did not save, with its reasons.
func (s *Server) saveThroughClient(ctx context.Context, paths []string) (unsaved []string, err error) {
	params := saveDocumentsParams{}
	for _, p := range paths {
		params.URIs = append(params.URIs, string(uri.File(p)))
	}
	res, err := saveDocuments.call(ctx, s, params)
	if err != nil {
		return nil, err
	}
	for _, u := range res.Saved {
		s.edits.saved(pathOf(uri.URI(u)))
	}
	for _, fail := range res.Failed {
		unsaved = append(unsaved, s.relPath(pathOf(uri.URI(fail.URI)))+" ("+fail.Reason+")")
	}
	return unsaved, nil
}

// saveRewound saves, through a client that declared saveDocuments, the
// files of closed that a rewind changed in the editor: they were closed
// when it began, so the user expects them on disk, not in buffers the
// editor opened to take the edit. Open documents stay unsaved, as after
// any edit of the agent's. It returns those the client did not save.
func (s *Server) saveRewound(ctx context.Context, root string, closed []string) ([]string, error) {
	s.mu.Lock()
	saveDocs := s.caps.saveDocuments
	s.mu.Unlock()
	if !saveDocs {
		return nil, nil // the server wrote them itself (editorFS.apply)
	}
	var paths []string
	for _, p := range s.edits.dirtyUnder(root) {
		if slices.Contains(closed, p) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	return s.saveThroughClient(ctx, paths)
}
