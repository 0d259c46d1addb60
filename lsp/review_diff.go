package lsp

import (
	"context"
	"fmt"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/review"
)

// diffResult is what reasonix.review.diff answers: the diff file it
// wrote and asked the editor to show.
type diffResult struct {
	URI   string `json:"uri"`
	Shown bool   `json:"shown"`
}

// showDiff writes the proposal of a file as a unified diff into a
// temporary file and asks the editor to open it (window/showDocument). A
// plain file is what every editor can open; clients without showDocument
// get its uri in the answer and in a message.
func (s *Server) showDiff(ctx context.Context, args hunkData) (diffResult, error) {
	path, cur, err := s.commandFile(args)
	if err != nil {
		return diffResult{}, err
	}
	f, ok := s.review.Pending(path, cur)
	if !ok {
		return diffResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "no pending change for "+s.relPath(path))
	}
	rel := s.relPath(path)
	u, name, shown, err := s.showFile(ctx, filepath.Base(path)+".diff", review.Unified(rel, cur, f))
	if err != nil {
		return diffResult{}, fmt.Errorf("writing the diff: %w", err)
	}
	if shown {
		return diffResult{URI: string(u), Shown: true}, nil
	}
	showMessage.notify(ctx, s, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "Reasonix: the proposed changes to " + rel + " are in " + name})
	return diffResult{URI: string(u)}, nil
}
