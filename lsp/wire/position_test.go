package wire

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// mixedText has a character of every width on its first line and every
// kind of line terminator. Byte offsets:
//
//	a 0, é 1-2, 世 3-5, 😀 6-9, b 10, \r\n 11-12 | x 13, \r 14 | y 15, \n 16 | "" 17
//
// In UTF-16 the first line is a 0, é 1, 世 2, 😀 3-4, b 5, end 6.
const mixedText = "aé世😀b\r\nx\ry\n"

func mkPos(line, char uint32) protocol.Position {
	return protocol.Position{Line: line, Character: char}
}

func TestOffset(t *testing.T) {
	tests := []struct {
		text    string
		p       protocol.Position
		enc     Encoding
		want    int
		wantErr bool
	}{
		// UTF-16
		{mixedText, mkPos(0, 0), UTF16, 0, false},
		{mixedText, mkPos(0, 1), UTF16, 1, false},
		{mixedText, mkPos(0, 2), UTF16, 3, false},
		{mixedText, mkPos(0, 3), UTF16, 6, false},
		{mixedText, mkPos(0, 4), UTF16, 6, false}, // between the surrogates: round down
		{mixedText, mkPos(0, 5), UTF16, 10, false},
		{mixedText, mkPos(0, 6), UTF16, 11, false},
		{mixedText, mkPos(0, 7), UTF16, 11, false}, // past the end of the line: clamp, not into "\r\n"
		{mixedText, mkPos(0, 1<<32-1), UTF16, 11, false},
		{mixedText, mkPos(1, 0), UTF16, 13, false},
		{mixedText, mkPos(1, 1), UTF16, 14, false},
		{mixedText, mkPos(1, 2), UTF16, 14, false}, // not past the lone "\r"
		{mixedText, mkPos(2, 0), UTF16, 15, false},
		{mixedText, mkPos(2, 9), UTF16, 16, false},
		{mixedText, mkPos(3, 0), UTF16, 17, false}, // the empty last line
		{mixedText, mkPos(3, 5), UTF16, 17, false},
		{mixedText, mkPos(4, 0), UTF16, 17, false}, // end of document
		{mixedText, mkPos(4, 3), UTF16, 17, false},
		{mixedText, mkPos(5, 0), UTF16, 0, true},
		{mixedText, mkPos(1<<32-1, 0), UTF16, 0, true},

		// UTF-8
		{mixedText, mkPos(0, 1), UTF8, 1, false},
		{mixedText, mkPos(0, 2), UTF8, 1, false}, // inside é
		{mixedText, mkPos(0, 3), UTF8, 3, false},
		{mixedText, mkPos(0, 5), UTF8, 3, false}, // inside 世
		{mixedText, mkPos(0, 6), UTF8, 6, false},
		{mixedText, mkPos(0, 9), UTF8, 6, false}, // inside 😀
		{mixedText, mkPos(0, 10), UTF8, 10, false},
		{mixedText, mkPos(0, 11), UTF8, 11, false},
		{mixedText, mkPos(0, 12), UTF8, 11, false},
		{mixedText, mkPos(2, 1), UTF8, 16, false},
		{mixedText, mkPos(4, 0), UTF8, 17, false},
		{mixedText, mkPos(5, 0), UTF8, 0, true},

		// UTF-32
		{mixedText, mkPos(0, 2), UTF32, 3, false},
		{mixedText, mkPos(0, 3), UTF32, 6, false},
		{mixedText, mkPos(0, 4), UTF32, 10, false},
		{mixedText, mkPos(0, 5), UTF32, 11, false},
		{mixedText, mkPos(0, 6), UTF32, 11, false},
		{mixedText, mkPos(1, 1), UTF32, 14, false},

		// No final newline: the line after the last is the end.
		{"ab", mkPos(0, 2), UTF16, 2, false},
		{"ab", mkPos(1, 0), UTF16, 2, false},
		{"ab", mkPos(1, 7), UTF16, 2, false},
		{"ab", mkPos(2, 0), UTF16, 0, true},
		{"", mkPos(0, 0), UTF16, 0, false},
		{"", mkPos(0, 4), UTF8, 0, false},
		{"", mkPos(1, 0), UTF16, 0, false},
		{"", mkPos(2, 0), UTF16, 0, true},

		// Terminators only.
		{"\r\n", mkPos(0, 1), UTF16, 0, false},
		{"\r\n", mkPos(1, 0), UTF16, 2, false},
		{"\r\n", mkPos(2, 0), UTF16, 2, false},
		{"\r\n", mkPos(3, 0), UTF16, 0, true},
		{"\r\r\n", mkPos(1, 0), UTF16, 1, false}, // a lone "\r", then "\r\n"
		{"\r\r\n", mkPos(1, 1), UTF16, 1, false},
		{"\r\r\n", mkPos(2, 0), UTF16, 3, false},
		{"\n\r", mkPos(1, 0), UTF16, 1, false}, // "\n\r" is two terminators
		{"\n\r", mkPos(2, 0), UTF16, 2, false},

		// Invalid UTF-8: each bad byte is a character of its own.
		{"a\xffb", mkPos(0, 2), UTF16, 2, false},
		{"a\xffb", mkPos(0, 2), UTF8, 2, false},
		{"\xe4\xb8x", mkPos(0, 1), UTF16, 1, false}, // a truncated 世
		{"\xe4\xb8x", mkPos(0, 1), UTF8, 1, false},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%q/%d:%d/%v", tt.text, tt.p.Line, tt.p.Character, tt.enc)
		got, err := Offset(tt.text, tt.p, tt.enc)
		switch {
		case tt.wantErr && err == nil:
			t.Errorf("%s: got %d, want an error", name, got)
		case !tt.wantErr && err != nil:
			t.Errorf("%s: %v", name, err)
		case !tt.wantErr && got != tt.want:
			t.Errorf("%s: got %d, want %d", name, got, tt.want)
		}
	}
}

