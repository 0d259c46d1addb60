package wire

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/tools/linediff"
)

// TextEdits returns edits that turn oldText into newText, in document order
// and not overlapping, with positions counted in enc.
//
// Each edit replaces whole lines (or inserts lines at the start of one), so
// an editor applying them leaves cursors and folds on untouched lines alone
// and undoes the change in one step. The lines are those of the spec:
// terminated by "\n", "\r\n" or "\r", and the last may have no terminator.
//
// The common prefix and suffix are trimmed first, in bulk, so a small
// change to a large file costs little more than comparing the two texts.
// The lines in between are diffed with Myers' algorithm (linediff.Lines);
// past its bounds they are replaced in one edit: correct, only coarser.
func TextEdits(oldText, newText string, enc Encoding) []protocol.TextEdit {
	if oldText == newText {
		return nil
	}
	// Trim to whole lines: s, and oldEnd (oldEnd+delta in newText), must be
	// line boundaries in both texts. Note that a boundary after '\r' in one
	// text may split a "\r\n" in the other.
	s := commonPrefixLen(oldText, newText)
	for !isLineBoundary(oldText, s) || !isLineBoundary(newText, s) {
		s--
	}
	oldEnd := len(oldText) - commonSuffixLen(oldText[s:], newText[s:])
	delta := len(newText) - len(oldText)
	for !isLineBoundary(oldText, oldEnd) || !isLineBoundary(newText, oldEnd+delta) {
		oldEnd++
	}
	oldMid, newMid := oldText[s:oldEnd], newText[s:oldEnd+delta]
	a, b := splitLines(oldMid), splitLines(newMid)
	bOff := lineOffsets(b)

	firstLine := countLines(oldText[:s])
	// at is the position of the start of line k of a; k == len(a) is the
	// end of the middle.
	at := func(k int) protocol.Position {
		if k == len(a) && oldEnd == len(oldText) && !endsWithTerminator(oldText) && len(oldText) > 0 {
			// The end of a last line without a terminator: there is no next
			// line to point at the start of.
			if k == 0 {
				return Position(oldText, len(oldText), enc)
			}
			return protocol.Position{Line: firstLine + uint32(k) - 1, Character: Units(a[k-1], enc)}
		}
		return protocol.Position{Line: firstLine + uint32(k)}
	}

	hunks := linediff.Lines(a, b)
	edits := make([]protocol.TextEdit, len(hunks))
	for i, h := range hunks {
		edits[i] = protocol.TextEdit{
			Range:   protocol.Range{Start: at(h.A0), End: at(h.A1)},
			NewText: newMid[bOff[h.B0]:bOff[h.B1]],
		}
	}
	return edits
}

// ApplyEdits returns text with edits applied, as a peer applies a
// TextEdit array: the ranges refer to text before any edit, may come in
// any order, and must not overlap; several inserts at one position are
// applied in the order given, before a replacement starting there. An
// error names an edit by its place in edits, counted from 1.
func ApplyEdits(text string, edits []protocol.TextEdit, enc Encoding) (string, error) {
	type span struct {
		start, end int
		text       string
		n          int // the edit's number
	}
	t := NewText(text) // one index for all the edits' positions
	spans := make([]span, len(edits))
	for i, e := range edits {
		start, err := t.Offset(e.Range.Start, enc)
		if err != nil {
			return "", fmt.Errorf("edit %d: %w", i+1, err)
		}
		end, err := t.Offset(e.Range.End, enc)
		if err != nil {
			return "", fmt.Errorf("edit %d: %w", i+1, err)
		}
		if end < start {
			return "", fmt.Errorf("edit %d ends before it starts", i+1)
		}
		spans[i] = span{start, end, e.NewText, i + 1}
	}
	slices.SortStableFunc(spans, func(x, y span) int {
		return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.end, y.end))
	})
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			return "", fmt.Errorf("edit %d overlaps another, at byte %d", sp.n, sp.start)
		}
		b.WriteString(text[last:sp.start])
		b.WriteString(sp.text)
		last = sp.end
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

// isLineBoundary reports whether byte i of t starts a line or ends t.
func isLineBoundary(t string, i int) bool {
	if i == 0 || i == len(t) {
		return true
	}
	switch t[i-1] {
	case '\n':
		return true
	case '\r':
		return t[i] != '\n'
	}
	return false
}

func endsWithTerminator(t string) bool {
	return t != "" && (t[len(t)-1] == '\n' || t[len(t)-1] == '\r')
}

// countLines returns the number of line terminators in t.
func countLines(t string) uint32 {
	n := strings.Count(t, "\n")
	if cr := strings.Count(t, "\r"); cr > 0 {
		n += cr - strings.Count(t, "\r\n")
	}
	return uint32(n)
}

// splitLines splits t into lines, each with its terminator.
func splitLines(t string) []string {
	var lines []string
	for i := 0; i < len(t); {
		_, next := nextLine(t, i)
		if next < 0 {
			next = len(t)
		}
		lines = append(lines, t[i:next])
		i = next
	}
	return lines
}

// lineOffsets returns the byte offset of the start of each line and, last,
// the end of the text.
func lineOffsets(lines []string) []int {
	offs := make([]int, len(lines)+1)
	for i, l := range lines {
		offs[i+1] = offs[i] + len(l)
	}
	return offs
}

// commonPrefixLen returns the length of the longest common prefix of a and
// b. It compares a block at a time first: string comparison is vectorized,
// a byte loop is not.
func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	const block = 256
	i := 0
	for i+block <= n && a[i:i+block] == b[i:i+block] {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffixLen returns the length of the longest common suffix of a and b.
func commonSuffixLen(a, b string) int {
	n := min(len(a), len(b))
	const block = 256
	i := 0
	for i+block <= n && a[len(a)-i-block:len(a)-i] == b[len(b)-i-block:len(b)-i] {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
