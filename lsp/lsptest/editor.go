// Package lsptest is a fake editor for testing the Reasonix language server
// in process. An Editor connects to a real server over an in-memory pipe,
// speaks the protocol as an editor does — it keeps buffers, applies
// workspace edits to them, answers dialogs, records what the server shows —
// and lets a test wait for conditions instead of sleeping.
//
// The editor's side of the wire is deliberately not the server's: it frames
// messages with the jsonrpc2 library's header stream, not wire.NewStream,
// and converts positions and applies text edits with its own plain code
// (applyTextEdits, offsetOf, positionOf), not wire's. A fake that shared
// the server's code would agree with any bug in it; this one checks the
// server's framing, UTF-8/UTF-16 positions and edits against an
// implementation written apart. Only the codec is wire's, as the fake
// sends and decodes the same protocol types as the server; the tests with
// real editors (Neovim, the Node client, eglot) check the encoding against
// foreign peers.
//
// It is imported only by tests.
package lsptest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp"
	"github.com/reasonix/reasonix/lsp/wire"
)

// Options configure an Editor.
type Options struct {
	// Root is the workspace folder; it must exist.
	Root string
	// Server configures the server under test.
	Server lsp.Options
	// Settings are sent as initializationOptions.
	Settings map[string]any
	// The client capabilities to declare.
	NoResourceOps bool // no CreateFile/RenameFile/DeleteFile
	// NoDocumentChanges declares resource operations without
	// documentChanges, as Neovim does.
	NoDocumentChanges bool
	NoProgress        bool // no window.workDoneProgress
	NoShowDocument    bool // no window.showDocument
	Events            bool // reasonix/event notifications
	Approvals         bool // answers reasonix/approve instead of dialogs
	Questions         bool // answers reasonix/ask instead of dialogs
	SaveDocuments     bool // implements reasonix/saveDocuments
	UTF8              bool // offer the utf-8 position encoding
	NoLiteralActions  bool // no codeActionLiteralSupport
	NoApplyEdit       bool // workspace.applyEdit false: the server writes to disk
	NoWindow          bool // no window capabilities at all
	ShowMessage       bool // window.showMessage, window/showMessageRequest's capability
	// Unanswering leaves window/showMessageRequest, reasonix/approve and
	// reasonix/ask unanswered (recorded all the same) until the server
	// cancels them or the editor closes, as ALE does.
	Unanswering bool
	// LateDidChange makes the editor report buffer changes caused by
	// workspace edits only when it saves, as some editors do, instead of
	// right after answering the edit.
	LateDidChange bool
	// OpenToEdit makes the editor apply an edit to a file it does not
	// have open as coc.nvim, Emacs lsp-mode, vim-lsp and yegappan/lsp
	// do: it loads the file into a buffer the user does not see, reports
	// it open (didOpen, then didChange with the edit) before answering,
	// and leaves it unsaved.
	OpenToEdit bool
	// LoseProgressCreate makes the editor never answer
	// window/workDoneProgress/create, as Emacs lsp-mode 8.0.0 does when
	// the request arrives together with the answer to a request it waits
	// for.
	LoseProgressCreate bool

	// OpenExternal, when set, is the browser: it gets each address
	// window/showDocument asks to open outside the editor.
	OpenExternal func(url string)
}

// A buffer is the editor's copy of a file.
type buffer struct {
	text    string
	version int32
	// open is set when the server was told (didOpen); a buffer the editor
	// loaded only to apply an edit is not reported, like a hidden one,
	// unless Options.OpenToEdit.
	open  bool
	dirty bool
	// unreported is set while the server has not been told about changes
	// a workspace edit made (Options.LateDidChange).
	unreported bool
}

// Editor is a fake editor connected to a server.
type Editor struct {
	t      testing.TB
	root   string
	opts   Options
	conn   jsonrpc2.Conn
	server protocol.Server
	exit   chan int

	mu   sync.Mutex // guards the fields below
	cond *sync.Cond
	// buffers are keyed by absolute path.
	buffers map[string]*buffer
	// answer decides each permission dialog; nil answers null (dismissed).
	answer   func(*protocol.ShowMessageRequestParams) string
	reject   string // when set, applyEdit answers applied:false with it
	utf8     bool   // positions count bytes, as negotiated; else UTF-16 units
	Recorded Recorded
	closed   bool

	// gone is closed when the editor closes: unanswered requests end.
	gone     chan struct{}
	goneOnce sync.Once
}