func TestPosition(t *testing.T) {
	tests := []struct {
		text string
		off  int
		enc  Encoding
		want protocol.Position
	}{
		{mixedText, 0, UTF16, mkPos(0, 0)},
		{mixedText, 3, UTF16, mkPos(0, 2)},
		{mixedText, 6, UTF16, mkPos(0, 3)},
		{mixedText, 7, UTF16, mkPos(0, 3)}, // inside 😀: its start
		{mixedText, 10, UTF16, mkPos(0, 5)},
		{mixedText, 11, UTF16, mkPos(0, 6)},
		{mixedText, 12, UTF16, mkPos(0, 6)}, // between "\r" and "\n": the end of the line
		{mixedText, 13, UTF16, mkPos(1, 0)},
		{mixedText, 14, UTF16, mkPos(1, 1)},
		{mixedText, 15, UTF16, mkPos(2, 0)},
		{mixedText, 17, UTF16, mkPos(3, 0)},
		{mixedText, 99, UTF16, mkPos(3, 0)},
		{mixedText, -1, UTF16, mkPos(0, 0)},
		{mixedText, 6, UTF8, mkPos(0, 6)},
		{mixedText, 8, UTF8, mkPos(0, 6)},
		{mixedText, 10, UTF8, mkPos(0, 10)},
		{mixedText, 10, UTF32, mkPos(0, 4)},
		{mixedText, 11, UTF32, mkPos(0, 5)},
		{"ab", 2, UTF16, mkPos(0, 2)},
		{"", 0, UTF16, mkPos(0, 0)},
		{"\r\r\n", 3, UTF16, mkPos(2, 0)},
	}
	for _, tt := range tests {
		if got := Position(tt.text, tt.off, tt.enc); got != tt.want {
			t.Errorf("Position(%q, %d, %v) = %d:%d, want %d:%d", tt.text, tt.off, tt.enc,
				got.Line, got.Character, tt.want.Line, tt.want.Character)
		}
	}
}

// roundTripTexts are texts to check every position of.
var roundTripTexts = []string{
	mixedText,
	"",
	"x",
	"\n",
	"\r",
	"\r\n\r\n",
	"\n\r\r\n\n",
	"no final newline\nsecond 😀😀 line",
	"a\xffb\x80\xe4\xb8c\n\xf0\x9f\x98", // invalid and truncated sequences
	strings.Repeat("ab\r\ncd\ref\n", 3),
}

// TestPositionRoundTrip checks that Offset inverts Position at every byte
// of a few texts: exactly where the byte starts a character outside a
// "\r\n", and by rounding down elsewhere.
func TestPositionRoundTrip(t *testing.T) {
	for _, text := range roundTripTexts {
		for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
			for off := 0; off <= len(text); off++ {
				p := Position(text, off, enc)
				got, err := Offset(text, p, enc)
				if err != nil {
					t.Fatalf("%q %v: Offset(Position(%d) = %d:%d): %v", text, enc, off, p.Line, p.Character, err)
				}
				exact := off == len(text) ||
					utf8.RuneStart(text[off]) && !(off > 0 && text[off-1] == '\r' && text[off] == '\n')
				if exact && got != off || got > off || Position(text, got, enc) != p {
					t.Errorf("%q %v: Offset(Position(%d) = %d:%d) = %d", text, enc, off, p.Line, p.Character, got)
				}
			}
		}
	}
}

