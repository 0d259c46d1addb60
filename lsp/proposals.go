package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/lsp/review"
	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// In propose mode (review = "propose") the agent's changes do not reach
// the buffers: they wait in the server's review.Store, one proposal a
// file, and every editor shows them with plain LSP. Each hunk is a
// diagnostic (source "reasonix") whose code actions accept or reject it;
// accepting sends a versioned workspace edit of that hunk alone. The
// agent meanwhile reads its own proposed text, so a multi-step turn stays
// coherent, and the next turn of the session is told what the user
// rejected.
//
// Files a shell command changed are on disk already; they join the review
// as applied hunks (recordShellChange): accepting one keeps it, rejecting
// one puts back the text it replaced. A file a command created or deleted
// is one applied hunk: rejecting it removes the file, or creates it again.
// The agent reads them from the disk like any file.

// Review modes, the values of the review setting.
const (
	reviewApply   = "apply"
	reviewPropose = "propose"
)

// kindReview is the code action kind of the review actions.
const kindReview protocol.CodeActionKind = "quickfix.reasonix.review"

// Review commands (docs/PROTOCOL.md).
const (
	cmdReviewAccept = "reasonix.review.accept"
	cmdReviewReject = "reasonix.review.reject"
	cmdReviewDiff   = "reasonix.review.diff"
)

// diagnosticCodeProposal marks the diagnostics of proposed changes.
const diagnosticCodeProposal = "reasonix.proposal"

