package permission

import (
	"encoding/json"
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
// approve that exact change: the content written, the text replaced and
// its replacement, the move, or the patch. A very long change keeps its
// beginning and its end and says what was left out. Calls of other
// tools, and arguments that do not decode, give "". A call that brings
// its own Preview shows that.
func (p Prompt) Change() string { return clipMiddle(p.wholeChange(), MaxChangeRunes) }

// changeRunes is how long the change is, uncut; cut reports whether
// Change leaves part of it out.
func (p Prompt) changeRunes() (n int, cut bool) {
	n = len([]rune(p.wholeChange()))
	return n, n > MaxChangeRunes
}

// wholeChange is Change uncut.
func (p Prompt) wholeChange() string {
	if p.Preview != "" {
		return Visible(strings.TrimSuffix(p.Preview, "\n"))
	}
	var a struct {
		Path        string `json:"path"`
		Content     string `json:"content"`
		OldString   string `json:"old_string"`
		NewString   string `json:"new_string"`
		ReplaceAll  bool   `json:"replace_all"`
		Source      string `json:"source"`
		Destination string `json:"destination"`
		Patch       string `json:"patch"`
		Edits       []struct {
			OldString  string `json:"old_string"`
			NewString  string `json:"new_string"`
			ReplaceAll bool   `json:"replace_all"`
		} `json:"edits"`
	}
	if json.Unmarshal(p.Args, &a) != nil {
		return ""
	}
	var b strings.Builder
	replace := func(old, repl string, all bool) {
		what := "Replace"
		if all {
			what = "Replace every occurrence of"
		}
		fmt.Fprintf(&b, "%s:\n%s\nwith:\n%s\n", what, fence(old), fence(repl))
	}
	switch p.Tool {
	case "write_file":
		fmt.Fprintf(&b, "Write %s with this content:\n%s\n", a.Path, fence(a.Content))
	case "edit_file":
		fmt.Fprintf(&b, "In %s:\n", a.Path)
		replace(a.OldString, a.NewString, a.ReplaceAll)
	case "multi_edit":
		fmt.Fprintf(&b, "In %s, %d edits in order:\n", a.Path, len(a.Edits))
		for _, e := range a.Edits {
			replace(e.OldString, e.NewString, e.ReplaceAll)
		}
	case "move_file":
		fmt.Fprintf(&b, "Move %s to %s.\n", a.Source, a.Destination)
	case "apply_patch":
		fmt.Fprintf(&b, "Apply this patch:\n%s\n", fence(a.Patch))
	default:
		return ""
	}
	return Visible(strings.TrimSuffix(b.String(), "\n"))
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

// fence sets text off between lines of dashes, so where it starts and ends
// (blank lines, trailing spaces) is plain.
func fence(text string) string {
	const rule = "----------"
	return rule + "\n" + strings.TrimSuffix(text, "\n") + "\n" + rule
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