// TestTextMatchesScan checks that a Text answers as Offset and Position
// do, at every byte and at every position near the text, and that its
// lines are theirs.
func TestTextMatchesScan(t *testing.T) {
	for _, text := range roundTripTexts {
		tx := NewText(text)
		if tx.String() != text {
			t.Errorf("NewText(%q).String() = %q", text, tx.String())
		}
		var lines []string
		for i := 0; ; {
			end, next := nextLine(text, i)
			lines = append(lines, text[i:end])
			if next < 0 {
				break
			}
			i = next
		}
		if tx.Lines() != len(lines) {
			t.Errorf("NewText(%q).Lines() = %d, want %d", text, tx.Lines(), len(lines))
		}
		for n := -1; n <= len(lines); n++ {
			want := ""
			if n >= 0 && n < len(lines) {
				want = lines[n]
			}
			if got := tx.Line(n); got != want {
				t.Errorf("NewText(%q).Line(%d) = %q, want %q", text, n, got, want)
			}
		}
		for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
			for off := -1; off <= len(text)+1; off++ {
				if got, want := tx.Position(off, enc), Position(text, off, enc); got != want {
					t.Errorf("%q %v: Text.Position(%d) = %v, want %v", text, enc, off, got, want)
				}
			}
			for line := range uint32(len(lines) + 2) {
				for char := range uint32(len(text) + 2) {
					p := mkPos(line, char)
					got, gotErr := tx.Offset(p, enc)
					want, wantErr := Offset(text, p, enc)
					if got != want || (gotErr == nil) != (wantErr == nil) {
						t.Errorf("%q %v: Text.Offset(%d:%d) = %d, %v; want %d, %v", text, enc, line, char, got, gotErr, want, wantErr)
					}
				}
			}
		}
	}
}

func TestEncodingOf(t *testing.T) {
	for _, e := range []Encoding{UTF16, UTF8, UTF32} {
		if got, ok := EncodingOf(e.Kind()); got != e || !ok {
			t.Errorf("EncodingOf(%q) = %v, %v", e.Kind(), got, ok)
		}
	}
	if got, ok := EncodingOf("latin-1"); got != UTF16 || ok {
		t.Errorf("EncodingOf(latin-1) = %v, %v; want utf-16, false", got, ok)
	}
}

func TestChooseEncoding(t *testing.T) {
	tests := []struct {
		offered  []protocol.PositionEncodingKind
		want     Encoding
		wantKind protocol.PositionEncodingKind
	}{
		{nil, UTF16, "utf-16"},
		{[]protocol.PositionEncodingKind{"utf-16"}, UTF16, "utf-16"},
		{[]protocol.PositionEncodingKind{"utf-32", "utf-16"}, UTF16, "utf-16"},
		{[]protocol.PositionEncodingKind{"utf-16", "utf-8"}, UTF8, "utf-8"},
		{[]protocol.PositionEncodingKind{"utf-32", "utf-8", "utf-16"}, UTF8, "utf-8"},
		{[]protocol.PositionEncodingKind{"latin-1"}, UTF16, "utf-16"},
	}
	for _, tt := range tests {
		got, kind := ChooseEncoding(tt.offered)
		if got != tt.want || kind != tt.wantKind {
			t.Errorf("ChooseEncoding(%q) = %v, %q; want %v, %q", tt.offered, got, kind, tt.want, tt.wantKind)
		}
	}
}

func TestOffsetDoesNotAllocate(t *testing.T) {
	text := sampleSource(5000)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := Offset(text, mkPos(4000, 30), UTF16); err != nil {
			t.Fatal(err)
		}
		Position(text, len(text)-10, UTF16)
	})
	if allocs != 0 {
		t.Errorf("Offset and Position allocate %v times per call, want 0", allocs)
	}
}

// sampleSource returns a Go-like source file of n lines, some of them not
// ASCII.
func sampleSource(n int) string {
	var b strings.Builder
	for i := range n {
		switch i % 10 {
		case 0:
			fmt.Fprintf(&b, "// Line %d says héllo, 世界 😀.\n", i)
		case 9:
			b.WriteString("}\n")
		default:
			fmt.Fprintf(&b, "\tx%d := compute(%d, \"value\") + other\n", i, i)
		}
	}
	return b.String()
}

func BenchmarkOffset(b *testing.B) {
	text := sampleSource(5000)
	for _, enc := range []Encoding{UTF16, UTF8} {
		b.Run(enc.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				// Line 4,990 is a comment with non-ASCII text: near the
				// worst case, scanning almost the whole file.
				if _, err := Offset(text, mkPos(4990, 25), enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
