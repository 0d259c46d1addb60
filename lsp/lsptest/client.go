package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// client answers what the server asks of the editor.
type client struct {
	protocol.UnimplementedClient
	e *Editor
}

// PublishDiagnostics keeps the last diagnostics of each file.
func (c *client) PublishDiagnostics(ctx context.Context, p *protocol.PublishDiagnosticsParams) error {
	// The decoded strings may share the connection's read buffer, which
	// is reused: keep a copy decoded from bytes of their own.
	b, err := protocol.Marshal(p)
	if err != nil {
		return err
	}
	p = &protocol.PublishDiagnosticsParams{}
	if err := protocol.Unmarshal(b, p); err != nil {
		return err
	}
	c.e.record(func(r *Recorded) {
		if r.Diagnostics == nil {
			r.Diagnostics = map[string][]protocol.Diagnostic{}
		}
		r.Diagnostics[filepath.Clean(p.URI.FsPath())] = p.Diagnostics
	})
	return nil
}

// ShowDocument records the document and reports it shown. A document to
// show outside the editor (external) goes to Options.OpenExternal as the
// URI reads once decoded, then written back unencoded (vscode-uri's
// toString(true)): its canonical encoded form escapes the query's = and
// &, which no web server would read as a query.
func (c *client) ShowDocument(ctx context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	if p.External != nil && *p.External {
		c.e.record(func(r *Recorded) { r.External = append(r.External, string(p.URI)) })
		if open := c.e.opts.OpenExternal; open != nil {
			go open(p.URI.StringNoEncoding())
		}
		return &protocol.ShowDocumentResult{Success: true}, nil
	}
	c.e.record(func(r *Recorded) { r.Shown = append(r.Shown, string(p.URI)) })
	return &protocol.ShowDocumentResult{Success: true}, nil
}

func (c *client) LogMessage(ctx context.Context, p *protocol.LogMessageParams) error {
	c.e.record(func(r *Recorded) { r.Logs = append(r.Logs, p.Message) })
	return nil
}

func (c *client) ShowMessage(ctx context.Context, p *protocol.ShowMessageParams) error {
	c.e.record(func(r *Recorded) { r.Messages = append(r.Messages, *p) })
	return nil
}

func (c *client) ShowMessageRequest(ctx context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	c.e.mu.Lock()
	answer := c.e.answer
	c.e.mu.Unlock()
	c.e.record(func(r *Recorded) { r.Dialogs = append(r.Dialogs, *p) })
	if c.e.opts.Unanswering {
		return nil, c.e.leaveUnanswered(ctx)
	}
	if answer == nil {
		return nil, nil
	}
	title := answer(p)
	if title == "" {
		return nil, nil
	}
	return &protocol.MessageActionItem{Title: title}, nil
}

