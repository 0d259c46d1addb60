package wire

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// An Encoding is the unit in which a protocol.Position counts characters
// within a line. The two ends of a connection agree on one at initialize;
// until then, and whenever nothing else is agreed, it is UTF-16.
type Encoding int

const (
	UTF16 Encoding = iota // UTF-16 code units: the LSP default, which every peer supports
	UTF8                  // bytes
	UTF32                 // Unicode code points
)

// Kind is the name of e in the protocol.
func (e Encoding) Kind() protocol.PositionEncodingKind {
	switch e {
	case UTF8:
		return protocol.PositionEncodingKindUTF8
	case UTF32:
		return protocol.PositionEncodingKindUTF32
	default:
		return protocol.PositionEncodingKindUTF16
	}
}

func (e Encoding) String() string { return string(e.Kind()) }

// EncodingOf returns the encoding the protocol names kind, and false for a
// kind it does not know.
func EncodingOf(kind protocol.PositionEncodingKind) (Encoding, bool) {
	for _, e := range []Encoding{UTF16, UTF8, UTF32} {
		if e.Kind() == kind {
			return e, true
		}
	}
	return UTF16, false
}

// ChooseEncoding is the server's side of the negotiation: it picks the
// position encoding from the client's general.positionEncodings and
// returns it with the kind to announce in the server capabilities. UTF-8
// wins when offered: Go strings are UTF-8, so a position is then a byte
// count and needs no decoding. Otherwise it is UTF-16, which the spec makes
// mandatory for every client.
func ChooseEncoding(offered []protocol.PositionEncodingKind) (Encoding, protocol.PositionEncodingKind) {
	for _, k := range offered {
		if k == protocol.PositionEncodingKindUTF8 {
			return UTF8, UTF8.Kind()
		}
	}
	return UTF16, UTF16.Kind()
}

// Offset returns the byte offset in text of p, counted in enc.
//
// Lines end at "\n", "\r\n" or a lone "\r", as the spec says. A character
// past the end of its line means the end of the line (the terminator is
// never part of it), and one that falls inside a character — between the
// halves of a surrogate pair, or within a multi-byte UTF-8 sequence —
// rounds down to the start of that character. The line after the last one
// is accepted as the end of the document, whatever its character; any line
// beyond that is an error.
//
// It scans from the start of text without allocating: O(len(text)), cheap
// enough per request, so the server keeps no line index to invalidate.
// For many positions in one text, Text converts each in O(log lines).
func Offset(text string, p protocol.Position, enc Encoding) (int, error) {
	start := 0
	for line := uint32(0); line < p.Line; line++ {
		_, next := nextLine(text, start)
		if next < 0 {
			if line+1 == p.Line {
				return len(text), nil
			}
			return 0, pastEnd(p, line+1)
		}
		start = next
	}
	end, _ := nextLine(text, start)
	return start + LineOffset(text[start:end], p.Character, enc), nil
}

func pastEnd(p protocol.Position, lines uint32) error {
	return fmt.Errorf("position %d:%d is past the end of the document (%d lines)", p.Line, p.Character, lines)
}

// Position returns the position of the byte offset off in text, counted in
// enc: the inverse of Offset. An offset outside text is clamped to it, one
// inside a line terminator means the end of that line, and one inside a
// multi-byte character rounds down to its start.
func Position(text string, off int, enc Encoding) protocol.Position {
	off = max(0, min(off, len(text)))
	var line uint32
	start := 0
	for {
		end, next := nextLine(text, start)
		if next < 0 || off < next {
			return linePosition(text, line, start, end, off, enc)
		}
		start = next
		line++
	}
}

// linePosition returns the position of byte offset off in text, which
// falls in line number line, spanning text[start:end] without its
// terminator, or in that terminator.
func linePosition(text string, line uint32, start, end, off int, enc Encoding) protocol.Position {
	content := text[start:end]
	col := runeStart(content, min(off, end)-start)
	return protocol.Position{Line: line, Character: Units(content[:col], enc)}
}

