package lsp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// The agent's file changes go to the editor as workspace edits, so they
// land in the user's buffers as ordinary, undoable edits. editorFS is the
// tools.FS the agent sees inside the editor: it reads the open documents
// (unsaved text wins over disk) and applies changes with
// workspace/applyEdit.

// editTracker remembers what the agent changed through the editor and the
// disk does not show yet.
type editTracker struct {
	mu sync.Mutex // guards the maps
	// pending is content the agent wrote into a document the editor does
	// not report as open; the editor holds it in a buffer of its own (or
	// nowhere yet), so reads must not fall back to disk. A nil entry
	// means the agent deleted the file.
	pending map[string]*string
	// dirty lists files the agent changed that are not known to be saved.
	dirty map[string]bool
	// applied is the text of an open document after an edit the editor
	// accepted, until the editor reports a newer version: editors send
	// the didChange for an applied edit when they like (some only on
	// save), and until then the overlay is one edit behind.
	applied map[string]appliedText
}

// appliedText is a document's text after the agent's edit, and the
// overlay version it was computed from.
type appliedText struct {
	text string
	base int32
}

func newEditTracker() *editTracker {
	return &editTracker{pending: map[string]*string{}, dirty: map[string]bool{}, applied: map[string]appliedText{}}
}

// afterEdit returns the text of open document d as the agent's last
// accepted edit left it, if the editor has not reported a newer version.
func (t *editTracker) afterEdit(d document) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.applied[d.Path]
	if !ok {
		return "", false
	}
	if d.Version != a.base {
		// The editor reported changes since: the overlay is current.
		delete(t.applied, d.Path)
		return "", false
	}
	return a.text, true
}

func (t *editTracker) setApplied(path string, text string, base int32) {
	t.mu.Lock()
	t.applied[path] = appliedText{text: text, base: base}
	t.mu.Unlock()
}

// forget drops pending content once the editor reports the document
// itself (didOpen, didChange): the overlay is authoritative from then on.
func (t *editTracker) forget(path string) {
	t.mu.Lock()
	delete(t.pending, path)
	t.mu.Unlock()
}

// saved records that path reached the disk.
func (t *editTracker) saved(path string) {
	t.mu.Lock()
	delete(t.pending, path)
	delete(t.dirty, path)
	t.mu.Unlock()
}

func (t *editTracker) wrote(path string, content *string) {
	t.mu.Lock()
	t.pending[path] = content
	t.dirty[path] = true
	t.mu.Unlock()
}

func (t *editTracker) lookup(path string) (content *string, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	content, ok = t.pending[path]
	return content, ok
}

// pendingPaths lists the files the agent wrote or deleted that the editor
// does not report as open.
func (t *editTracker) pendingPaths() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Collect(maps.Keys(t.pending))
}