// reviewModeFor resolves the review setting for this client: what the
// configuration says, else apply for a client with a review panel of its
// own and propose for the others.
func (s *Server) reviewModeFor(configured string) string {
	if configured != "" {
		return configured
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.caps.reviewPanel {
		return reviewApply
	}
	return reviewPropose
}

// proposing reports whether the agents of the workspace at root propose
// their changes.
func (s *Server) proposing(root string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reviewModes[root] == reviewPropose
}

// propose keeps changes as proposals instead of applying them.
func (f *editorFS) propose(ctx context.Context, changes []tools.Change) error {
	s := f.s
	session := agent.CallSession(ctx)
	var touched []string
	for _, c := range changes {
		switch c.Kind {
		case tools.Write:
			cur, exists, err := f.real(c.Path)
			if err != nil {
				return err
			}
			want := string(c.Content)
			s.review.Propose(session, c.Path, cur, exists, &want)
			touched = append(touched, c.Path)
		case tools.Delete:
			cur, exists, err := f.real(c.Path)
			if err != nil {
				return err
			}
			s.review.Propose(session, c.Path, cur, exists, nil)
			touched = append(touched, c.Path)
		case tools.Rename:
			// A move is two proposals: the new file with the content the
			// agent sees, and the removal of the old one.
			content, err := f.ReadFile(c.Path)
			if err != nil {
				return err
			}
			curNew, existsNew, err := f.real(c.NewPath)
			if err != nil {
				return err
			}
			curOld, existsOld, err := f.real(c.Path)
			if err != nil {
				return err
			}
			want := string(content)
			s.review.Propose(session, c.NewPath, curNew, existsNew, &want)
			s.review.Propose(session, c.Path, curOld, existsOld, nil)
			touched = append(touched, c.NewPath, c.Path)
		}
	}
	for _, p := range touched {
		s.publishProposals(ctx, p)
	}
	return nil
}

// real returns a file's text as the editor (or the disk) has it now, the
// agent's pending proposals left out.
func (f *editorFS) real(path string) (string, bool, error) {
	text, exists, _, err := f.current(path)
	return text, exists, err
}

// proposed returns the text the agent sees of path when a proposal is
// pending for it: held is false when none is.
func (f *editorFS) proposed(path string) (text string, deleted, held bool) {
	if !f.s.review.Proposes(path) {
		return "", false, false
	}
	cur, _, err := f.real(path)
	if err != nil {
		return "", false, false
	}
	return f.s.review.View(path, cur)
}

// publishProposals sends the diagnostics of path's pending hunks (none
// clears them).
func (s *Server) publishProposals(_ context.Context, path string) {
	s.publishMu.Lock()
	defer s.publishMu.Unlock()
	cur, _, err := (&editorFS{s: s}).real(path)
	if err != nil {
		return
	}
	s.mu.Lock()
	enc, tag := s.enc, s.caps.unnecessaryTag
	s.mu.Unlock()
	diags := []protocol.Diagnostic{}
	if f, ok := s.review.Pending(path, cur); ok {
		for _, h := range f.Hunks {
			diags = append(diags, hunkDiagnostic(cur, f, h, enc, tag))
		}
		s.mu.Lock()
		errs := s.newErrors[path]
		s.mu.Unlock()
		if s.review.Proposes(path) {
			for _, e := range errs {
				diags = append(diags, newErrorDiagnostic(cur, f, e, enc))
			}
		}
	}
	params := &protocol.PublishDiagnosticsParams{URI: uri.File(path), Diagnostics: diags}
	// The connection's context: a turn cancelled right after proposing
	// must not leave the editor showing something else.
	if err := publishDiagnostics.notify(s.ctx, s, params); err != nil {
		s.log.Warn("publishing proposals", "path", path, "err", err)
	}
}

// hunkRange is the range of a hunk's old text in cur: whole lines, or the
// start of the line an insertion goes before.
func hunkRange(cur string, h *review.Hunk, enc wire.Encoding) protocol.Range {
	start := wire.Position(cur, h.Start, enc)
	end := wire.Position(cur, h.End, enc)
	if h.Stale {
		end = start
	}
	return protocol.Range{Start: start, End: end}
}

// hunkData identifies a hunk in a diagnostic's data and a command's
// argument.
type hunkData struct {
	URI  string `json:"uri"`
	Hunk int    `json:"hunk,omitempty"`
}

func hunkDiagnostic(cur string, f review.File, h *review.Hunk, enc wire.Encoding, tag bool) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:    hunkRange(cur, h, enc),
		Severity: protocol.DiagnosticSeverityInformation,
		Source:   protocol.NewOptional("reasonix"),
		Code:     protocol.String(diagnosticCodeProposal),
		Message:  protocol.String(hunkMessage(f, h)),
	}
	d.Data, _ = json.Marshal(hunkData{URI: string(uri.File(f.Path)), Hunk: h.ID})
	if tag && h.Old != "" && !h.Stale && !h.Applied {
		d.Tags = protocol.NewDiagnosticTags(protocol.DiagnosticTagUnnecessary)
	}
	return d
}

// hunkMessage says what a hunk does, with its new text.
func hunkMessage(f review.File, h *review.Hunk) string {
	if h.Applied {
		return appliedMessage(h)
	}
	switch {
	case h.Stale:
		return "Stale proposed change: the text it replaces was edited since; reject it, or ask again"
	case h.Delete:
		return "Proposed change: delete this file"
	case h.Old == "" && f.Kind == review.Create:
		return "Proposed change: create this file with:\n" + h.New
	case h.Old == "":
		return "Proposed change: insert before this line:\n" + h.New
	case h.New == "":
		return fmt.Sprintf("Proposed change: delete %s", lines(h.Old))
	}
	return fmt.Sprintf("Proposed change: replace %s with:\n%s", lines(h.Old), h.New)
}

// appliedMessage says what a change a shell command made does: its range
// is the text it made, so the message shows what was there before.
func appliedMessage(h *review.Hunk) string {
	const made = "Change made by a shell command, already on disk (reject it to undo it): "
	switch {
	case h.Stale:
		return "Stale change made by a shell command: its text was edited since; reject it to forget it"
	case h.Created:
		return "File created by a shell command, already on disk (reject it to remove it), with:\n" + h.New
	case h.Delete:
		return "File deleted by a shell command (reject it to put it back), which read:\n" + h.Old
	case h.Old == "":
		return made + fmt.Sprintf("inserted %s", lines(h.New))
	case h.New == "":
		return made + fmt.Sprintf("deleted before this line:\n%s", h.Old)
	}
	return made + fmt.Sprintf("%s, which read:\n%s", lines(h.New), h.Old)
}

