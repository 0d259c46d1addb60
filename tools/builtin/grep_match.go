package builtin

// The matching engine of grep: it finds matching lines without running the
// regexp over text that cannot match.

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// A grepMatcher finds matching lines without running the regexp over
// whole files. Most patterns require some literal text: the matcher
// finds that literal with an assembly-accelerated byte search over the
// file, and runs the regexp only on the lines that contain it. When the
// pattern is itself a literal (or a set of them), no regexp runs at all.
// Only a pattern that requires no literal (`^\s*$`) is run on every line,
// which with Go's regexp is faster than running it over the whole file.
type grepMatcher struct {
	re *regexp.Regexp
	// lits holds literals of which every match contains one; empty when
	// the pattern requires none, and then the regexp does the search.
	lits []grepLiteral
	// exact means a literal found is a match.
	exact bool
}

// grepMaxLits bounds the literals searched side by side: each costs a
// pass over the file.
const grepMaxLits = 8

// compileGrep compiles a pattern, reporting errors in words a model can
// act on.
func compileGrep(pattern string, ignoreCase bool) (*grepMatcher, error) {
	if _, err := syntax.Parse(pattern, syntax.Perl); err != nil {
		msg := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%s: `%s`", se.Code, se.Expr)
		}
		hint := "The pattern is a Go RE2 regular expression: escape ( ) [ ] { } . * + ? | ^ $ \\ with a backslash to match them literally, e.g. \"func \\\\(\" for \"func (\"."
		backref := se != nil && se.Code == syntax.ErrInvalidEscape && len(se.Expr) == 2 && '1' <= se.Expr[1] && se.Expr[1] <= '9'
		if se != nil && se.Code == syntax.ErrInvalidPerlOp || backref {
			hint = "RE2 has no lookahead, lookbehind or backreferences; search for the text itself and filter the lines you get. " + hint
		}
		return nil, fmt.Errorf("invalid regular expression %s: %s. %s", grepQuote(pattern), msg, hint)
	}
	// The regexp runs on one line at a time, so ^ and $ (without the m
	// flag) mean the line's start and end; an anchored pattern then
	// fails fast, or even runs on the one-pass engine.
	expr := pattern
	if ignoreCase {
		expr = "(?i)" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %s: %v", grepQuote(pattern), err)
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %s: %v", grepQuote(pattern), err)
	}
	tree = tree.Simplify()
	if grepNeedsNewline(tree) {
		return nil, fmt.Errorf("the pattern %s contains a newline, but grep matches one line at a time; search for the text of one line", grepQuote(pattern))
	}
	m := &grepMatcher{re: re}
	set := grepRequired(tree)
	if len(set.lits) > 0 && len(set.lits) <= grepMaxLits {
		m.exact = set.exact
		for _, l := range set.lits {
			m.lits = append(m.lits, newGrepLiteral(l.s, l.fold))
		}
	}
	return m, nil
}

// grepNeedsNewline reports whether the expression contains a literal
// newline, which no line can match.
func grepNeedsNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return slices.Contains(re.Rune, '\n')
	case syntax.OpCharClass:
		return len(re.Rune) == 2 && re.Rune[0] == '\n' && re.Rune[1] == '\n'
	}
	for _, sub := range re.Sub {
		if grepNeedsNewline(sub) {
			return true
		}
	}
	return false
}

// grepLitSet is a set of literals of which every match contains one.
type grepLitSet struct {
	lits []grepLitText
	// exact means the expression matches these strings and nothing else.
	exact bool
}

type grepLitText struct {
	s    string
	fold bool // matched ASCII case-insensitively
}

