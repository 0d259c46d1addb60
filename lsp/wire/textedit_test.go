package wire

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

var allEncodings = []Encoding{UTF16, UTF8, UTF32}

// checkTextEdits checks that textEdits turns old into new with edits that
// are in order, do not overlap, replace whole lines and name exact
// positions (an editor must not need to clamp them), and returns them.
func checkTextEdits(t *testing.T, old, new string, enc Encoding) []protocol.TextEdit {
	t.Helper()
	edits := TextEdits(old, new, enc)
	if old == new && len(edits) != 0 {
		t.Errorf("TextEdits(%q, %q, %v): %d edits for equal texts", old, new, enc, len(edits))
	}
	got, err := ApplyEdits(old, edits, enc)
	if err != nil {
		t.Fatalf("TextEdits(%q, %q, %v) = %v: applying: %v", old, new, enc, edits, err)
	}
	if got != new {
		t.Fatalf("TextEdits(%q, %q, %v) = %v: applied, they give %q", old, new, enc, edits, got)
	}
	end := Position(old, len(old), enc)
	last := -1
	for i, e := range edits {
		start, _ := Offset(old, e.Range.Start, enc)
		stop, _ := Offset(old, e.Range.End, enc)
		for _, p := range []protocol.Position{e.Range.Start, e.Range.End} {
			if off, _ := Offset(old, p, enc); Position(old, off, enc) != p {
				t.Errorf("TextEdits(%q, %q, %v): edit %d: position %d:%d is not exact", old, new, enc, i, p.Line, p.Character)
			}
			if p.Character != 0 && p != end {
				t.Errorf("TextEdits(%q, %q, %v): edit %d: position %d:%d is inside a line", old, new, enc, i, p.Line, p.Character)
			}
		}
		if start > stop || start <= last {
			// Touching edits would have been merged: start == last is an error too.
			t.Errorf("TextEdits(%q, %q, %v) = %v: edit %d is out of order or overlaps", old, new, enc, edits, i)
		}
		last = stop
	}
	return edits
}

func TestTextEdits(t *testing.T) {
	tests := []struct {
		old, new string
		want     []protocol.TextEdit // in UTF-16; nil to check only the round trip
	}{
		{"", "", []protocol.TextEdit{}},
		{"a\n", "a\n", []protocol.TextEdit{}},
		{"", "a\nb\n", []protocol.TextEdit{{Range: mkRange(0, 0, 0, 0), NewText: "a\nb\n"}}},
		{"a\nb\n", "", []protocol.TextEdit{{Range: mkRange(0, 0, 2, 0), NewText: ""}}},
		{"a\nb\nc\n", "a\nB\nc\n", []protocol.TextEdit{{Range: mkRange(1, 0, 2, 0), NewText: "B\n"}}},
		{"a\nc\n", "a\nb\nc\n", []protocol.TextEdit{{Range: mkRange(1, 0, 1, 0), NewText: "b\n"}}},
		{"a\nb\nc\n", "a\nc\n", []protocol.TextEdit{{Range: mkRange(1, 0, 2, 0), NewText: ""}}},
		{"a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", []protocol.TextEdit{
			{Range: mkRange(0, 0, 1, 0), NewText: "A\n"},
			{Range: mkRange(4, 0, 5, 0), NewText: "E\n"},
		}},
		// No final newline: the edit ends at the end of the last line.
		{"a\nb", "a\nc", []protocol.TextEdit{{Range: mkRange(1, 0, 1, 1), NewText: "c"}}},
		{"a\nb", "a\nb\n", []protocol.TextEdit{{Range: mkRange(1, 0, 1, 1), NewText: "b\n"}}},
		{"a\nb\n", "a\nb", []protocol.TextEdit{{Range: mkRange(1, 0, 2, 0), NewText: "b"}}},
		{"a\nb", "a\nb\nc", []protocol.TextEdit{{Range: mkRange(1, 0, 1, 1), NewText: "b\nc"}}},
		{"x😀", "y😀", []protocol.TextEdit{{Range: mkRange(0, 0, 0, 3), NewText: "y😀"}}},
		{"a\nx😀", "a\n", []protocol.TextEdit{{Range: mkRange(1, 0, 1, 3), NewText: ""}}},
		// CRLF and lone CR.
		{"a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", []protocol.TextEdit{{Range: mkRange(1, 0, 2, 0), NewText: "B\r\n"}}},
		{"a\r\nb\r\n", "a\nb\r\n", []protocol.TextEdit{{Range: mkRange(0, 0, 1, 0), NewText: "a\n"}}},
		{"a\rb\r", "a\r\nb\r", []protocol.TextEdit{{Range: mkRange(0, 0, 1, 0), NewText: "a\r\n"}}},
		{"a\r", "a\r\n", []protocol.TextEdit{{Range: mkRange(0, 0, 1, 0), NewText: "a\r\n"}}},
		{"a\r\n", "a\r", []protocol.TextEdit{{Range: mkRange(0, 0, 1, 0), NewText: "a\r"}}},
		{"a\rb\n", "a\r\nb\n", nil},
		{"a\r\nb\n", "a\rb\n", nil},
		{"\r\n\r\n", "\r\r\n\n", nil},
		{"\n\r\n\r", "\r\n\r\n", nil},
		// Moves and repeats.
		{"a\nb\nc\nd\n", "c\nd\na\nb\n", nil},
		{"x\nx\nx\n", "x\nx\nx\nx\n", []protocol.TextEdit{{Range: mkRange(3, 0, 3, 0), NewText: "x\n"}}},
		{"x\ny\nx\ny\n", "y\nx\ny\nx\n", nil},
	}
	for _, tt := range tests {
		for _, enc := range allEncodings {
			edits := checkTextEdits(t, tt.old, tt.new, enc)
			if enc == UTF16 && tt.want != nil && !slices.Equal(edits, tt.want) && !(len(edits) == 0 && len(tt.want) == 0) {
				t.Errorf("TextEdits(%q, %q) = %v, want %v", tt.old, tt.new, edits, tt.want)
			}
		}
	}
}

