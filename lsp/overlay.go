package lsp

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
)

// An overlay holds the documents the client has open. While a document is
// open the client owns its text: what the overlay holds, unsaved edits
// included, is the truth, and the file on disk may be stale.
type overlay struct {
	mu   sync.Mutex           // guards docs
	docs map[uri.URI]document // keyed by the URI the client sent
}

// A document is a snapshot of an open document. It is a value: later
// changes to the overlay never show through a document already handed out.
type document struct {
	URI        uri.URI
	Path       string // absolute, cleaned file name; "" for a non-file URI such as untitled:
	LanguageID string
	Version    int32
	Text       string
}

func newOverlay() *overlay {
	return &overlay{docs: make(map[uri.URI]document)}
}

// open records a document the client opened. Opening one that is already
// open replaces it: the client's word is final.
func (o *overlay) open(u uri.URI, languageID string, version int32, text string) {
	d := document{URI: u, Path: pathOf(u), LanguageID: languageID, Version: version, Text: text}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.docs[u] = d
}

// change applies the changes of one didChange notification, in order, and
// sets the version. A document that is not open, or a change that does not
// apply, is an error and leaves the document as it was: the caller has lost
// track of the client's text and should say so.
//
// A version that does not increase is accepted as sent; spotting it (to log
// it) is the caller's business, by comparing with get beforehand.
func (o *overlay) change(u uri.URI, version int32, changes []protocol.TextDocumentContentChangeEvent, enc wire.Encoding) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[u]
	if !ok {
		return fmt.Errorf("change to %s, which is not open", u)
	}
	text := d.Text
	for i, c := range changes {
		var err error
		if text, err = applyChange(text, c, enc); err != nil {
			return fmt.Errorf("change %d of %d to %s: %w", i+1, len(changes), u, err)
		}
	}
	d.Text = text
	d.Version = version
	o.docs[u] = d
	return nil
}

// applyChange returns text with one content change applied.
func applyChange(text string, c protocol.TextDocumentContentChangeEvent, enc wire.Encoding) (string, error) {
	switch c := c.(type) {
	case *protocol.TextDocumentContentChangeWholeDocument:
		if c != nil {
			return c.Text, nil
		}
	case *protocol.TextDocumentContentChangePartial:
		if c == nil {
			break
		}
		// RangeLength is deprecated and redundant with Range; trust Range.
		start, err := wire.Offset(text, c.Range.Start, enc)
		if err != nil {
			return "", err
		}
		end, err := wire.Offset(text, c.Range.End, enc)
		if err != nil {
			return "", err
		}
		if end < start {
			return "", fmt.Errorf("range %d:%d-%d:%d ends before it starts",
				c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character)
		}
		return text[:start] + c.Text + text[end:], nil
	}
	return "", errors.New("empty content change")
}

// close forgets a document the client closed.
func (o *overlay) close(u uri.URI) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.docs, u)
}

// get returns the open document u.
func (o *overlay) get(u uri.URI) (document, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[u]
	return d, ok
}

// byPath returns the open document whose file is path. Paths are compared
// after cleaning, and byte for byte: on a case-insensitive file system two
// spellings of one file are two documents, as they are to the client.
//
// It looks at every open document. A client has tens open, not thousands,
// and a second index keyed by path would have to settle which of two URIs
// naming the same file wins; this way the answer is simply the least URI.
func (o *overlay) byPath(path string) (document, bool) {
	if path == "" {
		return document{}, false
	}
	path = filepath.Clean(path)
	o.mu.Lock()
	defer o.mu.Unlock()
	var found document
	ok := false
	for _, d := range o.docs {
		if d.Path == path && (!ok || d.URI < found.URI) {
			found, ok = d, true
		}
	}
	return found, ok
}

// all returns every open document, sorted by path and then by URI, so
// documents without a file come first.
func (o *overlay) all() []document {
	o.mu.Lock()
	docs := make([]document, 0, len(o.docs))
	for _, d := range o.docs {
		docs = append(docs, d)
	}
	o.mu.Unlock()
	slices.SortFunc(docs, func(a, b document) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.URI, b.URI))
	})
	return docs
}
