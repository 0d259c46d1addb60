package permission

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestVisible: every control character but the line break and the tab,
// DEL, the C1 controls, bidirectional overrides and isolates, and bytes
// that are not UTF-8 are shown as escapes; clean text comes back as it
// was, byte for byte.
func TestVisible(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, ünïcode ✓ and 日本語\n\tindented", "plain text, ünïcode ✓ and 日本語\n\tindented"},
		{"\x1b]52;c;aGk=\x07", `\u001b]52;c;aGk=\u0007`},
		{"\x1b]0;title\x1b\\", `\u001b]0;title\u001b\`},
		{"ok\r\x1b[2K\x1b[1A✓ forged", `ok\u000d\u001b[2K\u001b[1A✓ forged`},
		{"del\x7f c1\u009b31m", `del\u007f c1\u009b31m`},
		{"a\u202egnp.exe\u2066x\u2069\u200f", `a\u202egnp.exe\u2066x\u2069\u200f`},
		{"bad \x9b byte", `bad \x9b byte`},
		{"", ""},
	} {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestVisiblePieces: text escaped in pieces, however cut, holds no ESC:
// a sequence split across pieces loses its ESC in the piece that has it.
// Pieces are whole characters, as a streamed answer's are.
func TestVisiblePieces(t *testing.T) {
	attack := "before\x1b]52;c;c2VjcmV0\x07\x1b[2Kafter\u202e"
	whole := Visible(attack)
	for cut := 0; cut <= len(attack); cut++ {
		if cut < len(attack) && !utf8.RuneStart(attack[cut]) {
			continue
		}
		got := Visible(attack[:cut]) + Visible(attack[cut:])
		if strings.ContainsAny(got, "\x1b\x07\u202e") {
			t.Fatalf("cut at %d: %q", cut, got)
		}
		if got != whole {
			t.Errorf("cut at %d: %q, whole %q", cut, got, whole)
		}
	}
}

func BenchmarkVisibleClean(b *testing.B) {
	s := strings.Repeat("A clean line of an answer, with `code` and ünïcode.\n", 64)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Visible(s)
	}
}