func mkRange(sl, sc, el, ec uint32) protocol.Range {
	return protocol.Range{Start: mkPos(sl, sc), End: mkPos(el, ec)}
}

// TestTextEditsRandom round-trips random edits of random texts, made of few
// distinct lines so that the diff has repeats to get wrong.
func TestTextEditsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		old := randomLinesText(r)
		new := mutateText(r, old)
		for _, enc := range allEncodings {
			checkTextEdits(t, old, new, enc)
		}
	}
}

var (
	sampleLines       = []string{"", "a", "b", "c", "func f() {", "}", "\treturn é", "世界", "😀"}
	sampleTerminators = []string{"\n", "\n", "\n", "\r\n", "\r"}
)

func randomLinesText(r *rand.Rand) string {
	var b strings.Builder
	crlf := r.IntN(3) == 0 // mostly one style, like real files
	for range r.IntN(30) {
		b.WriteString(sampleLines[r.IntN(len(sampleLines))])
		switch {
		case crlf && r.IntN(10) > 0:
			b.WriteString("\r\n")
		default:
			b.WriteString(sampleTerminators[r.IntN(len(sampleTerminators))])
		}
	}
	if r.IntN(3) == 0 {
		b.WriteString(sampleLines[r.IntN(len(sampleLines))]) // no final newline
	}
	return b.String()
}

// mutateText applies a few random byte-level edits to s — inserts,
// deletes and replacements — that may split a character, a "\r\n" or a
// line.
func mutateText(r *rand.Rand, s string) string {
	for range 1 + r.IntN(4) {
		i := r.IntN(len(s) + 1)
		j := min(len(s), i+r.IntN(12))
		var ins string
		switch r.IntN(3) {
		case 0:
			ins = sampleLines[r.IntN(len(sampleLines))]
		case 1:
			ins = sampleTerminators[r.IntN(len(sampleTerminators))]
		case 2:
			ins = randomLinesText(r)
		}
		switch r.IntN(3) {
		case 0:
			j = i // insert
		case 1:
			ins = "" // delete
		}
		s = s[:i] + ins + s[j:]
	}
	return s
}

// TestTextEditsLargeFile checks that a small change to a large file gives
// a small edit, and that a change too large to diff still round-trips.
func TestTextEditsLargeFile(t *testing.T) {
	old := sampleSource(5000)
	lines := strings.SplitAfter(old, "\n")
	lines = lines[:len(lines)-1] // the "" after the final newline

	changed := slices.Clone(lines)
	changed[2500] = "\tx2500 := compute(2500, \"changed\") + other\n"
	new := strings.Join(changed, "")
	edits := checkTextEdits(t, old, new, UTF16)
	want := []protocol.TextEdit{{Range: mkRange(2500, 0, 2501, 0), NewText: changed[2500]}}
	if !slices.Equal(edits, want) {
		t.Errorf("one changed line: got %v, want %v", edits, want)
	}

	// Every third line changed: far more lines differ than the line
	// diff looks through, so the whole differing middle is replaced at once.
	changed = slices.Clone(lines)
	for i := 1; i < len(changed)-1; i += 3 {
		changed[i] = "// changed\n"
	}
	new = strings.Join(changed, "")
	edits = checkTextEdits(t, old, new, UTF16)
	if len(edits) != 1 {
		t.Errorf("too many changes to diff: got %d edits, want 1", len(edits))
	}

	// Many changes, but few enough to diff.
	changed = slices.Clone(lines)
	for i := 0; i < len(changed); i += 100 {
		changed[i] = "// changed\n"
	}
	new = strings.Join(changed, "")
	edits = checkTextEdits(t, old, new, UTF16)
	if len(edits) != 50 {
		t.Errorf("50 changed lines: got %d edits, want 50", len(edits))
	}
}

