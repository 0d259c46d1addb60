package main

import (
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// outputWidth is how many columns the rows written to stdout may take:
// COLUMNS when it holds a positive number, else the size of the
// terminal stdout is, else 0, which means no limit. Output through a
// pipe thus keeps its full rows for scripts.
func outputWidth(stdout io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 0
}

// A fitColumn is one column of a table that fits a width.
type fitColumn struct {
	header string
	// drop is the order in which the column goes when the rows are too
	// wide: 1 first, then 2, …; 0 never.
	drop int
	// flex marks the column (at most one) that is cut with … to the
	// width the others leave, but never below minFlex.
	flex  bool
	right bool // right-aligned, for figures
}

// minFlex is the fewest columns the flex column keeps: narrower, a
// title says nothing.
const minFlex = 12

// columnGap separates two columns, as the tabwriter tables do.
const columnGap = 2

// fitTable writes rows under the columns' headers, aligned, every line
// at most width display columns wide: it drops columns in their drop
// order while the rest do not fit, then cuts the flex column. When even
// the columns never dropped do not fit, they are written anyway. The
// cells are shown as text from outside may reach a terminal.
func fitTable(w io.Writer, width int, cols []fitColumn, rows [][]string) {
	cells := make([][]string, 0, len(rows)+1)
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.header
	}
	cells = append(cells, header)
	for _, r := range rows {
		row := make([]string, len(cols))
		for i := range cols {
			row[i] = shown(r[i])
		}
		cells = append(cells, row)
	}
	natural := make([]int, len(cols))
	for _, row := range cells {
		for i, s := range row {
			natural[i] = max(natural[i], displayWidth(s))
		}
	}
	kept := make([]bool, len(cols))
	for i := range kept {
		kept[i] = true
	}
	// needed is the width of the kept columns with the flex column at
	// its narrowest.
	flexMin := func(i int) int { return min(natural[i], minFlex) }
	needed := func() int {
		n, total := 0, 0
		for i, c := range cols {
			if !kept[i] {
				continue
			}
			if n > 0 {
				total += columnGap
			}
			n++
			if c.flex {
				total += flexMin(i)
			} else {
				total += natural[i]
			}
		}
		return total
	}
	for needed() > width {
		next := -1
		for i, c := range cols {
			if kept[i] && c.drop > 0 && (next < 0 || c.drop < cols[next].drop) {
				next = i
			}
		}
		if next < 0 {
			break // the columns never dropped, however wide
		}
		kept[next] = false
	}
	widths := append([]int(nil), natural...)
	for i, c := range cols {
		if kept[i] && c.flex {
			// The flex column takes what the others leave.
			left := width - (needed() - flexMin(i))
			widths[i] = max(flexMin(i), min(natural[i], left))
		}
	}
	var b strings.Builder
	for _, row := range cells {
		b.Reset()
		for i, s := range row {
			if !kept[i] {
				continue
			}
			if b.Len() > 0 {
				b.WriteString(strings.Repeat(" ", columnGap))
			}
			s = truncate(s, widths[i])
			pad := strings.Repeat(" ", widths[i]-displayWidth(s))
			if cols[i].right {
				b.WriteString(pad + s)
			} else {
				b.WriteString(s + pad)
			}
		}
		io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	}
}

// truncate cuts s to at most n display columns, ending it with … when
// it cuts.
func truncate(s string, n int) string {
	if displayWidth(s) <= n {
		return s
	}
	w := 0
	for i, r := range s {
		if w+runeWidth(r) > n-1 {
			return s[:i] + "…"
		}
		w += runeWidth(r)
	}
	return s
}

// displayWidth is how many terminal columns s takes: one a rune, two
// for the wide characters of East Asian scripts.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// runeWidth is 2 for the East Asian wide and fullwidth blocks (Hangul
// Jamo, CJK, Hangul syllables, compatibility ideographs, fullwidth
// forms, the supplementary ideographic planes) and the emoji blocks
// terminals draw wide, else 1.
func runeWidth(r rune) int {
	switch {
	case r < 0x1100 || r == utf8.RuneError:
		return 1
	case r <= 0x115F,
		0x2E80 <= r && r <= 0x303E,
		0x3041 <= r && r <= 0xA4CF,
		0xAC00 <= r && r <= 0xD7A3,
		0xF900 <= r && r <= 0xFAFF,
		0xFE30 <= r && r <= 0xFE4F,
		0xFF00 <= r && r <= 0xFF60,
		0xFFE0 <= r && r <= 0xFFE6,
		0x1F300 <= r && r <= 0x1F64F,
		0x1F900 <= r && r <= 0x1F9FF,
		0x20000 <= r && r <= 0x3FFFD:
		return 2
	}
	return 1
}