// Recorded is everything the server sent that a test may assert on.
type Recorded struct {
	Edits []protocol.ApplyWorkspaceEditParams
	// Dialogs holds window/showMessageRequest questions, and
	// reasonix/approve ones in the same shape.
	Dialogs []protocol.ShowMessageRequestParams
	// Approvals holds the reasonix/approve requests as sent.
	Approvals []map[string]any
	// Questions holds the reasonix/ask requests as sent; they are in
	// Dialogs too, the question as the message, the options as actions.
	Questions []map[string]any
	Messages  []protocol.ShowMessageParams
	Logs      []string
	Progress  []Progress
	Events    []map[string]any
	Saves     [][]string
	// Diagnostics holds the last diagnostics published for each file, by
	// absolute path.
	Diagnostics map[string][]protocol.Diagnostic
	// Shown holds the documents window/showDocument asked to open;
	// External those it asked to open outside the editor.
	Shown    []string
	External []string
}

// Progress is one $/progress notification.
type Progress struct {
	Token   string
	Kind    string
	Title   string
	Message string
}

// New starts a server and initializes it. The server is shut down when
// the test ends.
func New(t testing.TB, opts Options) *Editor {
	t.Helper()
	root, err := filepath.EvalSymlinks(opts.Root)
	if err != nil {
		t.Fatal(err)
	}
	e := &Editor{t: t, root: root, opts: opts, buffers: map[string]*buffer{}, exit: make(chan int, 1), gone: make(chan struct{})}
	e.cond = sync.NewCond(&e.mu)

	serverEnd, clientEnd := net.Pipe()
	go func() {
		e.exit <- lsp.Serve(context.Background(), serverEnd, serverEnd, serverEnd, opts.Server)
		serverEnd.Close()
	}()
	// The library's framing, not the server's (see the package comment).
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(clientEnd), jsonrpc2.WithCodec(wire.Codec{}))
	e.server = protocol.ServerDispatcher(e.conn)
	e.conn.Go(context.Background(), protocol.CancelHandler(callsAsync(
		protocol.ClientHandler(&client{e: e}, e.custom))))
	t.Cleanup(e.Close)

	params := &protocol.InitializeParams{
		ClientInfo:   protocol.ClientInfo{Name: "lsptest"},
		Capabilities: e.capabilities(),
	}
	params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: uri.File(root), Name: filepath.Base(root)}})
	if opts.Settings != nil {
		b, _ := json.Marshal(opts.Settings)
		params.InitializationOptions = b
	}
	res, err := e.server.Initialize(e.ctx(), params)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	e.utf8 = res.Capabilities.PositionEncoding == protocol.PositionEncodingKindUTF8
	if err := e.server.Initialized(e.ctx(), &protocol.InitializedParams{}); err != nil {
		t.Fatalf("initialized: %v", err)
	}
	return e
}

// callsAsync handles the server's requests concurrently, as an editor
// answers a dialog while it goes on reading, and its notifications in
// the order they were sent, as an editor shows them: a message sent before
// the progress ends is recorded before the end.
func callsAsync(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			jsonrpc2.Async(ctx)
		}
		return h(ctx, req)
	}
}