func (c *client) WorkDoneProgressCreate(ctx context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	if c.e.opts.LoseProgressCreate {
		// Lost: no answer, until the server gives up on it.
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (c *client) Progress(ctx context.Context, p *protocol.ProgressParams) error {
	var v struct {
		Kind    string `json:"kind"`
		Title   string `json:"title"`
		Message string `json:"message"`
	}
	json.Unmarshal(p.Value, &v)
	token := ""
	if s, ok := p.Token.(protocol.String); ok {
		token = string(s)
	}
	c.e.record(func(r *Recorded) {
		r.Progress = append(r.Progress, Progress{Token: token, Kind: v.Kind, Title: v.Title, Message: v.Message})
	})
	return nil
}

// ApplyEdit applies a workspace edit to the buffers as an editor does:
// versions must match for open documents, files the editor has not opened
// are loaded into hidden buffers (reported open with
// Options.OpenToEdit), and nothing is saved.
func (c *client) ApplyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	e := c.e
	e.mu.Lock()
	reject := e.reject
	e.mu.Unlock()
	if reject != "" {
		e.record(func(r *Recorded) { r.Edits = append(r.Edits, *p) })
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reject}, nil
	}
	changed, opened, err := e.applyWorkspaceEdit(p.Edit)
	e.record(func(r *Recorded) { r.Edits = append(r.Edits, *p) })
	if err != nil {
		msg := err.Error()
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &msg}, nil
	}
	// Report the new text of open documents, as an editor does: after
	// answering the edit (the protocol leaves the order open), or only at
	// the next save with LateDidChange. A file opened to take the edit
	// is reported before the answer, opening and change, as the editors
	// that do this send them while they apply it.
	var reports []*protocol.DidChangeTextDocumentParams
	e.mu.Lock()
	for _, path := range changed {
		buf := e.buffers[path]
		if buf == nil || !buf.open {
			continue
		}
		if _, ok := opened[path]; !ok && e.opts.LateDidChange {
			buf.unreported = true
			continue
		}
		reports = append(reports, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Version: buf.version},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: buf.text}},
		})
	}
	e.mu.Unlock()
	var later []*protocol.DidChangeTextDocumentParams
	for _, r := range reports {
		path := filepath.Clean(r.TextDocument.URI.FsPath())
		text, ok := opened[path]
		if !ok {
			later = append(later, r)
			continue
		}
		if err := e.server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: r.TextDocument.URI, LanguageID: protocol.LanguageKind(languageID(path)), Version: 1, Text: text,
		}}); err != nil {
			return nil, err
		}
		if err := e.server.DidChange(ctx, r); err != nil {
			return nil, err
		}
	}
	if len(later) > 0 {
		go func() {
			for _, r := range later {
				e.server.DidChange(context.Background(), r)
			}
		}()
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

// applyWorkspaceEdit applies an edit all at once and returns the paths of
// the buffers it changed, and the text each buffer it opened to take the
// edit had when it was opened (Options.OpenToEdit).
func (e *Editor) applyWorkspaceEdit(we protocol.WorkspaceEdit) (changed []string, opened map[string]string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	// Work on copies so a failure leaves everything untouched.
	staged := map[string]*buffer{}
	opened = map[string]string{}
	get := func(path string) (*buffer, error) {
		if b, ok := staged[path]; ok {
			return b, nil
		}
		if b, ok := e.buffers[path]; ok {
			cp := *b
			staged[path] = &cp
			return &cp, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		b := &buffer{text: string(data), version: 0}
		if e.opts.OpenToEdit {
			b.open, b.version = true, 1
			opened[path] = b.text
		}
		staged[path] = b
		return b, nil
	}
	var diskOps []func() error
	var order []string
	touch := func(p string) {
		for _, o := range order {
			if o == p {
				return
			}
		}
		order = append(order, p)
	}
	for _, dc := range we.DocumentChanges {
		switch x := dc.(type) {
		case *protocol.TextDocumentEdit:
			path := filepath.Clean(x.TextDocument.URI.FsPath())
			b, err := get(path)
			if err != nil {
				return nil, nil, err
			}
			if x.TextDocument.Version != nil && (!b.open || *x.TextDocument.Version != b.version) {
				return nil, nil, fmt.Errorf("version mismatch for %s: edit for %d, buffer at %d", path, *x.TextDocument.Version, b.version)
			}
			var edits []protocol.TextEdit
			for _, el := range x.Edits {
				if te, ok := el.(*protocol.TextEdit); ok {
					edits = append(edits, *te)
				}
			}
			text, err := applyTextEdits(b.text, edits, e.utf8)
			if err != nil {
				return nil, nil, err
			}
			b.text = text
			b.dirty = true
			if b.open {
				b.version++
			}
			touch(path)
		case *protocol.CreateFile:
			// Like VS Code: the file is created on disk, empty; the text
			// edits that follow fill its (unsaved) buffer.
			path := filepath.Clean(x.URI.FsPath())
			if _, err := os.Stat(path); err == nil {
				return nil, nil, fmt.Errorf("%s exists", path)
			}
			b := &buffer{dirty: true}
			if e.opts.OpenToEdit {
				b.open, b.version = true, 1
				opened[path] = ""
			}
			staged[path] = b
			diskOps = append(diskOps, func() error {
				os.MkdirAll(filepath.Dir(path), 0o755)
				return os.WriteFile(path, nil, 0o644)
			})
			touch(path)
		case *protocol.DeleteFile:
			path := filepath.Clean(x.URI.FsPath())
			diskOps = append(diskOps, func() error { delete(e.buffers, path); return os.Remove(path) })
		case *protocol.RenameFile:
			from, to := filepath.Clean(x.OldURI.FsPath()), filepath.Clean(x.NewURI.FsPath())
			diskOps = append(diskOps, func() error {
				if b, ok := e.buffers[from]; ok {
					delete(e.buffers, from)
					e.buffers[to] = b
				}
				os.MkdirAll(filepath.Dir(to), 0o755)
				return os.Rename(from, to)
			})
		}
	}
	// An editor reads changes only when there are no documentChanges, as
	// the LSP specification has it and VS Code and Neovim do.
	if len(we.DocumentChanges) > 0 {
		we.Changes = nil
	}
	for u, edits := range we.Changes {
		path := filepath.Clean(u.FsPath())
		b, err := get(path)
		if err != nil {
			return nil, nil, err
		}
		text, err := applyTextEdits(b.text, edits, e.utf8)
		if err != nil {
			return nil, nil, err
		}
		b.text, b.dirty = text, true
		if b.open {
			b.version++
		}
		touch(path)
	}
	for p, b := range staged {
		e.buffers[p] = b
	}
	for _, op := range diskOps {
		if err := op(); err != nil {
			return nil, nil, err
		}
	}
	return order, opened, nil
}

// askLikeDialog answers a reasonix/approve or reasonix/ask request as
// the dialog whose message and actions are its params' message and
// choices fields: it is recorded among the dialogs (and by keep), and
// the editor's answer goes back as the result's field answer, null when
// there is none.
func (e *Editor) askLikeDialog(ctx context.Context, req *jsonrpc2.Request, message, choices, answerField string, keep func(*Recorded, map[string]any)) (any, error) {
	var p map[string]any
	if err := json.Unmarshal(req.Params(), &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	dialog := protocol.ShowMessageRequestParams{Message: fmt.Sprint(p[message])}
	list, _ := p[choices].([]any)
	for _, c := range list {
		dialog.Actions = append(dialog.Actions, protocol.MessageActionItem{Title: fmt.Sprint(c)})
	}
	e.mu.Lock()
	answer := e.answer
	e.mu.Unlock()
	e.record(func(r *Recorded) {
		keep(r, p)
		r.Dialogs = append(r.Dialogs, dialog)
	})
	if e.opts.Unanswering {
		return nil, e.leaveUnanswered(ctx)
	}
	var got any
	if answer != nil {
		if s := answer(&dialog); s != "" {
			got = s
		}
	}
	b, _ := json.Marshal(map[string]any{answerField: got})
	return jsonrpc2.RawMessage(b), nil
}

// leaveUnanswered holds a request from the server without answering it
// (Options.Unanswering), until the server cancels it ($/cancelRequest)
// or the editor closes; the error then goes back as the answer nobody
// waits for any more.
func (e *Editor) leaveUnanswered(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-e.gone:
		return errors.New("the editor closed")
	}
}

// custom handles the Reasonix methods.
func (e *Editor) custom(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "reasonix/event":
		var ev map[string]any
		json.Unmarshal(req.Params(), &ev)
		e.record(func(r *Recorded) { r.Events = append(r.Events, ev) })
		return nil, nil
	case "reasonix/approve":
		// A permission question, answered like a dialog of its actions.
		return e.askLikeDialog(ctx, req, "message", "actions", "action", func(r *Recorded, p map[string]any) {
			r.Approvals = append(r.Approvals, p)
		})
	case "reasonix/ask":
		// The agent's question: its options are the dialog's actions, and
		// the answer may be any text.
		return e.askLikeDialog(ctx, req, "question", "options", "answer", func(r *Recorded, p map[string]any) {
			r.Questions = append(r.Questions, p)
		})
	case "reasonix/saveDocuments":
		var p struct {
			URIs []string `json:"uris"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
		}
		e.record(func(r *Recorded) { r.Saves = append(r.Saves, p.URIs) })
		res := map[string]any{"saved": []string{}}
		var saved []string
		for _, u := range p.URIs {
			if err := e.save(filepath.Clean(uri.URI(u).FsPath())); err == nil {
				saved = append(saved, u)
			}
		}
		res["saved"] = saved
		b, _ := json.Marshal(res)
		return jsonrpc2.RawMessage(b), nil
	}
	return jsonrpc2.MethodNotFoundHandler(ctx, req)
}

// applyTextEdits applies edits in any order; positions count bytes when
// utf8 is set, else UTF-16 code units. It and offsetOf and positionOf
// stand apart from wire.ApplyEdits and wire's position conversion on
// purpose, written the plainest way (rune by rune), so that the edits the
// server sends are checked by code it does not share.
func applyTextEdits(text string, edits []protocol.TextEdit, utf8 bool) (string, error) {
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, 0, len(edits))
	for _, ed := range edits {
		s, ok1 := offsetOf(text, ed.Range.Start, utf8)
		en, ok2 := offsetOf(text, ed.Range.End, utf8)
		if !ok1 || !ok2 || en < s {
			return "", fmt.Errorf("bad range %v", ed.Range)
		}
		spans = append(spans, span{s, en, ed.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			return "", fmt.Errorf("overlapping edits")
		}
		b.WriteString(text[last:sp.start])
		b.WriteString(sp.text)
		last = sp.end
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

// offsetOf converts a position to a byte offset.
func offsetOf(text string, p protocol.Position, bytes bool) (int, bool) {
	line := uint32(0)
	i := 0
	for line < p.Line {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return len(text), line+1 == p.Line && p.Character == 0
		}
		i += j + 1
		line++
	}
	units := uint32(0)
	for i < len(text) && text[i] != '\n' && units < p.Character {
		r, size := utf8.DecodeRuneInString(text[i:])
		if bytes {
			units += uint32(size)
		} else {
			units += uint32(utf16.RuneLen(r))
		}
		i += size
	}
	return i, true
}

// positionOf converts a byte offset to a position.
func positionOf(text string, off int, bytes bool) protocol.Position {
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	units := 0
	for _, r := range text[start:off] {
		if bytes {
			units += utf8.RuneLen(r)
		} else {
			units += utf16.RuneLen(r)
		}
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}