func lines(t string) string {
	n := strings.Count(t, "\n")
	if !strings.HasSuffix(t, "\n") {
		n++
	}
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// isProposal reports whether d is one of the proposal diagnostics.
func isProposal(d *protocol.Diagnostic) bool {
	src, _ := d.Source.Get()
	return src == "reasonix" && diagnosticCode(d) == diagnosticCodeProposal
}

// reviewActions are the code actions of the proposal pending for the
// document in range: accept or reject each hunk it touches, then the
// whole file's.
func (s *Server) reviewActions(params *protocol.CodeActionParams) []protocol.CommandOrCodeAction {
	path := pathOf(params.TextDocument.URI)
	if path == "" || !s.review.Has(path) {
		return nil
	}
	cur, _, err := (&editorFS{s: s}).real(path)
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

// reviewResult is what reasonix.review.accept and reasonix.review.reject
// answer.
type reviewResult struct {
	// Hunks is how many hunks were accepted or rejected.
	Hunks int `json:"hunks"`
	// Pending is how many hunks of the file remain.
	Pending int `json:"pending"`
}

// argPath resolves a review command's document.
func argPath(args hunkData) (string, error) {
	path := pathOf(uri.URI(args.URI))
	if path == "" {
		return "", jsonrpc2.NewError(jsonrpc2.InvalidParams, "the command needs the uri of a file")
	}
	return path, nil
}

// acceptChange applies one hunk (or every hunk that is not stale) of a
// proposal as a versioned workspace edit. An edit the editor refuses
// leaves the proposal as it was.
func (s *Server) acceptChange(ctx context.Context, args hunkData) (reviewResult, error) {
	path, err := argPath(args)
	if err != nil {
		return reviewResult{}, err
	}
	f := &editorFS{s: s}
	cur, _, err := f.real(path)
	if err != nil {
		return reviewResult{}, err
	}
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
	path, err := argPath(args)
	if err != nil {
		return reviewResult{}, err
	}
	fs := &editorFS{s: s}
	cur, _, err := fs.real(path)
	if err != nil {
		return reviewResult{}, err
	}
	reverted := 0
	if s.revertible(path, cur, args.Hunk) {
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
		if cur, _, err = fs.real(path); err != nil {
			return reviewResult{}, err
		}
	}
	// The errors the check found were in the text with what is rejected
	// now: they no longer hold.
	s.mu.Lock()
	delete(s.newErrors, path)
	s.mu.Unlock()
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

// revertible reports whether rejecting hunk id of path's proposal (0:
// all) undoes a change made already: the hunk is applied and not stale,
// or, for all, one of them is.
func (s *Server) revertible(path, cur string, id int) bool {
	f, ok := s.review.Pending(path, cur)
	if !ok {
		return false
	}
	for _, h := range f.Hunks {
		if h.Applied && !h.Stale && (id == 0 || h.ID == id) {
			return true
		}
	}
	return false
}

func (s *Server) pendingCount(path string) int {
	cur, _, err := (&editorFS{s: s}).real(path)
	if err != nil {
		return 0
	}
	f, _ := s.review.Pending(path, cur)
	return len(f.Hunks)
}

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
	path, err := argPath(args)
	if err != nil {
		return diffResult{}, err
	}
	cur, _, err := (&editorFS{s: s}).real(path)
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

// showFile writes text as a file of the connection's temporary directory
// (diffDir) and, when the client can, asks it to open the file
// (window/showDocument). A pattern with "*" gets a name of its own each
// time (os.CreateTemp), so an editor that has an earlier one open does
// not show it instead; shown reports whether the editor opened it.
func (s *Server) showFile(ctx context.Context, pattern, text string) (u uri.URI, name string, shown bool, err error) {
	dir, err := s.diffDir()
	if err != nil {
		return "", "", false, err
	}
	if strings.Contains(pattern, "*") {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return "", "", false, err
		}
		name = f.Name()
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", "", false, err
		}
	} else {
		name = filepath.Join(dir, pattern)
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			return "", "", false, err
		}
	}
	u = uri.File(name)
	s.mu.Lock()
	can := s.caps.showDocument
	s.mu.Unlock()
	if can {
		yes := true
		res, err := showDocument.call(ctx, s, &protocol.ShowDocumentParams{URI: u, TakeFocus: &yes})
		shown = err == nil && res != nil && res.Success
	}
	return u, name, shown, nil
}