func (e *Editor) capabilities() protocol.ClientCapabilities {
	yes := true
	ops := []protocol.ResourceOperationKind{protocol.ResourceOperationKindCreate, protocol.ResourceOperationKindRename, protocol.ResourceOperationKindDelete}
	if e.opts.NoResourceOps {
		ops = nil
	}
	caps := protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit:        &yes,
			WorkspaceFolders: &yes,
			WorkspaceEdit:    &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &yes, ResourceOperations: ops},
		},
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes, ShowDocument: &protocol.ShowDocumentClientCapabilities{Support: true}},
	}
	if e.opts.NoDocumentChanges {
		caps.Workspace.WorkspaceEdit.DocumentChanges = nil
	}
	if e.opts.NoProgress {
		caps.Window.WorkDoneProgress = nil
	}
	if e.opts.NoShowDocument {
		caps.Window.ShowDocument = nil
	}
	if e.opts.ShowMessage {
		caps.Window.ShowMessage = &protocol.ShowMessageRequestClientCapabilities{}
	}
	if e.opts.NoWindow {
		caps.Window = nil
	}
	if e.opts.NoApplyEdit {
		no := false
		caps.Workspace.ApplyEdit = &no
	}
	diags := &protocol.PublishDiagnosticsClientCapabilities{}
	diags.TagSupport.ValueSet = []protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary, protocol.DiagnosticTagDeprecated}
	caps.TextDocument = &protocol.TextDocumentClientCapabilities{PublishDiagnostics: diags}
	if !e.opts.NoLiteralActions {
		caps.TextDocument.CodeAction = &protocol.CodeActionClientCapabilities{
			CodeActionLiteralSupport: protocol.ClientCodeActionLiteralOptions{CodeActionKind: protocol.ClientCodeActionKindOptions{
				ValueSet: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactor},
			}},
		}
	}
	if e.opts.UTF8 {
		caps.General = &protocol.GeneralClientCapabilities{PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF16}}
	}
	exp, _ := json.Marshal(map[string]any{"reasonix": map[string]bool{
		"events": e.opts.Events, "saveDocuments": e.opts.SaveDocuments, "approvals": e.opts.Approvals,
		"questions": e.opts.Questions,
	}})
	caps.Experimental = exp
	return caps
}

// ctx bounds one request from the editor.
func (e *Editor) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	_ = cancel // the timeout releases it
	return ctx
}

// Server returns the dispatcher for requests the test sends itself.
func (e *Editor) Server() protocol.Server { return e.server }

// Conn returns the connection, for custom methods.
func (e *Editor) Conn() jsonrpc2.Conn { return e.conn }

// Path makes a workspace-relative path absolute.
func (e *Editor) Path(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// URI returns the URI of a workspace-relative path.
func (e *Editor) URI(rel string) uri.URI { return uri.File(e.Path(rel)) }

// Answer sets how permission dialogs are answered: with the given action
// title, or with null when title is "".
func (e *Editor) Answer(title string) {
	e.AnswerWith(func(*protocol.ShowMessageRequestParams) string { return title })
}

// AnswerWith decides each dialog with f.
func (e *Editor) AnswerWith(f func(*protocol.ShowMessageRequestParams) string) {
	e.mu.Lock()
	e.answer = f
	e.mu.Unlock()
}

// RejectEdits makes the editor refuse workspace edits with reason; "" accepts
// them again.
func (e *Editor) RejectEdits(reason string) {
	e.mu.Lock()
	e.reject = reason
	e.mu.Unlock()
}

// OpenFile opens a file from disk in a buffer and tells the server.
func (e *Editor) OpenFile(rel string) {
	e.t.Helper()
	p := e.Path(rel)
	b, err := os.ReadFile(p)
	if err != nil {
		e.t.Fatal(err)
	}
	e.mu.Lock()
	buf := &buffer{text: string(b), version: 1, open: true}
	e.buffers[p] = buf
	e.mu.Unlock()
	err = e.server.DidOpen(e.ctx(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri.File(p), LanguageID: protocol.LanguageKind(languageID(p)), Version: 1, Text: string(b),
	}})
	if err != nil {
		e.t.Fatal(err)
	}
}

// Type replaces old with new in an open buffer, as a user typing would,
// and sends the change as a range edit.
func (e *Editor) Type(rel, old, new string) {
	e.t.Helper()
	p := e.Path(rel)
	e.mu.Lock()
	buf := e.buffers[p]
	if buf == nil || !buf.open {
		e.mu.Unlock()
		e.t.Fatalf("%s is not open", rel)
	}
	i := strings.Index(buf.text, old)
	if i < 0 {
		e.mu.Unlock()
		e.t.Fatalf("%q not in %s", old, rel)
	}
	rng := protocol.Range{Start: positionOf(buf.text, i, e.utf8), End: positionOf(buf.text, i+len(old), e.utf8)}
	buf.text = buf.text[:i] + new + buf.text[i+len(old):]
	buf.version++
	buf.dirty = true
	version := buf.version
	e.mu.Unlock()
	err := e.server.DidChange(e.ctx(), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(p)}, Version: version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: rng, Text: new}},
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// Save writes a buffer to disk and tells the server.
func (e *Editor) Save(rel string) {
	e.t.Helper()
	if err := e.save(e.Path(rel)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *Editor) save(p string) error {
	e.mu.Lock()
	buf := e.buffers[p]
	if buf == nil {
		e.mu.Unlock()
		return fmt.Errorf("no buffer for %s", p)
	}
	text, open, version := buf.text, buf.open, buf.version
	unreported := buf.unreported
	buf.dirty, buf.unreported = false, false
	e.mu.Unlock()
	if open && unreported {
		e.server.DidChange(e.ctx(), &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(p)}, Version: version},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
		})
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		return err
	}
	if open {
		return e.server.DidSave(e.ctx(), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(p)}})
	}
	return nil
}

