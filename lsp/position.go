package lsp

import (
	"fmt"
	"strings"
	// Aliased: the encoding constants below take the names utf8 and utf16
	// in this package, so any file here that needs unicode/utf8 or
	// unicode/utf16 must import them under another name.
	unicodeutf8 "unicode/utf8"

	"go.lsp.dev/protocol"
)

// An encoding is the unit in which a protocol.Position counts characters
// within a line. Client and server agree on one at initialize; until then,
// and whenever the client offers nothing, it is UTF-16.
type encoding int

const (
	utf16 encoding = iota // UTF-16 code units: the LSP default, which every client supports
	utf8                  // bytes
	utf32                 // Unicode code points
)

// kind is the name of e in the protocol.
func (e encoding) kind() protocol.PositionEncodingKind {
	switch e {
	case utf8:
		return protocol.PositionEncodingKindUTF8
	case utf32:
		return protocol.PositionEncodingKindUTF32
	default:
		return protocol.PositionEncodingKindUTF16
	}
}

func (e encoding) String() string { return string(e.kind()) }

// chooseEncoding picks the position encoding from the client's
// general.positionEncodings and returns it with the kind to announce in
// the server capabilities. UTF-8 wins when offered: Go strings are UTF-8,
// so a position is then a byte count and needs no decoding. Otherwise it is
// UTF-16, which the spec makes mandatory for every client.
func chooseEncoding(offered []protocol.PositionEncodingKind) (encoding, protocol.PositionEncodingKind) {
	for _, k := range offered {
		if k == protocol.PositionEncodingKindUTF8 {
			return utf8, utf8.kind()
		}
	}
	return utf16, utf16.kind()
}

// offset returns the byte offset in text of p, counted in enc.
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
func offset(text string, p protocol.Position, enc encoding) (int, error) {
	start := 0
	for line := uint32(0); line < p.Line; line++ {
		_, next := nextLine(text, start)
		if next < 0 {
			if line+1 == p.Line {
				return len(text), nil
			}
			return 0, fmt.Errorf("position %d:%d is past the end of the document (%d lines)", p.Line, p.Character, line+1)
		}
		start = next
	}
	end, _ := nextLine(text, start)
	return start + lineOffset(text[start:end], p.Character, enc), nil
}

// position returns the position of the byte offset off in text, counted in
// enc: the inverse of offset. An offset outside text is clamped to it, one
// inside a line terminator means the end of that line, and one inside a
// multi-byte character rounds down to its start.
func position(text string, off int, enc encoding) protocol.Position {
	off = max(0, min(off, len(text)))
	var line uint32
	start := 0
	for {
		end, next := nextLine(text, start)
		if next < 0 || off < next {
			content := text[start:end]
			col := runeStart(content, min(off, end)-start)
			return protocol.Position{Line: line, Character: units(content[:col], enc)}
		}
		start = next
		line++
	}
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

// lineOffset returns the byte offset within line (which holds no
// terminator) of character char counted in enc, clamped to the end of the
// line and rounded down to the start of a character.
func lineOffset(line string, char uint32, enc encoding) int {
	if enc == utf8 {
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
		if line[i] < unicodeutf8.RuneSelf {
			i++
			n++
			continue
		}
		r, size := unicodeutf8.DecodeRuneInString(line[i:])
		w := uint32(1)
		if enc == utf16 && r > 0xFFFF {
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

// units returns the length of s in enc.
func units(s string, enc encoding) uint32 {
	switch enc {
	case utf8:
		return uint32(len(s))
	case utf32:
		return uint32(unicodeutf8.RuneCountInString(s))
	}
	var n uint32
	for i := 0; i < len(s); {
		if s[i] < unicodeutf8.RuneSelf {
			i++
			n++
			continue
		}
		r, size := unicodeutf8.DecodeRuneInString(s[i:])
		i += size
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// runeStart rounds byte offset i of s down to the start of the character
// holding it, splitting s as unicodeutf8.DecodeRuneInString does: an invalid
// byte is a character of its own.
func runeStart(s string, i int) int {
	if i >= len(s) || unicodeutf8.RuneStart(s[i]) {
		return i
	}
	// Only a byte that is not a continuation byte can begin a character,
	// and a character is at most UTFMax bytes long.
	for j := i - 1; j >= 0 && j > i-unicodeutf8.UTFMax; j-- {
		if unicodeutf8.RuneStart(s[j]) {
			if _, size := unicodeutf8.DecodeRuneInString(s[j:]); j+size > i {
				return j
			}
			return i
		}
	}
	return i
}
