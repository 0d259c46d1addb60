package graph

import (
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/wire"
)

// The tool interface counts lines from 1 and columns in characters (code
// points) from 1; a server counts both from 0, characters in the encoding
// negotiated at initialize (wire.UTF16 unless it offers UTF-8 or UTF-32).
// Every position crosses between the two here.

// toServer converts a 1-based line and character column in t to a server
// position. A column past the end of the line is clamped to its end.
func toServer(t *wire.Text, line, column int, enc wire.Encoding) protocol.Position {
	l := t.Line(line - 1)
	b := wire.LineOffset(l, uint32(max(column-1, 0)), wire.UTF32)
	return protocol.Position{Line: uint32(max(line-1, 0)), Character: wire.Units(l[:b], enc)}
}

// fromServer converts a server position in t to a 1-based line and
// character column.
func fromServer(t *wire.Text, p protocol.Position, enc wire.Encoding) (line, column int) {
	l := t.Line(int(p.Line))
	b := wire.LineOffset(l, p.Character, enc)
	return int(p.Line) + 1, utf8.RuneCountInString(l[:b]) + 1
}