// dirtyUnder lists the unsaved paths inside root, sorted.
func (t *editTracker) dirtyUnder(root string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for p := range t.dirty {
		if p == root || strings.HasPrefix(p, root+string(filepath.Separator)) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// editorFS implements tools.FS over the editor.
type editorFS struct {
	s *Server
	// w is the workspace whose agent uses this FS; nil for the server's
	// own reads and edits (accepting a proposal).
	w *workspace
}

var (
	_ tools.FS             = (*editorFS)(nil)
	_ tools.DocumentSource = (*editorFS)(nil)
)

// OpenDocuments returns the documents whose text the editor holds: its
// open buffers, as the agent's last accepted edit left them, and content
// the agent wrote that has not reached the disk. Language servers are
// kept in step with these, so what they report matches what the user sees.
func (f *editorFS) OpenDocuments() []tools.OpenDocument {
	var paths []string
	versions := map[string]int32{}
	seen := map[string]bool{}
	for _, d := range f.s.docs.all() {
		if d.Path == "" || seen[d.Path] {
			continue // two URIs for one file: the least URI wins, as in byPath
		}
		seen[d.Path] = true
		versions[d.Path] = d.Version
		paths = append(paths, d.Path)
	}
	// The agent's proposals are what it works on: language servers see
	// them too, so what they report matches what it reads.
	for _, p := range append(f.s.edits.pendingPaths(), f.s.review.Paths()...) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	var out []tools.OpenDocument
	for _, p := range paths {
		t, held := f.s.heldText(p, agentView)
		if held && !t.exists {
			// A proposed deletion leaves the text the editor holds.
			t, held = f.s.heldText(p, userView)
		}
		if !held || !t.exists {
			continue
		}
		out = append(out, tools.OpenDocument{Path: p, Text: t.text, Version: versions[p]})
	}
	slices.SortFunc(out, func(a, b tools.OpenDocument) int { return cmp.Compare(a.Path, b.Path) })
	return out
}

func (f *editorFS) ReadFile(name string) ([]byte, error) {
	if data, held, err := f.Overlaid(name); held {
		return data, err
	}
	return os.ReadFile(name)
}

// Overlaid implements tools.Overlay: the editor's buffer of an open
// document, or a change not yet written. Any other file the tools read
// from the disk themselves, judging what they opened.
func (f *editorFS) Overlaid(name string) (data []byte, held bool, err error) {
	t, held := f.s.heldText(name, agentView)
	switch {
	case !held:
		return nil, false, nil
	case !t.exists:
		return nil, true, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return []byte(t.text), true, nil
}

var _ tools.Overlay = (*editorFS)(nil)

func (f *editorFS) Stat(name string) (fs.FileInfo, error) {
	t, held := f.s.heldText(name, agentView)
	switch {
	case !held:
		return os.Stat(name)
	case !t.exists:
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return tools.MemFileInfo(filepath.Base(name), int64(len(t.text))), nil
}

func (f *editorFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Proposes implements tools.Proposer: the agent's changes are proposals
// while its workspace is in propose mode.
func (f *editorFS) Proposes() bool {
	return f.w != nil && f.s.review.proposing(f.w.root)
}

var _ tools.Proposer = (*editorFS)(nil)

// Apply makes the agent's changes: proposals in propose mode, else edits
// in the editor at once. A rewind the user asked for (reasonix.rewind) is
// made at once in either mode: it is the user's decision already.
func (f *editorFS) Apply(ctx context.Context, changes []tools.Change) error {
	if f.Proposes() && !rewinding(ctx) {
		return f.propose(ctx, changes)
	}
	if tools.ProposalOnly(ctx) {
		// The call was let through as a proposal, and the review setting
		// changed since: what it changes was never approved.
		return fmt.Errorf("%w: this call was allowed as a proposal for review, and the workspace now applies changes at once (review = \"apply\"); make the call again", tools.ErrNotPermitted)
	}
	if err := f.apply(ctx, changes); err != nil {
		return err
	}
	// Proposals left from propose mode are in what the agent read and
	// has now written: they are applied.
	for _, c := range changes {
		for _, p := range []string{c.Path, c.NewPath} {
			if p != "" && f.s.review.Has(p) {
				f.s.review.Forget(p)
				f.s.publishProposals(ctx, p)
			}
		}
	}
	return nil
}

// apply sends the changes to the editor as one workspace edit, so the
// editor applies them together and the user can undo them. Changes the
// editor cannot take as an edit (creating or removing files when it does
// not support resource operations) go to disk directly, but never for a
// document the editor has open: that would leave its buffer in conflict
// with the disk.
//
// A file the editor does not have open goes to disk too when the client
// cannot save documents for the server (reasonix/saveDocuments): sent as
// an edit, many clients (coc.nvim, lsp-mode, vim-lsp, yegappan/lsp) load
// it into a hidden buffer, apply the edit there, report the file open and
// leave it unsaved, where the agent's next command cannot see it and no
// one sees it is dirty. Written by the server, the file has no buffer to
// conflict with; the editor reads the new text when the user opens it.
func (f *editorFS) apply(ctx context.Context, changes []tools.Change) error {
	s := f.s
	s.mu.Lock()
	caps, enc := s.caps, s.enc
	s.mu.Unlock()

	var (
		docChanges []protocol.DocumentChange
		plain      = map[uri.URI][]protocol.TextEdit{}
		// plainVersion is the version of the document each plain edit
		// was computed against, for when they join documentChanges.
		plainVersion = map[uri.URI]*int32{}
		direct       []tools.Change
		after        []func()
		label        []string
		// movedIn holds the files an earlier change of this edit renames
		// an open document to: the editor holds them from then on.
		movedIn = map[string]bool{}
	)
	isOpen := func(path string) bool {
		_, open := s.docs.byPath(path)
		return open || movedIn[path]
	}
	// toDisk reports whether a change to a file the editor does not have
	// open is the server's to make on disk.
	toDisk := func(path string) bool {
		return !isOpen(path) && (!caps.applyEdit || !caps.saveDocuments)
	}
	for _, c := range changes {
		u := uri.File(c.Path)
		open := isOpen(c.Path)
		label = append(label, s.relPath(c.Path))
		switch c.Kind {
		case tools.Write:
			newText := string(c.Content)
			path := c.Path
			if toDisk(path) {
				// The disk is then the file's truth: nothing to save.
				direct = append(direct, c)
				after = append(after, func() { s.edits.saved(path) })
				continue
			}
			cur, err := s.currentText(path, userView)
			if err != nil {
				return err
			}
			old, exists := cur.text, cur.exists
			after = append(after, func() { s.edits.wrote(path, &newText) })
			if d, ok := s.docs.byPath(path); ok {
				base := d.Version
				after = append(after, func() { s.edits.setApplied(path, newText, base) })
			}
			switch {
			case !caps.applyEdit:
				return errors.New("the editor does not accept workspace edits, and the file is open in it")
			case exists && caps.documentChanges:
				docChanges = append(docChanges, &protocol.TextDocumentEdit{
					TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
						TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u},
						Version:                cur.version,
					},
					Edits: textEditsAny(wire.TextEdits(old, newText, enc)),
				})
			case exists:
				plain[u] = append(plain[u], wire.TextEdits(old, newText, enc)...)
				plainVersion[u] = cur.version
			case caps.resourceOps[protocol.ResourceOperationKindCreate]:
				docChanges = append(docChanges,
					&protocol.CreateFile{Kind: "create", URI: u},
					&protocol.TextDocumentEdit{
						TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}},
						Edits:        textEditsAny([]protocol.TextEdit{{NewText: newText}}),
					})
			default:
				// Nothing in the editor can hold a new file: it goes to
				// disk, which is then its truth.
				direct = append(direct, c)
				after[len(after)-1] = func() { s.edits.saved(path) }
			}
		case tools.Delete:
			path := c.Path
			switch {
			case toDisk(path):
				direct = append(direct, c)
				after = append(after, func() { s.edits.saved(path) })
			case caps.applyEdit && caps.resourceOps[protocol.ResourceOperationKindDelete]:
				docChanges = append(docChanges, &protocol.DeleteFile{Kind: "delete", URI: u})
				after = append(after, func() { s.edits.saved(path) })
			case open:
				return fmt.Errorf("the editor cannot delete files through edits, and %s is open in it", s.relPath(path))
			default:
				direct = append(direct, c)
			}
		case tools.Rename:
			from, to := c.Path, c.NewPath
			switch {
			case toDisk(from):
				direct = append(direct, c)
				after = append(after, func() { s.edits.saved(from) })
			case caps.applyEdit && caps.resourceOps[protocol.ResourceOperationKindRename]:
				docChanges = append(docChanges, &protocol.RenameFile{Kind: "rename", OldURI: u, NewURI: uri.File(to)})
				after = append(after, func() { s.edits.saved(from) })
				if open {
					movedIn[to] = true
				}
			case open:
				return fmt.Errorf("the editor cannot rename files through edits, and %s is open in it", s.relPath(from))
			default:
				direct = append(direct, c)
			}
		}
	}

	if len(docChanges) > 0 && len(plain) > 0 {
		// A client reads changes only when there are no documentChanges
		// (LSP: "documentChanges are preferred"), and one that takes
		// resource operations without declaring documentChanges (Neovim)
		// reads them: the plain edits join them, versioned as they were
		// computed, before the resource operations, since they are edits
		// of files as they are.
		docChanges = append(documentEdits(plain, plainVersion), docChanges...)
		plain = nil
	}
	if len(docChanges) > 0 || len(plain) > 0 {
		edit := protocol.WorkspaceEdit{DocumentChanges: docChanges}
		if len(plain) > 0 {
			edit.Changes = plain
		}
		title := "Reasonix: " + strings.Join(label, ", ")
		res, err := applyEdit.call(ctx, s, &protocol.ApplyWorkspaceEditParams{Label: &title, Edit: edit})
		if err != nil {
			return fmt.Errorf("the editor did not answer the edit: %w", err)
		}
		if res == nil || !res.Applied {
			reason := "no reason given"
			if res != nil && res.FailureReason != nil && *res.FailureReason != "" {
				reason = *res.FailureReason
			}
			return fmt.Errorf("the editor rejected the edit: %s", reason)
		}
	}
	if len(direct) > 0 {
		ws, err := s.workspaceFor(direct[0].Path)
		if err != nil {
			return err
		}
		if err := ws.agent.Disk.Apply(ctx, direct); err != nil {
			return err
		}
	}
	for _, fn := range after {
		fn()
	}
	return nil
}

// textEditsAny converts edits for a TextDocumentEdit, whose edits are a
// union of plain and annotated edits.
// documentEdits turns plain edits into TextDocumentEdits of the
// documents' versions (nil: the file as on disk), in the order of their
// URIs.
func documentEdits(plain map[uri.URI][]protocol.TextEdit, versions map[uri.URI]*int32) []protocol.DocumentChange {
	uris := slices.Sorted(maps.Keys(plain))
	out := make([]protocol.DocumentChange, 0, len(uris))
	for _, u := range uris {
		out = append(out, &protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
				TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u},
				Version:                versions[u],
			},
			Edits: textEditsAny(plain[u]),
		})
	}
	return out
}

func textEditsAny(edits []protocol.TextEdit) []protocol.TextDocumentEditElement {
	out := make([]protocol.TextDocumentEditElement, len(edits))
	for i := range edits {
		out[i] = &edits[i]
	}
	return out
}

// relPath shows a path relative to its workspace folder.
func (s *Server) relPath(path string) string {
	s.mu.Lock()
	root := s.rootFor(path)
	s.mu.Unlock()
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}
