package lsp

import (
	"context"
	"os"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/review"
	"github.com/reasonix/reasonix/tools"
)

// Review commands (docs/PROTOCOL.md).
const (
	cmdReviewAccept = "reasonix.review.accept"
	cmdReviewReject = "reasonix.review.reject"
	cmdReviewDiff   = "reasonix.review.diff"
)

// reviewResult is what reasonix.review.accept and reasonix.review.reject
// answer.
type reviewResult struct {
	// Hunks is how many hunks were accepted or rejected.
	Hunks int `json:"hunks"`
	// Pending is how many hunks of the file remain.
	Pending int `json:"pending"`
}

// commandFile resolves a review command's document to its path and the
// user's text of it, in which the proposal's hunks are placed.
func (s *Server) commandFile(args hunkData) (path, cur string, err error) {
	path = pathOf(uri.URI(args.URI))
	if path == "" {
		return "", "", jsonrpc2.NewError(jsonrpc2.InvalidParams, "the command needs the uri of a file")
	}
	cur, err = s.userText(path)
	return path, cur, err
}

// acceptChange applies one hunk (or every hunk that is not stale) of a
// proposal as a versioned workspace edit. An edit the editor refuses
// leaves the proposal as it was.
func (s *Server) acceptChange(ctx context.Context, args hunkData) (reviewResult, error) {
	if len(args.Hunks) > 0 {
		return s.acceptHunks(ctx, args.Hunks)
	}
	path, cur, err := s.commandFile(args)
	if err != nil {
		return reviewResult{}, err
	}
	f := &editorFS{s: s}
	taken, err := s.review.Take(path, cur, args.Hunk)
	if err != nil {
		s.publishProposals(ctx, path)
		return reviewResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "cannot accept: "+err.Error())
	}
	if !taken.Changes() {
		// Changes already made: accepting them keeps them as they are.
		s.publishProposals(ctx, path)
		return reviewResult{Hunks: len(taken.Hunks), Pending: s.pendingCount(path)}, nil
	}
	change := tools.Change{Kind: tools.Write, Path: path, Content: []byte(taken.Text)}
	if taken.Delete {
		change = tools.Change{Kind: tools.Delete, Path: path}
	}
	err = s.checkReviewWrite(path)
	if err == nil {
		err = f.apply(ctx, []tools.Change{change})
	}
	if err != nil {
		taken.Restore()
		s.publishProposals(ctx, path)
		return reviewResult{}, jsonrpc2.NewError(jsonrpc2.InternalError, "the change was not applied, and is still proposed: "+err.Error())
	}
	// The user's own change: a control file it touches keeps it, as an
	// approved edit does.
	if ws, err := s.workspaceFor(path); err == nil && ws.agent.Env != nil {
		ws.agent.Env.Control.Accept(path)
	}
	s.publishProposals(ctx, path)
	return reviewResult{Hunks: len(taken.Hunks), Pending: s.pendingCount(path)}, nil
}

// rejectChange drops one hunk (or all) of a proposal; the session that
// proposed it is told at its next turn. A change a shell command made is
// undone first, like an accepted proposal is applied: a versioned edit of
// an open document, the disk for a closed file.
func (s *Server) rejectChange(ctx context.Context, args hunkData) (reviewResult, error) {
	if len(args.Hunks) > 0 {
		return s.rejectHunks(ctx, args.Hunks)
	}
	path, cur, err := s.commandFile(args)
	if err != nil {
		return reviewResult{}, err
	}
	fs := &editorFS{s: s}
	reverted := 0
	if s.review.revertible(path, cur, args.Hunk) {
		taken, err := s.review.Revert(path, cur, args.Hunk)
		if err != nil {
			s.publishProposals(ctx, path)
			return reviewResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "cannot reject: "+err.Error())
		}
		if err := s.undoShellChange(ctx, fs, taken); err != nil {
			taken.Restore()
			s.publishProposals(ctx, path)
			return reviewResult{}, jsonrpc2.NewError(jsonrpc2.InternalError, "the change was not undone, and is still pending: "+err.Error())
		}
		taken.Reverted()
		reverted = len(taken.Hunks)
		if cur, err = s.userText(path); err != nil {
			return reviewResult{}, err
		}
	}
	// The errors the check found were in the text with what is rejected
	// now: they no longer hold.
	s.review.forgetNewErrors(path)
	n := 0
	if args.Hunk == 0 && s.review.Has(path) || args.Hunk != 0 && reverted == 0 {
		n, err = s.review.Reject(path, cur, args.Hunk)
		if err != nil {
			return reviewResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "cannot reject: "+err.Error())
		}
	}
	s.publishProposals(ctx, path)
	return reviewResult{Hunks: reverted + n, Pending: s.pendingCount(path)}, nil
}

// undoShellChange writes t.Text, the file's text with a shell command's
// changes undone: an open document gets a versioned edit, so its buffer
// and undo history follow; a closed file, which the command changed on
// disk, is written back on disk, keeping its mode. A file the command
// created is removed, and one it deleted created again, as the agent's
// own changes are: a resource operation of a workspace edit when the
// editor takes them, else on disk within the workspace's write roots.
func (s *Server) undoShellChange(ctx context.Context, fs *editorFS, t *review.Taken) error {
	path, text := t.Path, t.Text
	if err := s.checkReviewWrite(path); err != nil {
		return err
	}
	switch {
	case t.Delete:
		return fs.apply(ctx, []tools.Change{{Kind: tools.Delete, Path: path}})
	case t.Create:
		return fs.apply(ctx, []tools.Change{{Kind: tools.Write, Path: path, Content: []byte(text)}})
	}
	if _, open := s.docs.byPath(path); open {
		return fs.apply(ctx, []tools.Change{{Kind: tools.Write, Path: path, Content: []byte(text)}})
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), info.Mode().Perm())
}

func (s *Server) pendingCount(path string) int {
	cur, err := s.userText(path)
	if err != nil {
		return 0
	}
	f, _ := s.review.Pending(path, cur)
	return len(f.Hunks)
}

// checkReviewWrite refuses to accept or undo a change of path where the
// agent may not write: the path, checked when the change was made, may
// have become a link to a place outside the write roots since (a shell
// command can make one), and the user's click must not write through it.
func (s *Server) checkReviewWrite(path string) error {
	ws, err := s.workspaceFor(path)
	if err != nil {
		return err
	}
	if ws.agent.Env == nil || ws.agent.Env.Guard == nil {
		return nil
	}
	_, err = ws.agent.Env.Guard.CheckWrite(path)
	return err
}