// nextLine finds the end of the line that starts at byte i of text: end is
// the offset of its terminator (or len(text)), and next is where the
// following line starts, or -1 when this is the last line.
func nextLine(text string, i int) (end, next int) {
	rest := text[i:]
	nl := strings.IndexByte(rest, '\n')
	content := rest
	if nl >= 0 {
		content = rest[:nl]
	}
	// A '\r' can only end the line early, so look for one only before the
	// '\n': both searches stay vectorized and no byte is looked at twice.
	if cr := strings.IndexByte(content, '\r'); cr >= 0 {
		if cr+1 == nl {
			return i + cr, i + nl + 1 // "\r\n"
		}
		return i + cr, i + cr + 1 // a lone "\r"
	}
	if nl < 0 {
		return len(text), -1
	}
	return i + nl, i + nl + 1
}

// LineOffset returns the byte offset within line (which holds no
// terminator) of character char counted in enc, clamped to the end of the
// line and rounded down to the start of a character.
func LineOffset(line string, char uint32, enc Encoding) int {
	if enc == UTF8 {
		if uint64(char) >= uint64(len(line)) {
			return len(line)
		}
		return runeStart(line, int(char))
	}
	var n uint32 // units before byte i
	for i := 0; i < len(line); {
		if n >= char {
			return i
		}
		if line[i] < utf8.RuneSelf {
			i++
			n++
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		w := uint32(1)
		if enc == UTF16 && r > 0xFFFF {
			w = 2 // a surrogate pair
		}
		if char-n < w {
			return i // char is the second half of the pair
		}
		i += size
		n += w
	}
	return len(line)
}

// Units returns the length of s in enc.
func Units(s string, enc Encoding) uint32 {
	switch enc {
	case UTF8:
		return uint32(len(s))
	case UTF32:
		return uint32(utf8.RuneCountInString(s))
	}
	var n uint32
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			n++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// runeStart rounds byte offset i of s down to the start of the character
// holding it, splitting s as utf8.DecodeRuneInString does: an invalid
// byte is a character of its own.
func runeStart(s string, i int) int {
	if i >= len(s) || utf8.RuneStart(s[i]) {
		return i
	}
	// Only a byte that is not a continuation byte can begin a character,
	// and a character is at most UTFMax bytes long.
	for j := i - 1; j >= 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			if _, size := utf8.DecodeRuneInString(s[j:]); j+size > i {
				return j
			}
			return i
		}
	}
	return i
}

// A Text is a document with an index of where its lines start, for
// converting many positions in one document: each conversion then costs a
// binary search and a scan of one line, not a scan from the top. Its lines
// and its answers are exactly those of Offset and Position.
type Text struct {
	s      string
	starts []int // byte offset where each line starts; starts[0] == 0
}

// NewText indexes the lines of s.
func NewText(s string) *Text {
	t := &Text{s: s, starts: []int{0}}
	for i := 0; ; {
		_, next := nextLine(s, i)
		if next < 0 {
			return t
		}
		t.starts = append(t.starts, next)
		i = next
	}
}

// String returns the whole text.
func (t *Text) String() string { return t.s }

// Lines returns the number of lines. A text that ends with a terminator
// has an empty last line after it, as in Offset.
func (t *Text) Lines() int { return len(t.starts) }

// Line returns line n (0-based) without its terminator, or "" when there
// is no such line.
func (t *Text) Line(n int) string {
	if n < 0 || n >= len(t.starts) {
		return ""
	}
	end, _ := nextLine(t.s, t.starts[n])
	return t.s[t.starts[n]:end]
}

// Offset is Offset(t.String(), p, enc).
func (t *Text) Offset(p protocol.Position, enc Encoding) (int, error) {
	lines := uint64(len(t.starts))
	switch {
	case uint64(p.Line) == lines:
		return len(t.s), nil // the line after the last one: the end
	case uint64(p.Line) > lines:
		return 0, pastEnd(p, uint32(lines))
	}
	start := t.starts[p.Line]
	end, _ := nextLine(t.s, start)
	return start + LineOffset(t.s[start:end], p.Character, enc), nil
}

// Position is Position(t.String(), off, enc).
func (t *Text) Position(off int, enc Encoding) protocol.Position {
	off = max(0, min(off, len(t.s)))
	n := sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > off }) - 1
	end, _ := nextLine(t.s, t.starts[n])
	return linePosition(t.s, uint32(n), t.starts[n], end, off, enc)
}
