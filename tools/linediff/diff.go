// Package linediff compares texts a line at a time: Lines finds the lines
// one sequence of lines changes into another (a Myers diff), and Merge
// combines two sets of changes made to one text (a three-way merge).
//
// It is the module's one line diff: the LSP text edits (lsp/wire), the
// unified diffs shown for approval and review mode's hunks are all laid
// out from it, and rewinding a file the user changed since merges with it.
// It knows nothing of editors or of where the lines came from.
package linediff

// Bounds on the diff. Past them Lines stops looking for a small set of
// hunks and replaces all the lines in one: correct, only coarser, and it
// keeps a pathological pair of texts from pinning the CPU.
const (
	// maxDiffLines bounds D, the number of lines inserted plus deleted.
	maxDiffLines = 2000
	// diffBudget bounds the work of the diff, in steps of its inner loops:
	// Myers' algorithm costs O((N+M)·D) for N and M differing lines.
	diffBudget = 1 << 22
)

// A Hunk replaces lines a[A0:A1] with b[B0:B1]. A0 == A1 is an insertion
// before line A0 of a; B0 == B1 is a deletion.
type Hunk struct{ A0, A1, B0, B1 int }

// Lines returns the hunks of a shortest edit script turning lines a into
// lines b, in order, with touching hunks merged: between two hunks there is
// at least one line the texts share. Lines are compared as whole strings,
// so the caller decides what a line is and whether its terminator counts.
//
// Past the bounds on the diff (a very different pair of texts) it returns
// a single hunk replacing all of a with all of b.
func Lines(a, b []string) []Hunk {
	whole := []Hunk{{0, len(a), 0, len(b)}}
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
	hunks     []Hunk
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
		d.add(Hunk{a0, a1, b0, b1})
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
		d.add(Hunk{a0, a1, b0, b1})
		return
	}
	d.diff(a0, x, b0, y)
	d.diff(x, a1, y, b1)
}

// add appends h, merging it into the previous hunk when they touch.
func (d *differ) add(h Hunk) {
	if n := len(d.hunks); n > 0 && d.hunks[n-1].A1 == h.A0 && d.hunks[n-1].B1 == h.B0 {
		d.hunks[n-1].A1, d.hunks[n-1].B1 = h.A1, h.B1
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
