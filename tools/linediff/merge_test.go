package linediff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// lines joins one line a string, each ended by "\n".
func lines(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// TestMerge merges as a rewind does: base is the agent's last text, ours
// the user's text now, theirs the text before the agent.
func TestMerge(t *testing.T) {
	const conflict = "<conflict>"
	fn := lines("func f() {", "\treturn 1", "}")
	tests := []struct {
		name               string
		base, ours, theirs string
		want               string // conflict for ok == false
	}{
		{
			name:   "edits at both ends",
			base:   lines("a", "b", "c", "d", "e"),
			ours:   lines("A", "b", "c", "d", "e"),
			theirs: lines("a", "b", "c", "d", "E"),
			want:   lines("A", "b", "c", "d", "E"),
		},
		{
			name:   "edits at both ends, the other way round",
			base:   lines("a", "b", "c", "d", "e"),
			ours:   lines("a", "b", "c", "d", "E"),
			theirs: lines("A", "b", "c", "d", "e"),
			want:   lines("A", "b", "c", "d", "E"),
		},
		{
			name:   "user inserts next to the agent's change",
			base:   lines("a", "B", "c"),
			ours:   lines("a", "B", "new", "c"),
			theirs: lines("a", "b", "c"),
			want:   conflict,
		},
		{
			name:   "user inserts before the agent's change",
			base:   lines("a", "B", "c"),
			ours:   lines("a", "new", "B", "c"),
			theirs: lines("a", "b", "c"),
			want:   conflict,
		},
		{
			name:   "both change the same line differently",
			base:   lines("a", "b", "c"),
			ours:   lines("a", "X", "c"),
			theirs: lines("a", "Y", "c"),
			want:   conflict,
		},
		{
			name:   "neighbouring lines",
			base:   lines("a", "b", "c", "d"),
			ours:   lines("a", "B", "c", "d"),
			theirs: lines("a", "b", "C", "d"),
			want:   conflict,
		},
		{
			name:   "two insertions at one place",
			base:   lines("a", "b"),
			ours:   lines("a", "x", "b"),
			theirs: lines("a", "y", "b"),
			want:   conflict,
		},
		{
			name:   "the same change on both sides",
			base:   lines("a", "b", "c"),
			ours:   lines("a", "B", "c"),
			theirs: lines("a", "B", "c"),
			want:   lines("a", "B", "c"),
		},
		{
			name:   "the same change on both sides and one more of the user's",
			base:   lines("a", "b", "c", "d", "e"),
			ours:   lines("a", "B", "c", "d", "E"),
			theirs: lines("a", "B", "c", "d", "e"),
			want:   lines("a", "B", "c", "d", "E"),
		},
		{
			name:   "the agent added lines, the user edited elsewhere",
			base:   lines("package p", "", "import \"fmt\"", "", "func f() {", "\tfmt.Println(1)", "}", "", "func g() {}", "", "func h() {}"),
			ours:   lines("package p", "", "import \"fmt\"", "", "func f() {", "\tfmt.Println(1)", "}", "", "func g() {}", "", "func h() { g() }"),
			theirs: lines("package p", "", "func g() {}", "", "func h() {}"),
			want:   lines("package p", "", "func g() {}", "", "func h() { g() }"),
		},
		{
			name:   "the agent deleted a function, the user edited elsewhere",
			base:   "// header\n\n" + lines("func g() {}", "", "// end"),
			ours:   "// header, edited\n\n" + lines("func g() {}", "", "// end"),
			theirs: "// header\n\n" + fn + "\n" + lines("func g() {}", "", "// end"),
			want:   "// header, edited\n\n" + fn + "\n" + lines("func g() {}", "", "// end"),
		},
		{
			name:   "no final newline",
			base:   "a\nb\nc\nd",
			ours:   "A\nb\nc\nd",
			theirs: "a\nb\nc\nD",
			want:   "A\nb\nc\nD",
		},
		{
			name:   "the user adds the final newline",
			base:   "a\nb\nc\nd",
			ours:   "a\nb\nc\nd\n",
			theirs: "A\nb\nc\nd",
			want:   "A\nb\nc\nd\n",
		},
		{
			name:   "the user adds the final newline to the line the agent changed",
			base:   "a\nb\nc\nD",
			ours:   "a\nb\nc\nD\n",
			theirs: "a\nb\nc\nd",
			want:   conflict,
		},
		{
			name:   "CRLF lines",
			base:   "a\r\nb\r\nc\r\nd\r\n",
			ours:   "A\r\nb\r\nc\r\nd\r\n",
			theirs: "a\r\nb\r\nc\r\nD\r\n",
			want:   "A\r\nb\r\nc\r\nD\r\n",
		},
		{
			name:   "a line whose terminator alone changed",
			base:   "a\r\nb\r\nc\r\n",
			ours:   "a\r\nb\r\nc\n",
			theirs: "a\nb\r\nc\r\n",
			want:   "a\nb\r\nc\n",
		},
		{
			name:   "empty base: the agent created the file, the user wrote in it",
			base:   "",
			ours:   lines("x"),
			theirs: "",
			want:   lines("x"),
		},
		{
			name:   "empty base, both wrote",
			base:   "",
			ours:   lines("x"),
			theirs: lines("y"),
			want:   conflict,
		},
		{
			name:   "empty base, both wrote the same",
			base:   "",
			ours:   lines("x"),
			theirs: lines("x"),
			want:   lines("x"),
		},
		{
			name:   "the user emptied the file the agent changed",
			base:   lines("a", "B"),
			ours:   "",
			theirs: lines("a", "b"),
			want:   conflict,
		},
		{
			name:   "ours is base: the result is theirs",
			base:   lines("a", "b", "c"),
			ours:   lines("a", "b", "c"),
			theirs: lines("x", "y"),
			want:   lines("x", "y"),
		},
		{
			name:   "theirs is base: the result is ours",
			base:   lines("a", "b", "c"),
			ours:   lines("x", "y"),
			theirs: lines("a", "b", "c"),
			want:   lines("x", "y"),
		},
	}
	for _, tt := range tests {
		got, ok := Merge(tt.base, tt.ours, tt.theirs)
		if !ok {
			got = conflict
		}
		if got != tt.want {
			t.Errorf("%s: Merge(%q, %q, %q) = %q, want %q", tt.name, tt.base, tt.ours, tt.theirs, got, tt.want)
		}
		if ok && got == conflict {
			t.Errorf("%s: a merged text equal to the conflict marker", tt.name)
		}
	}
}

// TestMergeBounds: past the bounds of the diff one side's changes are a
// single hunk of the whole file, which conflicts with any change of the
// other side, and is still taken when the other side made none.
func TestMergeBounds(t *testing.T) {
	var base, theirs []string
	for i := range 6000 {
		base = append(base, fmt.Sprint("line ", i))
		if i%3 == 0 {
			theirs = append(theirs, fmt.Sprint("changed ", i))
		} else {
			theirs = append(theirs, base[i])
		}
	}
	ours := slices.Clone(base)
	ours[1] = "the user's"
	if got, ok := Merge(lines(base...), lines(ours...), lines(theirs...)); ok {
		t.Errorf("too many changes to diff merged with a small one: got %d bytes, want a conflict", len(got))
	}
	if got, ok := Merge(lines(base...), lines(base...), lines(theirs...)); !ok || got != lines(theirs...) {
		t.Errorf("too many changes to diff, none on the other side: ok %v, equal to theirs %v", ok, got == lines(theirs...))
	}
}

// TestMergeDisjoint edits random texts in separate regions, some for ours
// and some for theirs, with a line left alone between any two regions:
// Merge must succeed, give the text with both sides' edits, and give the
// same with the sides swapped. Every line is distinct, so the diff cannot
// explain an edit in another way than the one made.
func TestMergeDisjoint(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	fresh := 0
	newLine := func() string { fresh++; return fmt.Sprint("new ", fresh) }
	for range 2000 {
		n := r.IntN(20)
		base := make([]string, n)
		for i := range base {
			base[i] = fmt.Sprint("line ", i)
		}
		// Regions [start, end) of base, in order, separated by at least one
		// line. An empty region is an insertion.
		type region struct {
			start, end int
			repl       []string
			ours       bool
		}
		var regions []region
		for at := 0; at <= n; {
			start := at + r.IntN(3)
			if start > n {
				break
			}
			end := min(n, start+r.IntN(3))
			repl := make([]string, r.IntN(3))
			for i := range repl {
				repl[i] = newLine()
			}
			if end > start || len(repl) > 0 {
				regions = append(regions, region{start, end, repl, r.IntN(2) == 0})
			}
			at = end + 1
		}
		apply := func(side func(region) bool) string {
			var out []string
			at := 0
			for _, g := range regions {
				if !side(g) {
					continue
				}
				out = append(out, base[at:g.start]...)
				out = append(out, g.repl...)
				at = g.end
			}
			return join(append(out, base[at:]...))
		}
		ours := apply(func(g region) bool { return g.ours })
		theirs := apply(func(g region) bool { return !g.ours })
		want := apply(func(region) bool { return true })
		b := join(base)
		got, ok := Merge(b, ours, theirs)
		if !ok || got != want {
			t.Fatalf("Merge(%q, %q, %q) = %q, %v; want %q", b, ours, theirs, got, ok, want)
		}
		if got, ok := Merge(b, theirs, ours); !ok || got != want {
			t.Fatalf("swapped: Merge(%q, %q, %q) = %q, %v; want %q", b, theirs, ours, got, ok, want)
		}
	}
}

// join joins lines, each ended by "\n"; the last may go without.
func join(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// TestMergeRandom merges random edits of texts made of few distinct lines,
// where the diff has repeats to align in more than one way. Whatever it
// decides, a merge must not depend on which side is which, and a side
// with no changes must give the other.
func TestMergeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	merged := 0
	for range 5000 {
		base := randomLineSeq(r)
		for i := range base {
			base[i] += "\n"
		}
		if len(base) > 0 && r.IntN(3) == 0 {
			base[len(base)-1] = strings.TrimSuffix(base[len(base)-1], "\n")
		}
		ours, theirs := mutate(r, base), mutate(r, base)
		b, o, th := strings.Join(base, ""), strings.Join(ours, ""), strings.Join(theirs, "")
		got, ok := Merge(b, o, th)
		got2, ok2 := Merge(b, th, o)
		if ok != ok2 || got != got2 {
			t.Fatalf("Merge(%q, %q, %q) = %q, %v; swapped %q, %v", b, o, th, got, ok, got2, ok2)
		}
		if ok {
			merged++
		}
		if got, ok := Merge(b, b, th); !ok || got != th {
			t.Fatalf("Merge(%q, base, %q) = %q, %v; want theirs", b, th, got, ok)
		}
		if got, ok := Merge(b, o, b); !ok || got != o {
			t.Fatalf("Merge(%q, %q, base) = %q, %v; want ours", b, o, got, ok)
		}
	}
	if merged == 0 {
		t.Errorf("no random pair of edits merged")
	}
}

// mutate returns a copy of lines with one to three lines replaced,
// inserted or deleted.
func mutate(r *rand.Rand, ls []string) []string {
	ls = slices.Clone(ls)
	for range 1 + r.IntN(3) {
		i := r.IntN(len(ls) + 1)
		switch r.IntN(3) {
		case 0:
			ls = slices.Insert(ls, i, "x\n")
		case 1:
			if i < len(ls) {
				ls = slices.Delete(ls, i, i+1)
			}
		case 2:
			if i < len(ls) {
				ls[i] = "y\n"
			}
		}
	}
	return ls
}

// BenchmarkMerge merges a rewind of a few agent edits in a 5000-line file
// with one edit of the user's far from them.
func BenchmarkMerge(b *testing.B) {
	base := make([]string, 5000)
	for i := range base {
		base[i] = fmt.Sprintf("\tx%d := compute(%d, \"value\") + other", i, i)
	}
	theirs, ours := slices.Clone(base), slices.Clone(base)
	theirs[100], theirs[2600] = "\t// before the agent", "\t// before the agent"
	theirs = slices.Delete(theirs, 4000, 4010)
	ours[1000] = "\t// the user's"
	bt, ot, tt := lines(base...), lines(ours...), lines(theirs...)
	b.SetBytes(int64(len(bt)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Merge(bt, ot, tt); !ok {
			b.Fatal("conflict")
		}
	}
}
