package graph

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// An encoding is the unit a server counts the character of a position in,
// as negotiated at initialize: UTF-8 bytes where the server offers it,
// UTF-16 code units (the protocol's default) otherwise. The tool interface
// counts characters (code points), so every position crosses this.
type encoding string

const (
	utf8Enc  encoding = "utf-8"
	utf16Enc encoding = "utf-16"
	utf32Enc encoding = "utf-32"
)

// A text is a document's content indexed by line. Lines end at "\n"; a
// "\r" before it belongs to the line ending, not to the line.
type text struct {
	s     string
	lines []int // byte offset where each line starts
}

func newText(s string) *text {
	t := &text{s: s, lines: []int{0}}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// line returns line n (0-based) without its line ending; "" past the end.
func (t *text) line(n int) string {
	if n < 0 || n >= len(t.lines) {
		return ""
	}
	end := len(t.s)
	if n+1 < len(t.lines) {
		end = t.lines[n+1] - 1
	}
	return strings.TrimSuffix(t.s[t.lines[n]:end], "\r")
}

// offset converts a server position to a byte offset, clamping a
// character past the end of its line to the line's end, as the protocol
// asks.
func (t *text) offset(p protocol.Position, enc encoding) (int, error) {
	n := int(p.Line)
	if n >= len(t.lines) {
		if n == len(t.lines) && p.Character == 0 {
			return len(t.s), nil // the position just past a final newline
		}
		return 0, fmt.Errorf("line %d is past the end (%d lines)", n+1, len(t.lines))
	}
	l := t.line(n)
	return t.lines[n] + byteIndex(l, int(p.Character), enc), nil
}

// position converts a byte offset to a server position.
func (t *text) position(off int, enc encoding) protocol.Position {
	off = min(max(off, 0), len(t.s))
	n := sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) - 1
	l := t.line(n)
	col := min(off-t.lines[n], len(l))
	return protocol.Position{Line: uint32(n), Character: uint32(units(l[:col], enc))}
}

// toServer converts a 1-based line and character column to a server
// position. A column past the end of the line is clamped to its end.
func (t *text) toServer(line, column int, enc encoding) protocol.Position {
	l := t.line(line - 1)
	b := byteIndex(l, column-1, utf32Enc)
	return protocol.Position{Line: uint32(max(line-1, 0)), Character: uint32(units(l[:b], enc))}
}

// fromServer converts a server position to a 1-based line and character
// column.
func (t *text) fromServer(p protocol.Position, enc encoding) (line, column int) {
	l := t.line(int(p.Line))
	b := byteIndex(l, int(p.Character), enc)
	return int(p.Line) + 1, utf8.RuneCountInString(l[:b]) + 1
}

// byteIndex returns the byte index in line of the n-th unit of enc,
// clamped to the line's length. A UTF-16 index inside a surrogate pair
// rounds down to the start of its character.
func byteIndex(line string, n int, enc encoding) int {
	if n <= 0 {
		return 0
	}
	if enc == utf8Enc {
		if n >= len(line) {
			return len(line)
		}
		for n > 0 && !utf8.RuneStart(line[n]) {
			n--
		}
		return n
	}
	count := 0
	for i, r := range line {
		w := 1
		if enc == utf16Enc {
			w = utf16.RuneLen(r)
			if w < 0 {
				w = 1 // an invalid rune is one replacement character
			}
		}
		if count+w > n {
			return i
		}
		count += w
	}
	return len(line)
}

// units counts s in the units of enc.
func units(s string, enc encoding) int {
	switch enc {
	case utf8Enc:
		return len(s)
	case utf32Enc:
		return utf8.RuneCountInString(s)
	}
	n := 0
	for _, r := range s {
		if w := utf16.RuneLen(r); w > 0 {
			n += w
		} else {
			n++
		}
	}
	return n
}
