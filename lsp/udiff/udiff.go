// Package udiff renders the change between two texts as a unified diff
// for a person to read, as diff -u and git diff print one: hunks of
// removed and added lines with a few unchanged lines of context around
// them, each under an @@ header that gives its place in both texts.
//
// Which lines change comes from the module's one line diff, the Myers
// diff of tools/linediff behind wire.TextEdits; this package only lays
// its edits out as hunks. Lines are those of the LSP: ended by "\n", "\r\n" or "\r", which
// the diff leaves out, so a CRLF file reads as any other.
package udiff

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/wire"
)

// A Kind says what a line of a diff is.
type Kind byte

// The kinds of line; a body line's kind is the character that starts it
// in a unified diff.
const (
	Header  Kind = 'h'  // "--- a/x" or "+++ b/x": the file's two names
	Hunk    Kind = '@'  // "@@ -l,s +l,s @@": where the hunk's lines are
	Context Kind = ' '  // a line both texts have
	Removed Kind = '-'  // a line only the old text has
	Added   Kind = '+'  // a line only the new text has
	NoEOL   Kind = '\\' // the line before it ends its text with no terminator
)

// A Line is one line of a diff: a header, or a line of a file's text
// (without its terminator) and whether it is kept, removed or added.
type Line struct {
	Kind Kind
	Text string
}

// String is the line as a unified diff writes it, without a newline.
func (l Line) String() string {
	switch l.Kind {
	case Header, Hunk, NoEOL:
		return l.Text
	}
	return string(l.Kind) + l.Text
}

// A File is a change to one file: its text before and after.
type File struct {
	// Name is the file's name in the headers, after "a/" and "b/".
	Name     string
	Old, New string
	// Created and Deleted mark a file the change creates or deletes:
	// its old (new) name is /dev/null.
	Created, Deleted bool
}

// Lines returns the diff of f, with up to context unchanged lines around
// each change: the two headers, then the hunks. Changes closer than
// twice context share a hunk. An unchanged file gives nil, unless it is
// created or deleted (an empty file), which gives the headers alone.
func Lines(f File, context int) []Line {
	edits := wire.TextEdits(f.Old, f.New, wire.UTF8)
	if len(edits) == 0 && !f.Created && !f.Deleted {
		return nil
	}
	from, to := "a/"+f.Name, "b/"+f.Name
	if f.Created {
		from = "/dev/null"
	}
	if f.Deleted {
		to = "/dev/null"
	}
	out := []Line{{Header, "--- " + from}, {Header, "+++ " + to}}
	d := differ{old: newText(f.Old), new: newText(f.New), context: max(context, 0)}
	changes := d.changes(edits)
	for len(changes) > 0 {
		n := 1
		for n < len(changes) && changes[n].a0-changes[n-1].a1 <= 2*d.context {
			n++
		}
		out = d.hunk(out, changes[:n])
		changes = changes[n:]
	}
	return out
}

// Text renders lines as a unified diff, each line ended by "\n".
func Text(lines []Line) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// A text is one side of a diff: its lines, and how many there are.
type text struct {
	*wire.Text
	// n counts the lines that hold text: wire.Text counts an empty line
	// after a final terminator, which a diff does not show.
	n int
	// noEOL is set when the last line has no terminator.
	noEOL bool
}

func newText(s string) text {
	t := text{Text: wire.NewText(s)}
	t.n = t.Lines()
	if t.Line(t.n-1) == "" {
		t.n--
	} else {
		t.noEOL = true
	}
	return t
}

// A change replaces lines [a0, a1) of the old text with lines [b0, b1)
// of the new.
type change struct{ a0, a1, b0, b1 int }

type differ struct {
	old, new text
	context  int
}

// changes turns the edits, which replace whole lines of the old text
// (or end at the end of its last line), into line ranges of both texts.
func (d *differ) changes(edits []protocol.TextEdit) []change {
	line := func(p protocol.Position) int {
		if p.Character > 0 { // the end of a last line without a terminator
			return int(p.Line) + 1
		}
		return int(p.Line)
	}
	out := make([]change, 0, len(edits))
	shift := 0
	for _, e := range edits {
		a0, a1 := line(e.Range.Start), line(e.Range.End)
		n := newText(e.NewText).n
		out = append(out, change{a0, a1, a0 + shift, a0 + shift + n})
		shift += n - (a1 - a0)
	}
	return out
}

// hunk appends the hunk of the changes cs, with their context.
func (d *differ) hunk(out []Line, cs []change) []Line {
	first, last := cs[0], cs[len(cs)-1]
	a0, a1 := max(0, first.a0-d.context), min(d.old.n, last.a1+d.context)
	b0, b1 := first.b0-(first.a0-a0), last.b1+(a1-last.a1)
	out = append(out, Line{Hunk, fmt.Sprintf("@@ -%s +%s @@", span(a0, a1-a0), span(b0, b1-b0))})
	i := a0
	for _, c := range cs {
		out = d.lines(out, Context, d.old, i, c.a0)
		out = d.lines(out, Removed, d.old, c.a0, c.a1)
		out = d.lines(out, Added, d.new, c.b0, c.b1)
		i = c.a1
	}
	return d.lines(out, Context, d.old, i, a1)
}

// lines appends lines [from, to) of t as lines of kind k, marking a last
// line without a terminator.
func (d *differ) lines(out []Line, k Kind, t text, from, to int) []Line {
	for i := from; i < to; i++ {
		out = append(out, Line{k, t.Line(i)})
		if t.noEOL && i == t.n-1 {
			out = append(out, Line{NoEOL, `\ No newline at end of file`})
		}
	}
	return out
}

// span renders a hunk's range of n lines from line start (0-based) as
// diff does: "l" for one line, "l,n" otherwise, and the line before for
// none.
func span(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
