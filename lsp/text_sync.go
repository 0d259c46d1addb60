package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// The overlay mirrors every open document, so the agent's tools read what
// the user sees, unsaved text included.

func (s *Server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	td := params.TextDocument
	s.docs.open(td.URI, string(td.LanguageID), td.Version, td.Text)
	s.edits.forget(pathOf(td.URI))
	s.refreshProposals(ctx, pathOf(td.URI))
	return nil
}

// refreshProposals re-anchors the proposal pending for path, if any, in
// the text the user now has, and shows it again.
func (s *Server) refreshProposals(ctx context.Context, path string) {
	if path != "" && s.review.Has(path) {
		s.publishProposals(ctx, path)
	}
}

func (s *Server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()
	td := params.TextDocument
	if err := s.docs.change(td.URI, td.Version, params.ContentChanges, enc); err != nil {
		// The mirror no longer matches the editor. Say so loudly: edits
		// computed against it would be wrong.
		s.logMessage(ctx, protocol.MessageTypeError, "Reasonix lost track of "+string(td.URI)+": "+err.Error()+"; reopen the file")
		return err
	}
	s.edits.forget(pathOf(td.URI))
	s.refreshProposals(ctx, pathOf(td.URI))
	return nil
}

func (s *Server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	s.docs.close(params.TextDocument.URI)
	return nil
}

func (s *Server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	s.edits.saved(pathOf(params.TextDocument.URI))
	return nil
}
