package wire

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
)

// Bounds on the line diff. Past them TextEdits stops looking for a small
// set of edits and replaces the differing lines in one edit: correct, only
// coarser, and it keeps a pathological pair of texts from pinning the CPU.
const (
	// maxDiffLines bounds D, the number of lines inserted plus deleted.
	maxDiffLines = 2000
	// diffBudget bounds the work of the diff, in steps of its inner loops:
	// Myers' algorithm costs O((N+M)·D) for N and M differing lines.
	diffBudget = 1 << 22
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
// The lines in between are diffed with Myers' algorithm, within the bounds
// above.
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

	hunks := diffLines(a, b)
	edits := make([]protocol.TextEdit, len(hunks))
	for i, h := range hunks {
		edits[i] = protocol.TextEdit{
			Range:   protocol.Range{Start: at(h.a0), End: at(h.a1)},
			NewText: newMid[bOff[h.b0]:bOff[h.b1]],
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

// A hunk replaces lines a[a0:a1] with b[b0:b1].
type hunk struct{ a0, a1, b0, b1 int }

// diffLines returns the hunks of a shortest edit script turning lines a
// into lines b, in order, with touching hunks merged. Past the bounds on
// the diff it returns a single hunk replacing all of a with all of b.
func diffLines(a, b []string) []hunk {
	whole := []hunk{{0, len(a), 0, len(b)}}
	if max(len(a)-len(b), len(b)-len(a)) > maxDiffLines {
		return whole // D is at least the difference in length
	}
	// Compare lines as small integers, not strings.
	ids := make(map[string]int32, len(a)+len(b))
	intern := func(lines []string) []int32 {
		x := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			x[i] = id
		}
		return x
	}
	d := differ{a: intern(a), b: intern(b), budget: diffBudget}
	d.diff(0, len(a), 0, len(b))
	if d.exhausted {
		return whole
	}
	return d.hunks
}

// A differ runs Myers' O(ND) diff in linear space ("An O(ND) Difference
// Algorithm and Its Variations", 1986, section 4b): find the middle of a
// shortest edit script by searching from both ends at once, then recur on
// the two halves.
type differ struct {
	a, b      []int32
	vf, vb    []int // furthest x on each diagonal, forward and backward; reused
	hunks     []hunk
	budget    int  // inner-loop steps left
	exhausted bool // the budget or maxDiffLines ran out
}

// diff appends the hunks turning a[a0:a1] into b[b0:b1].
func (d *differ) diff(a0, a1, b0, b1 int) {
	for a0 < a1 && b0 < b1 && d.a[a0] == d.b[b0] {
		a0, b0 = a0+1, b0+1
	}
	for a0 < a1 && b0 < b1 && d.a[a1-1] == d.b[b1-1] {
		a1, b1 = a1-1, b1-1
	}
	if d.exhausted || (a0 == a1 && b0 == b1) {
		return
	}
	if a0 == a1 || b0 == b1 {
		d.add(hunk{a0, a1, b0, b1})
		return
	}
	x, y, ok := d.split(a0, a1, b0, b1)
	if d.exhausted {
		return
	}
	if !ok || (x == a0 && y == b0) || (x == a1 && y == b1) {
		// No line in common, so replacing them all is the shortest script.
		// (split never returns a corner for trimmed input, but an endless
		// recursion is too high a price for trusting that.)
		d.add(hunk{a0, a1, b0, b1})
		return
	}
	d.diff(a0, x, b0, y)
	d.diff(x, a1, y, b1)
}

// add appends h, merging it into the previous hunk when they touch.
func (d *differ) add(h hunk) {
	if n := len(d.hunks); n > 0 && d.hunks[n-1].a1 == h.a0 && d.hunks[n-1].b1 == h.b0 {
		d.hunks[n-1].a1, d.hunks[n-1].b1 = h.a1, h.b1
		return
	}
	d.hunks = append(d.hunks, h)
}

// split returns a point (x, y) on a shortest path through the edit graph
// of a[a0:a1] and b[b0:b1], where a path searched forward from the start
// meets one searched backward from the end. It reports false if the paths
// never meet, which means the ranges have no line in common, and sets
// d.exhausted if the bounds on the diff run out first.
//
// Inside, coordinates are relative: x counts lines of a consumed from the
// start (forward) or from the end (backward), y likewise for b, k = x - y
// is a diagonal, and vf[k+off] is the furthest x reached on diagonal k
// (-1 for none yet). kfLo and kfHi (kbLo, kbHi backward) prune diagonals
// whose path ran off the grid: they can no longer reach the end.
func (d *differ) split(a0, a1, b0, b1 int) (x, y int, ok bool) {
	n, m := a1-a0, b1-b0
	maxD := (n + m + 1) / 2
	off := maxD
	size := 2*maxD + 2
	if cap(d.vf) < size {
		d.vf, d.vb = make([]int, size), make([]int, size)
	}
	vf, vb := d.vf[:size], d.vb[:size]
	for i := range vf {
		vf[i], vb[i] = -1, -1
	}
	vf[off+1], vb[off+1] = 0, 0
	delta := n - m
	// With delta odd the paths meet on a forward step, else on a backward one.
	odd := delta%2 != 0
	kfLo, kfHi, kbLo, kbHi := 0, 0, 0, 0
	for D := 0; D < maxD; D++ {
		// Each round adds up to two edits to the script.
		if 2*D > maxDiffLines || d.budget < 0 {
			d.exhausted = true
			return 0, 0, false
		}
		for k := -D + kfLo; k <= D-kfHi; k += 2 {
			var x int
			if k == -D || (k != D && vf[off+k-1] < vf[off+k+1]) {
				x = vf[off+k+1] // down: an insertion
			} else {
				x = vf[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			x0 := x
			for x < n && y < m && d.a[a0+x] == d.b[b0+y] {
				x, y = x+1, y+1
			}
			d.budget -= 1 + x - x0
			vf[off+k] = x
			switch {
			case x > n:
				kfHi += 2 // off the right edge
			case y > m:
				kfLo += 2 // off the bottom edge
			case odd:
				if kb := delta - k; kb >= -maxD && kb < maxD && vb[off+kb] != -1 && x >= n-vb[off+kb] {
					return a0 + x, b0 + y, true
				}
			}
		}
		for k := -D + kbLo; k <= D-kbHi; k += 2 {
			var x int
			if k == -D || (k != D && vb[off+k-1] < vb[off+k+1]) {
				x = vb[off+k+1]
			} else {
				x = vb[off+k-1] + 1
			}
			y := x - k
			x0 := x
			for x < n && y < m && d.a[a1-1-x] == d.b[b1-1-y] {
				x, y = x+1, y+1
			}
			d.budget -= 1 + x - x0
			vb[off+k] = x
			switch {
			case x > n:
				kbHi += 2
			case y > m:
				kbLo += 2
			case !odd:
				kf := delta - k
				if kf < -maxD || kf >= maxD {
					break
				}
				// The forward path on kf may have run off the grid since.
				if fx := vf[off+kf]; fx != -1 && fx <= n && fx-kf <= m && fx >= n-x {
					return a0 + fx, b0 + fx - kf, true
				}
			}
		}
	}
	return 0, 0, false
}
