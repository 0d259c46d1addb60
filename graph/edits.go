package graph

import "go.lsp.dev/protocol"

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
