package graph

import (
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
)

// applyEdits applies a server's text edits to content. The edits' ranges
// refer to the original content and must not overlap; edits inserting at
// the same place apply in the order given, as the protocol specifies.
func applyEdits(content string, edits []protocol.TextEdit, enc encoding) (string, error) {
	t := newText(content)
	type span struct {
		start, end int
		text       string
		i          int
	}
	spans := make([]span, len(edits))
	for i, e := range edits {
		start, err := t.offset(e.Range.Start, enc)
		if err != nil {
			return "", err
		}
		end, err := t.offset(e.Range.End, enc)
		if err != nil {
			return "", err
		}
		if end < start {
			return "", fmt.Errorf("edit %d ends before it starts", i+1)
		}
		spans[i] = span{start, end, e.NewText, i}
	}
	sort.SliceStable(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	var b strings.Builder
	b.Grow(len(content))
	at := 0
	for _, s := range spans {
		if s.start < at {
			return "", fmt.Errorf("edit %d overlaps another", s.i+1)
		}
		b.WriteString(content[at:s.start])
		b.WriteString(s.text)
		at = s.end
	}
	b.WriteString(content[at:])
	return b.String(), nil
}

// textEdits flattens the edits of a TextDocumentEdit; snippet edits insert
// their snippet's text as is.
func textEdits(elems []protocol.TextDocumentEditElement) []protocol.TextEdit {
	out := make([]protocol.TextEdit, 0, len(elems))
	for _, e := range elems {
		switch e := e.(type) {
		case *protocol.TextEdit:
			out = append(out, *e)
		case *protocol.AnnotatedTextEdit:
			out = append(out, e.TextEdit)
		case *protocol.SnippetTextEdit:
			out = append(out, protocol.TextEdit{Range: e.Range, NewText: e.Snippet.Value})
		}
	}
	return out
}