// grepRequired finds the best literals a match of re must contain.
func grepRequired(re *syntax.Regexp) grepLitSet {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase == 0 {
			return grepLitSet{lits: []grepLitText{{s: s}}, exact: true}
		}
		// Search a case-folded literal with an ASCII folding compare,
		// which is exact only without 'k' and 's' (which also fold to
		// the Kelvin sign and the long s) and non-ASCII letters. With
		// them, search the longest part without, and let the regexp
		// decide.
		safe := grepFoldSafeRun(s)
		if safe == "" {
			return grepLitSet{}
		}
		return grepLitSet{lits: []grepLitText{{s: safe, fold: true}}, exact: safe == s}
	case syntax.OpCapture:
		return grepRequired(re.Sub[0])
	case syntax.OpPlus:
		set := grepRequired(re.Sub[0])
		set.exact = false
		return set
	case syntax.OpRepeat:
		if re.Min < 1 {
			return grepLitSet{}
		}
		set := grepRequired(re.Sub[0])
		set.exact = false
		return set
	case syntax.OpAlternate:
		out := grepLitSet{exact: true}
		for _, sub := range re.Sub {
			set := grepRequired(sub)
			if len(set.lits) == 0 {
				return grepLitSet{}
			}
			out.lits = append(out.lits, set.lits...)
			out.exact = out.exact && set.exact
		}
		if len(out.lits) > grepMaxLits {
			return grepLitSet{}
		}
		return out
	case syntax.OpConcat:
		// Adjacent literals with the same case rule join into one
		// longer literal; any part's literals are required too. Keep
		// the best candidate.
		var best grepLitSet
		var run []rune
		var runFlags syntax.Flags
		consider := func(set grepLitSet) {
			set.exact = false
			if grepSetScore(set) > grepSetScore(best) {
				best = set
			}
		}
		flush := func() {
			if len(run) > 0 {
				consider(grepRequired(&syntax.Regexp{Op: syntax.OpLiteral, Rune: run, Flags: runFlags}))
				run = nil
			}
		}
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				f := sub.Flags & syntax.FoldCase
				if len(run) > 0 && f != runFlags {
					flush()
				}
				run = append(run[:len(run):len(run)], sub.Rune...)
				runFlags = f
				continue
			}
			flush()
			consider(grepRequired(sub))
		}
		flush()
		return best
	}
	return grepLitSet{}
}

// grepFoldSafeRun returns the longest part of s made of ASCII characters
// other than k and s.
func grepFoldSafeRun(s string) string {
	best, start := "", 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] >= utf8.RuneSelf || strings.IndexByte("kKsS", s[i]) >= 0 {
			if i-start > len(best) {
				best = s[start:i]
			}
			start = i + 1
		}
	}
	return best
}

// grepSetScore rates how cheaply a set of literals narrows a search: a
// rare byte to look for matters most, then length. Zero means no set.
func grepSetScore(set grepLitSet) int {
	if len(set.lits) == 0 {
		return 0
	}
	score := 1 << 30
	for _, l := range set.lits {
		g := newGrepLiteral(l.s, l.fold)
		score = min(score, 1+g.rank+2*min(len(l.s), 16))
	}
	return score - 8*(len(set.lits)-1)
}

// grepByteOrder lists printable ASCII from the most to the least
// frequent in source code (measured over the Go tree, CPython's library
// and the C headers of a Linux system). Bytes not listed are rarer still.
const grepByteOrder = " etnsira\n_ocl\t0d,fupSx)(EmhT/.g1RIAO*CNLybP:2k\"v=D-M34F6X5w{}8B9\\#'GU;V7HK[]Y><Wz&+q|!jQ%`ZJ@$?^~"

// grepRank rates bytes by rarity: higher is rarer.
var grepRank = func() (r [256]int) {
	for i := range r {
		r[i] = len(grepByteOrder)
	}
	for i := 0; i < len(grepByteOrder); i++ {
		r[grepByteOrder[i]] = i
	}
	return r
}()

// grepLiteral is a literal prepared for searching: it is found by its
// rarest byte (the anchor), located with bytes.IndexByte, and then
// compared whole.
type grepLiteral struct {
	s      []byte // lower-cased when fold
	fold   bool
	anchor int  // offset of the anchor byte in s
	lo, up byte // the anchor byte, and its upper case when fold (else lo)
	rank   int  // the anchor's rarity
}

