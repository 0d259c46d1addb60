package permission

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxChangeRunes bounds the change a prompt shows; past it the middle is
// cut, and the prompt says how much. A tool whose preview must be seen
// whole (a note to remember) keeps within it.
const MaxChangeRunes = 4000

// Change renders what a file-changing call would do, for a person to
// approve that exact change, in its tool's words (Describe): the content
// written, the text replaced and its replacement, the move, or the
// patch. A very long change keeps its beginning and its end and says
// what was left out. Calls of tools that render nothing, and arguments
// that do not decode, give "". A call that brings its own Preview shows
// that.
func (p Prompt) Change() string { return clipMiddle(p.wholeChange(), MaxChangeRunes) }

// changeRunes is how long the change is, uncut; cut reports whether
// Change leaves part of it out.
func (p Prompt) changeRunes() (n int, cut bool) {
	n = len([]rune(p.wholeChange()))
	return n, n > MaxChangeRunes
}

// wholeChange is Change uncut: the call's own Preview, or the change as
// its tool renders it (Describe).
func (p Prompt) wholeChange() string {
	if p.Preview != "" {
		return Visible(strings.TrimSuffix(p.Preview, "\n"))
	}
	change := changeOf(p.Tool)
	if change == nil {
		return ""
	}
	return Visible(strings.TrimSuffix(change(p.Args), "\n"))
}

// Visible escapes the characters that would make a change, or a call put
// to the user, look other than it is: control characters (an escape
// sequence can erase a terminal's line, hide text, set the window's title
// or write the clipboard, a carriage return overwrite the line), DEL,
// bidirectional overrides and isolates, and bytes that are not UTF-8 (a
// terminal in an 8-bit mode reads a lone 0x9b as the start of a control
// sequence). Line breaks and tabs stay, and text with nothing to escape is
// returned as it is, byte for byte. Each character is judged alone, so
// text that arrives in pieces (a streamed answer) is escaped the same
// however it is cut: an escape sequence split across pieces loses its ESC
// in the piece that holds it.
func Visible(s string) string {
	i := 0
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if hidden(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case hidden(r, size):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// hidden reports whether the rune r, of size bytes, is one Visible
// escapes.
func hidden(r rune, size int) bool {
	if r == utf8.RuneError && size == 1 {
		return true
	}
	return r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r))
}

// clipMiddle shortens s to about max runes by cutting out its middle.
func clipMiddle(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	head, tail := max*2/3, max/3
	return fmt.Sprintf("%s\n[… %d characters not shown …]\n%s", string(r[:head]), len(r)-head-tail, string(r[len(r)-tail:]))
}