// Buffer returns the editor's text of a file and whether it has a buffer.
func (e *Editor) Buffer(rel string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	buf, ok := e.buffers[e.Path(rel)]
	if !ok {
		return "", false
	}
	return buf.text, true
}

// Dirty reports whether a buffer has unsaved changes.
func (e *Editor) Dirty(rel string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	buf, ok := e.buffers[e.Path(rel)]
	return ok && buf.dirty
}

// Await blocks until cond holds for what was recorded, or fails the test
// after timeout. cond runs with the editor locked.
func (e *Editor) Await(what string, timeout time.Duration, cond func(r *Recorded) bool) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	stop := time.AfterFunc(timeout, func() {
		e.mu.Lock()
		e.cond.Broadcast()
		e.mu.Unlock()
	})
	defer stop.Stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	for !cond(&e.Recorded) {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out after %v waiting for %s\nrecorded: %s", timeout, what, e.summary())
		}
		e.cond.Wait()
	}
}

// Snapshot returns a copy of what was recorded.
func (e *Editor) Snapshot() Recorded {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.Recorded
	r.Diagnostics = maps.Clone(r.Diagnostics)
	return r
}

// summary renders what was recorded for a failure message; callers hold mu.
func (e *Editor) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d edits, %d dialogs", len(e.Recorded.Edits), len(e.Recorded.Dialogs))
	for _, m := range e.Recorded.Messages {
		fmt.Fprintf(&b, "\n  message: %s", m.Message)
	}
	for _, l := range e.Recorded.Logs {
		fmt.Fprintf(&b, "\n  log: %s", l)
	}
	for _, p := range e.Recorded.Progress {
		fmt.Fprintf(&b, "\n  progress %s: %s %s", p.Kind, p.Title, p.Message)
	}
	return b.String()
}

// record appends under the lock and wakes waiters.
func (e *Editor) record(f func(r *Recorded)) {
	e.mu.Lock()
	f(&e.Recorded)
	e.cond.Broadcast()
	e.mu.Unlock()
}

// Shutdown sends shutdown and exit and returns the server's exit code.
func (e *Editor) Shutdown() int {
	e.t.Helper()
	if err := e.server.Shutdown(e.ctx()); err != nil {
		e.t.Fatalf("shutdown: %v", err)
	}
	e.server.Exit(e.ctx())
	select {
	case code := <-e.exit:
		e.mu.Lock()
		e.closed = true
		e.mu.Unlock()
		return code
	case <-time.After(30 * time.Second):
		e.t.Fatal("the server did not exit")
	}
	return -1
}

// Disconnect closes the connection as a crashed editor would and returns
// the server's exit code.
func (e *Editor) Disconnect() int {
	e.t.Helper()
	e.conn.Close()
	select {
	case code := <-e.exit:
		e.mu.Lock()
		e.closed = true
		e.mu.Unlock()
		return code
	case <-time.After(30 * time.Second):
		e.t.Fatal("the server did not exit after the client vanished")
	}
	return -1
}

// Close ends the session if the test did not.
func (e *Editor) Close() {
	e.goneOnce.Do(func() { close(e.gone) })
	e.mu.Lock()
	closed := e.closed
	e.closed = true
	e.mu.Unlock()
	if closed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.server.Shutdown(ctx)
	e.server.Exit(ctx)
	select {
	case <-e.exit:
	case <-time.After(10 * time.Second):
	}
	e.conn.Close()
}

func languageID(p string) string {
	switch filepath.Ext(p) {
	case ".go":
		return "go"
	case ".py":
		return "python"
	case ".ts":
		return "typescript"
	}
	return "plaintext"
}
