package graph

import (
	"context"
	"errors"
	"io/fs"
	"maps"
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

// maxOpen bounds the documents a server keeps open that the editor does
// not: files opened only to ask about them are closed again, least
// recently used first, so a long session does not pin the whole tree in
// the server's memory.
const maxOpen = 64

// A document is a file the server has open: the server sees its text
// instead of the disk's.
type document struct {
	uri     uri.URI
	version int32
	text    string
	// overlay is set while the text comes from the editor's buffers
	// rather than from the FS.
	overlay bool
	used    uint64 // the sync that last needed it
	// sent is the server's publication count when this version was sent:
	// diagnostics published after it may be for this version.
	sent uint64
}

// A source is what files say at one moment: the editor's documents over
// the FS. One is taken per operation, so every server sees the same
// snapshot.
type source struct {
	fs      tools.FS
	overlay map[string]string // absolute path → text of the editor's documents; read-only
	// withhold reports the files whose text stays out of an answer
	// (tools.GraphQuery.Withhold); nil withholds nothing. Read-only.
	withhold func(path string) bool

	mu    sync.Mutex            // guards cache
	cache map[string]*wire.Text // texts read so far, for positions and snippets
}

func newSource(fsys tools.FS, docs tools.DocumentSource) *source {
	src := &source{fs: fsys, overlay: map[string]string{}, cache: map[string]*wire.Text{}}
	if docs != nil {
		for _, d := range docs.OpenDocuments() {
			src.overlay[filepath.Clean(d.Path)] = d.Text
		}
	}
	return src
}

// withheld reports whether the text of the file at path stays out of the
// answer.
func (src *source) withheld(path string) bool {
	return src.withhold != nil && src.withhold(path)
}

// read returns a file's current text.
func (src *source) read(path string) (string, error) {
	if t, ok := src.overlay[path]; ok {
		return t, nil
	}
	b, err := src.fs.ReadFile(path)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// text returns a file's current text, indexed by line; nil when it cannot
// be read.
func (src *source) text(path string) *wire.Text {
	src.mu.Lock()
	defer src.mu.Unlock()
	if t, ok := src.cache[path]; ok {
		return t
	}
	s, err := src.read(path)
	var t *wire.Text
	if err == nil {
		t = wire.NewText(s)
	}
	src.cache[path] = t
	return t
}

// sync brings the server's view up to date before a request: the editor's
// documents are opened or changed to their buffer text, documents opened
// earlier are refreshed from the FS (the agent's shell commands may have
// changed them), the files in need are opened, and files changed on disk
// behind the server's back are reported as watched-file changes. Content
// is always sent whole, with the version increased.
func (s *server) sync(ctx context.Context, src *source, need []string) error {
	if s.caps.syncNone {
		return nil
	}
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	s.clock++

	if s.stale.Swap(false) {
		s.rescan()
	}
	if err := s.flushPending(ctx); err != nil {
		return err
	}
	for path, t := range src.overlay {
		if handles(s.cfg, path) && within(s.root, path) {
			if err := s.put(ctx, path, t, true); err != nil {
				return err
			}
		}
	}
	for _, path := range slices.Sorted(maps.Keys(s.docs)) {
		if _, ok := src.overlay[path]; ok {
			continue
		}
		s.docs[path].overlay = false
		t, err := src.read(path)
		if errors.Is(err, fs.ErrNotExist) {
			if err := s.close(ctx, path); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			continue // unreadable for now: keep what the server has
		}
		if err := s.put(ctx, path, t, false); err != nil {
			return err
		}
	}
	for _, path := range need {
		if d, ok := s.docs[path]; ok {
			d.used = s.clock
			continue
		}
		t, err := src.read(path)
		if err != nil {
			continue // the request will say what is wrong with the file
		}
		if err := s.put(ctx, path, t, false); err != nil {
			return err
		}
	}
	return s.evict(ctx)
}

// anchor returns a file to open when the server has none open:
// typescript-language-server has no project, and so no workspace symbols,
// until one is.
func (s *server) anchor() []string {
	s.syncMu.Lock()
	n := len(s.docs)
	s.syncMu.Unlock()
	if n > 0 {
		return nil
	}
	if p := findFile(s.root, s.cfg); p != "" {
		return []string{p}
	}
	return nil
}

// put opens a document, or changes it when its text differs.
func (s *server) put(ctx context.Context, path, t string, overlay bool) error {
	d, ok := s.docs[path]
	if !ok {
		d = &document{uri: uri.File(path), version: 1, text: t, overlay: overlay, used: s.clock, sent: s.publications()}
		s.docs[path] = d
		return s.notify(ctx, "textDocument/didOpen", &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: d.uri, LanguageID: protocol.LanguageKind(languageID(path)), Version: d.version, Text: t,
		}})
	}
	d.overlay = d.overlay || overlay
	if overlay {
		d.used = s.clock
	}
	if d.text == t {
		return nil
	}
	d.version++
	d.text = t
	d.sent = s.publications()
	return s.notify(ctx, "textDocument/didChange", &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.uri}, Version: d.version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: t}},
	})
}

// close closes a document; the server reads the disk for it again.
func (s *server) close(ctx context.Context, path string) error {
	d, ok := s.docs[path]
	if !ok {
		return nil
	}
	delete(s.docs, path)
	return s.notify(ctx, "textDocument/didClose", &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.uri}})
}

// evict closes the least recently used documents beyond maxOpen that the
// editor does not hold.
func (s *server) evict(ctx context.Context) error {
	var idle []string
	for path, d := range s.docs {
		if !d.overlay && d.used < s.clock {
			idle = append(idle, path)
		}
	}
	if len(idle) <= maxOpen {
		return nil
	}
	sort.Slice(idle, func(i, j int) bool { return s.docs[idle[i]].used < s.docs[idle[j]].used })
	for _, path := range idle[:len(idle)-maxOpen] {
		if err := s.close(ctx, path); err != nil {
			return err
		}
	}
	return nil
}

// changed records files changed on disk, to report before the next
// request.
func (s *server) changed(paths map[string]bool) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	for p, exists := range paths {
		if handles(s.cfg, p) && within(s.root, p) {
			s.pending[p] = exists
		}
	}
}

// flushPending sends workspace/didChangeWatchedFiles for the files
// recorded by changed. Open documents are reported too: a server may keep
// state about the file on disk besides the open buffer.
func (s *server) flushPending(ctx context.Context) error {
	if len(s.pending) == 0 {
		return nil
	}
	var events []protocol.FileEvent
	for _, p := range slices.Sorted(maps.Keys(s.pending)) {
		typ := protocol.FileChangeTypeChanged
		if !s.pending[p] {
			typ = protocol.FileChangeTypeDeleted
		}
		events = append(events, protocol.FileEvent{URI: uri.File(p), Type: typ})
	}
	clear(s.pending)
	return s.notify(ctx, "workspace/didChangeWatchedFiles", &protocol.DidChangeWatchedFilesParams{Changes: events})
}

// version returns the version of an open document and the publication
// count when it was sent; ok is false when it is not open.
func (s *server) version(path string) (version int32, sent uint64, ok bool) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	if d, ok := s.docs[path]; ok {
		return d.version, d.sent, true
	}
	return 0, 0, false
}

// languageID names a file's language as LSP does.
func languageID(path string) string {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".go":
		return "go"
	case ".py", ".pyi":
		return "python"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	default:
		return strings.TrimPrefix(ext, ".")
	}
}

// within reports whether path is root or inside it.
func within(root, path string) bool {
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator)) || root == string(filepath.Separator)
}