func newGrepLiteral(s string, fold bool) grepLiteral {
	l := grepLiteral{s: []byte(s), fold: fold, rank: -1}
	if fold {
		l.s = bytes.ToLower(l.s) // ASCII only, so lengths do not change
	}
	for i, c := range l.s {
		r := grepRank[c]
		if fold && 'a' <= c && c <= 'z' {
			// Both cases are searched, so the more frequent counts.
			r = min(r, grepRank[c-'a'+'A'])
		}
		if r > l.rank {
			l.rank, l.anchor = r, i
		}
	}
	l.lo, l.up = l.s[l.anchor], l.s[l.anchor]
	if fold && 'a' <= l.lo && l.lo <= 'z' {
		l.up = l.lo - 'a' + 'A'
	}
	return l
}

// index returns the offset of the first occurrence of l in b at or after
// from, or -1.
func (l *grepLiteral) index(b []byte, from int) int {
	n := len(l.s)
	lo, up := -2, -2 // next offsets of the anchor's two cases in b; -2 unknown, -1 none
	for from+n <= len(b) {
		win := from + l.anchor
		limit := len(b) - n + l.anchor + 1 // past the last place an anchor can be
		if lo != -1 && lo < win {
			lo = bytes.IndexByte(b[win:limit], l.lo)
			if lo >= 0 {
				lo += win
			}
		}
		at := lo
		if l.up != l.lo {
			if up != -1 && up < win {
				up = bytes.IndexByte(b[win:limit], l.up)
				if up >= 0 {
					up += win
				}
			}
			if at < 0 || (up >= 0 && up < at) {
				at = up
			}
		}
		if at < 0 {
			return -1
		}
		start := at - l.anchor
		if l.equal(b[start : start+n]) {
			return start
		}
		from = start + 1
	}
	return -1
}

func (l *grepLiteral) equal(b []byte) bool {
	if !l.fold {
		return bytes.Equal(b, l.s)
	}
	for i, c := range l.s {
		x := b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != c {
			return false
		}
	}
	return true
}

// grepScanner walks one file's matching lines.
type grepScanner struct {
	m *grepMatcher
	// seen[i] caches where lits[i] next occurs (-1: nowhere), so that
	// several literals do not rescan the file for each line.
	seen [grepMaxLits]int
}

func (sc *grepScanner) init(m *grepMatcher) {
	sc.m = m
	for i := range sc.seen {
		sc.seen[i] = -2
	}
}

// next returns the first matching line that starts at or after pos, which
// must be the start of a line.
func (sc *grepScanner) next(b []byte, pos int) (grepHit, bool) {
	m := sc.m
	for pos < len(b) {
		// Without a literal to look for, every line is a candidate.
		at := pos
		if len(m.lits) > 0 {
			if at = sc.find(b, pos); at < 0 {
				return grepHit{}, false
			}
		}
		start := pos + bytes.LastIndexByte(b[pos:at], '\n') + 1
		end := len(b)
		if i := bytes.IndexByte(b[at:], '\n'); i >= 0 {
			end = at + i
		}
		if m.exact {
			return grepHit{start: start, end: end, match: at}, true
		}
		// A carriage return is not part of the line, so "$" matches
		// before "\r\n" as a model expects.
		line := bytes.TrimSuffix(b[start:end], []byte{'\r'})
		if len(line) <= grepMaxLineLen {
			// The match's place only matters for cutting long lines;
			// Match does not allocate.
			if m.re.Match(line) {
				return grepHit{start: start, end: end, match: start}, true
			}
		} else if loc := m.re.FindIndex(line); loc != nil {
			return grepHit{start: start, end: end, match: start + loc[0]}, true
		}
		pos = end + 1
	}
	return grepHit{}, false
}

// find returns the earliest occurrence at or after pos of any literal, or
// -1.
func (sc *grepScanner) find(b []byte, pos int) int {
	at := -1
	for i := range sc.m.lits {
		n := sc.seen[i]
		if n == -1 {
			continue
		}
		if n < pos {
			n = sc.m.lits[i].index(b, pos)
			sc.seen[i] = n
			if n < 0 {
				continue
			}
		}
		if at < 0 || n < at {
			at = n
		}
	}
	return at
}
