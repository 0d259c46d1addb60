package lsp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/reasonix/reasonix/agent"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// beforeShellProposals runs before a shell command in propose mode. A
// command sees the files on disk, so proposals it cannot see are decided
// first: the user is asked to accept them all (then they are applied and
// saved like any edit) or to run the command without them, which the
// model is told.
func (s *Server) beforeShellProposals(ctx context.Context, w *workspace) (string, error) {
	paths := s.proposedUnder(w.root)
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
	s.mu.Lock()
	declined := s.declinedGen == gen
	s.mu.Unlock()
	if declined {
		// Asked already about these very proposals: the answer stands.
		return without, nil
	}
	const accept = "Accept and run"
	var item *protocol.MessageActionItem
	err := errCannotAsk // a client that cannot be asked runs it without them
	if s.capsNow().askWay(false) != askNever {
		err = s.await(ctx, "The question whether to accept the pending proposals", "the command runs without them", func(ctx context.Context) (err error) {
			item, err = s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
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
		s.mu.Lock()
		s.declinedGen = gen
		s.mu.Unlock()
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

// proposedUnder lists the files under root with proposed changes (not
// only changes made already).
func (s *Server) proposedUnder(root string) []string {
	var out []string
	for _, p := range s.review.Paths() {
		if under(p, root) && s.review.Proposes(p) {
			out = append(out, p)
		}
	}
	return out
}

// under reports whether path is root or inside it.
func under(path, root string) bool {
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator))
}

// noteShellBases records, just before a shell command, the disk text of
// the files that had proposed changes (accepted now, or not): the text the
// command's changes to them are made against. The turn's own record of
// such a file's text before is what the agent saw, with the proposals in
// it.
func (s *Server) noteShellBases(paths []string) {
	bases := map[string]string{}
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			bases[p] = string(data)
		}
	}
	s.mu.Lock()
	s.shellBases = bases
	s.mu.Unlock()
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
	if err != nil || !s.proposing(w.root) {
		return
	}
	before := string(c.BeforeData)
	s.mu.Lock()
	base, hasBase := s.shellBases[c.Abs]
	s.mu.Unlock()
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