// diffDir returns the connection's directory for the files it shows (a
// proposal's diff, a plan), made on first use; teardown removes it.
func (s *Server) diffDir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.diffs == "" {
		dir, err := os.MkdirTemp("", "reasonix-review-")
		if err != nil {
			return "", err
		}
		s.diffs = dir
	}
	return s.diffs, nil
}

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
		cur, _, err := (&editorFS{s: s}).real(path)
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

// diagnosticCodeNewError marks the errors the check found in proposed
// text.
const diagnosticCodeNewError = "reasonix.newError"

// newErrorDiagnostic shows an error the check found in the proposed text
// of a file (the agent's view) in its text now: on the hunk whose new
// text has the error's line, else on the line it corresponds to.
func newErrorDiagnostic(cur string, f review.File, e tools.Diagnostic, enc wire.Encoding) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Severity: protocol.DiagnosticSeverityWarning,
		Source:   protocol.NewOptional("reasonix"),
		Code:     protocol.String(diagnosticCodeNewError),
		Message:  protocol.String("New error if accepted: " + e.Message),
	}
	line := e.Line - 1 // in the proposed text, 0-based
	shift := 0         // proposed lines minus current lines before here
	for _, h := range f.Hunks {
		if h.Stale || h.Applied || h.Delete {
			continue
		}
		start := review.Line(cur, h.Start) + shift
		added := strings.Count(h.New, "\n")
		if line >= start && line < start+max(added, 1) {
			d.Range = hunkRange(cur, h, enc)
			return d
		}
		if line < start {
			break
		}
		shift += added - strings.Count(h.Old, "\n")
	}
	at := max(line-shift, 0)
	off := lineStart(cur, at)
	// Column counts characters of the line.
	for col := 1; col < e.Column && off < len(cur) && cur[off] != '\n'; col++ {
		_, size := utf8.DecodeRuneInString(cur[off:])
		off += size
	}
	p := wire.Position(cur, off, enc)
	d.Range = protocol.Range{Start: p, End: p}
	return d
}

// lineStart is the offset of 0-based line n of text (its end when text
// has fewer lines).
func lineStart(text string, n int) int {
	off := 0
	for ; n > 0; n-- {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return off
}

// showNewErrors puts the errors a turn's check left where the user sees
// them. In propose mode they are kept with the proposals of their files
// (each turn's check replaces the last's) and the message says they come
// with accepting them. Every client gets the summary as a message: the
// progress end, which has it too, is not shown by every editor.
func (s *Server) showNewErrors(ws *workspace, res agent.TurnResult) {
	proposing := ws != nil && s.proposing(ws.root)
	if proposing {
		byPath := map[string][]tools.Diagnostic{}
		for _, e := range res.NewErrors {
			if e.Path != "" && s.review.Proposes(e.Path) {
				byPath[e.Path] = append(byPath[e.Path], e)
			}
		}
		s.mu.Lock()
		old := s.newErrors
		// Other workspaces keep theirs.
		for p, errs := range old {
			if !under(p, ws.root) {
				byPath[p] = errs
			}
		}
		s.newErrors = byPath
		s.mu.Unlock()
		for p := range old {
			if _, ok := byPath[p]; !ok {
				s.publishProposals(s.ctx, p)
			}
		}
		for p := range byPath {
			s.publishProposals(s.ctx, p)
		}
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