func TestApplyEdits(t *testing.T) {
	const text = "abc\ndef\n"
	tests := []struct {
		name    string
		edits   []protocol.TextEdit
		want    string
		wantErr bool
	}{
		{"none", nil, text, false},
		{"out of order", []protocol.TextEdit{
			{Range: mkRange(1, 0, 1, 1), NewText: "D"},
			{Range: mkRange(0, 0, 0, 1), NewText: "A"},
		}, "Abc\nDef\n", false},
		{"inserts in the order given, before a replacement", []protocol.TextEdit{
			{Range: mkRange(0, 1, 0, 2), NewText: "B"},
			{Range: mkRange(0, 1, 0, 1), NewText: "1"},
			{Range: mkRange(0, 1, 0, 1), NewText: "2"},
		}, "a12Bc\ndef\n", false},
		{"touching", []protocol.TextEdit{
			{Range: mkRange(0, 0, 1, 0), NewText: "x\n"},
			{Range: mkRange(1, 0, 2, 0), NewText: "y\n"},
		}, "x\ny\n", false},
		{"overlapping", []protocol.TextEdit{
			{Range: mkRange(0, 0, 0, 2), NewText: "x"},
			{Range: mkRange(0, 1, 0, 3), NewText: "y"},
		}, "", true},
		{"backwards", []protocol.TextEdit{{Range: mkRange(1, 0, 0, 0), NewText: "x"}}, "", true},
		{"past the end", []protocol.TextEdit{{Range: mkRange(4, 0, 4, 0), NewText: "x"}}, "", true},
	}
	for _, tt := range tests {
		got, err := ApplyEdits(text, tt.edits, UTF16)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: ApplyEdits = %q, %v; want %q, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestApplyEditsEncodings applies edits as language servers send them in
// a rename, in the encodings they count in.
func TestApplyEditsEncodings(t *testing.T) {
	pos := func(l, c uint32) protocol.Position { return protocol.Position{Line: l, Character: c} }
	edit := func(a, b protocol.Position, s string) protocol.TextEdit {
		return protocol.TextEdit{Range: protocol.Range{Start: a, End: b}, NewText: s}
	}
	for _, c := range []struct {
		name  string
		in    string
		edits []protocol.TextEdit
		enc   Encoding
		want  string
		err   string
	}{
		{"replace in order given backwards", "Add(Add(1))\n", []protocol.TextEdit{edit(pos(0, 4), pos(0, 7), "Sum"), edit(pos(0, 0), pos(0, 3), "Sum")}, UTF16, "Sum(Sum(1))\n", ""},
		{"after an emoji in utf-16", "s := \"🎉\" + Add()\n", []protocol.TextEdit{edit(pos(0, 12), pos(0, 15), "Sum")}, UTF16, "s := \"🎉\" + Sum()\n", ""},
		{"after an emoji in utf-8", "s := \"🎉\" + Add()\n", []protocol.TextEdit{edit(pos(0, 14), pos(0, 17), "Sum")}, UTF8, "s := \"🎉\" + Sum()\n", ""},
		{"inserts at one place keep their order", "x\n", []protocol.TextEdit{edit(pos(0, 0), pos(0, 0), "a"), edit(pos(0, 0), pos(0, 0), "b")}, UTF16, "abx\n", ""},
		{"append at the end", "x\n", []protocol.TextEdit{edit(pos(1, 0), pos(1, 0), "y\n")}, UTF16, "x\ny\n", ""},
		{"overlap", "abcdef", []protocol.TextEdit{edit(pos(0, 0), pos(0, 3), "x"), edit(pos(0, 2), pos(0, 4), "y")}, UTF16, "", "overlaps"},
	} {
		got, err := ApplyEdits(c.in, c.edits, c.enc)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

// FuzzTextEdits checks the round trip on arbitrary texts, not just valid
// UTF-8 with tidy lines. Its seeds are in testdata/fuzz/FuzzTextEdits.
func FuzzTextEdits(f *testing.F) {
	f.Fuzz(func(t *testing.T, old, new string) {
		for _, enc := range allEncodings {
			checkTextEdits(t, old, new, enc)
		}
	})
}

func BenchmarkTextEdits(b *testing.B) {
	old := sampleSource(5000)
	lines := strings.SplitAfter(old, "\n")
	lines[2500] = "\tx2500 := compute(2500, \"changed\") + other\n"
	lines = slices.Insert(lines, 3000, "\t// a new line\n")
	new := strings.Join(lines, "")
	b.ReportAllocs()
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		if edits := TextEdits(old, new, UTF16); len(edits) != 2 {
			b.Fatal(fmt.Sprint("got ", len(edits), " edits, want 2"))
		}
	}
}
