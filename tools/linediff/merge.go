package linediff

import (
	"slices"
	"strings"
)

// Merge applies the changes that turn base into theirs to ours, a text
// that changed from base in its own way, and reports whether it could: a
// three-way merge, line by line.
//
// The two sets of changes are the hunks of Lines(base, ours) and
// Lines(base, theirs). They merge when no hunk of one overlaps or touches
// a hunk of the other in base: two changes to neighbouring lines, or two
// insertions at one place, are a conflict, because which lines belong
// together, and in what order, is a question for a person. A hunk both
// sides made alike (the same lines of base replaced by the same lines) is
// taken once. On a conflict Merge returns "", false.
//
// Lines are ended by "\n" and keep it, so a "\r\n" line is a line whose
// text ends in "\r", and a last line without a terminator is a line unlike
// the same line with one. When either diff runs past the bounds of Lines
// it is one hunk of the whole text, which conflicts with any change on the
// other side; with no change there (ours or theirs equal to base) the
// other text is the result.
//
// To rewind a file the agent changed and the user changed since, base is
// the agent's last text, ours the text now and theirs the text before the
// agent: the agent's changes are taken out and the user's kept.
func Merge(base, ours, theirs string) (merged string, ok bool) {
	switch {
	case ours == theirs || base == theirs:
		return ours, true
	case base == ours:
		return theirs, true
	}
	b, o, t := split(base), split(ours), split(theirs)
	oh, th := Lines(b, o), Lines(b, t)
	// A hunk of theirs that ours has already is done; the rest must keep
	// clear of every hunk of ours.
	th = slices.DeleteFunc(th, func(h Hunk) bool {
		return slices.ContainsFunc(oh, func(g Hunk) bool {
			return g.A0 == h.A0 && g.A1 == h.A1 && slices.Equal(o[g.B0:g.B1], t[h.B0:h.B1])
		})
	})
	for _, h := range th {
		for _, g := range oh {
			if g.A0 <= h.A1 && h.A0 <= g.A1 {
				return "", false
			}
		}
	}

	// Walk base, taking each hunk's lines from the side that made it.
	type change struct {
		Hunk
		lines []string
	}
	changes := make([]change, 0, len(oh)+len(th))
	for _, h := range oh {
		changes = append(changes, change{h, o})
	}
	for _, h := range th {
		changes = append(changes, change{h, t})
	}
	slices.SortFunc(changes, func(x, y change) int { return x.A0 - y.A0 })
	var sb strings.Builder
	sb.Grow(max(0, len(ours)+len(theirs)-len(base)))
	at := 0
	for _, c := range changes {
		writeLines(&sb, b[at:c.A0])
		writeLines(&sb, c.lines[c.B0:c.B1])
		at = c.A1
	}
	writeLines(&sb, b[at:])
	return sb.String(), true
}

// split cuts s into lines, each with its "\n"; the last has none when s
// does not end in one.
func split(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the "" after a final "\n"
	}
	return lines
}

func writeLines(sb *strings.Builder, lines []string) {
	for _, l := range lines {
		sb.WriteString(l)
	}
}
