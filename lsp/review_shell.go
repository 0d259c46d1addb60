package lsp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/agent"
)

// beforeShellProposals runs before a shell command in propose mode. A
// command sees the files on disk, so proposals it cannot see are decided
// first: the user is asked to accept them all (then they are applied and
// saved like any edit) or to run the command without them, which the
// model is told.
func (s *Server) beforeShellProposals(ctx context.Context, w *workspace) (string, error) {
	paths := s.review.proposedUnder(w.root)
	if len(paths) == 0 {
		return "", nil
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = s.relPath(p)
	}
	without := "Note: the user has not accepted your proposed changes to " + strings.Join(names, ", ") +
		"; this command sees those files without them."
	gen := s.review.Generation()
	if s.review.declined(gen) {
		// Asked already about these very proposals: the answer stands.
		return without, nil
	}
	const accept = "Accept and run"
	var item *protocol.MessageActionItem
	err := errCannotAsk // a client that cannot be asked runs it without them
	if s.capsNow().askWay(false) != askNever {
		err = s.await(ctx, "The question whether to accept the pending proposals", "the command runs without them", func(ctx context.Context) (err error) {
			item, err = showMessageRequest.call(ctx, s, &protocol.ShowMessageRequestParams{
				Type:    protocol.MessageTypeInfo,
				Message: "Reasonix is about to run a command, and its proposed changes to " + strings.Join(names, ", ") + " are pending. Accept them first?",
				Actions: []protocol.MessageActionItem{{Title: accept}, {Title: "Run without them"}},
			})
			return err
		})
	}
	if err != nil && ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil || item == nil || item.Title != accept {
		s.review.decline(gen)
		return without, nil
	}
	var failed []string
	for _, p := range paths {
		if _, err := s.acceptChange(ctx, hunkData{URI: string(uri.File(p))}); err != nil {
			var je *jsonrpc2.Error
			msg := err.Error()
			if errors.As(err, &je) {
				msg = je.Message
			}
			failed = append(failed, s.relPath(p)+" ("+msg+")")
		}
	}
	if len(failed) > 0 {
		return "Note: some proposed changes could not be applied, and this command does not see them: " + strings.Join(failed, ", ") + ".", nil
	}
	return "", nil
}

// recordShellChange makes a change a shell command made to a file part
// of the review, in propose mode: the file is on disk already, so the
// change is recorded as applied hunks against its text before. A file the
// command created is one applied hunk whose rejection removes it; a file
// it deleted, one whose rejection writes it back, when its text before is
// known and is text: otherwise it cannot be put back, and the log says so.
func (s *Server) recordShellChange(session string, c *agent.FileChange) {
	if c == nil || c.Abs == "" {
		return
	}
	w, err := s.workspaceFor(c.Abs)
	if err != nil || !s.review.proposing(w.root) {
		return
	}
	before := string(c.BeforeData)
	base, hasBase := s.review.shellBase(c.Abs)
	if hasBase {
		before = base
	}
	switch c.Status {
	case agent.FileModified:
		if !c.BeforeKnown || !c.BeforeExisted {
			return
		}
		now, err := os.ReadFile(c.Abs)
		if err != nil {
			return
		}
		s.review.Record(session, c.Abs, before, string(now))
	case agent.FileCreated:
		now, err := os.ReadFile(c.Abs)
		if err != nil {
			return
		}
		s.review.RecordCreated(session, c.Abs, string(now))
	case agent.FileDeleted:
		if !hasBase && (!c.BeforeKnown || !isText(c.BeforeData)) {
			s.logMessage(s.ctx, protocol.MessageTypeLog, "Reasonix: the deletion of "+s.relPath(c.Abs)+
				" by a shell command cannot be reviewed: its text before was not kept (too large, or not text)")
			return
		}
		s.review.RecordDeleted(session, c.Abs, before)
	default:
		return
	}
	s.publishProposals(s.ctx, c.Abs)
}

// isText reports whether data can be written back as a document's text.
func isText(data []byte) bool {
	return utf8.Valid(data) && !bytes.Contains(data, []byte{0})
}
