package permission

import (
	"fmt"
	"slices"
	"strings"
)

// This file reads a program's options the way its own parser does, so that
// the word after them is known for what it is: the command a wrapper runs
// (`flock -w 5 f rm`), or the subcommand of a program with global options
// (`git -C . push`). Getting this wrong either way is a hole: skipping too
// little makes an option's value look like the program (`taskset -c 0 rm`
// would run "0"), skipping too much hides the real one.

// An optSpec is how a program reads its options, in getopt_long's terms.
type optSpec struct {
	// stopAtOperand is set for an option string starting with "+": the
	// first operand ends the options, as POSIX getopt does. Otherwise
	// options are read among the operands too, as GNU getopt permutes
	// them, until "--".
	stopAtOperand bool
	// short maps each short option letter to its argument.
	short map[byte]argKind
	// long maps each long option name to its argument; a unique prefix
	// of a name is that option, as getopt_long accepts.
	long map[string]argKind
}

// argKind says whether an option takes an argument.
type argKind int

const (
	argNone argKind = iota
	// argRequired takes the rest of the word or, without one, the next
	// word (--name=value or --name value).
	argRequired
	// argOptional takes the rest of the word only (-mFILE,
	// --mount=FILE): a separate word is an operand.
	argOptional
)

// newOpts builds an optSpec from a getopt option string (each letter an
// option, ":" after one that takes an argument, "::" after one whose
// argument is optional) and the long options as space-separated names,
// each followed by ":" or "::" likewise.
func newOpts(short, long string) *optSpec {
	s := &optSpec{short: map[byte]argKind{}, long: map[string]argKind{}}
	if rest, ok := strings.CutPrefix(short, "+"); ok {
		s.stopAtOperand, short = true, rest
	}
	for i := 0; i < len(short); i++ {
		c := short[i]
		if c == ':' {
			panic(fmt.Sprintf("option string %q: stray ':'", short))
		}
		kind, n := argSuffix(short[i+1:])
		s.short[c] = kind
		i += n
	}
	for _, f := range strings.Fields(long) {
		name := strings.TrimRight(f, ":")
		s.long[name], _ = argSuffix(f[len(name):])
	}
	return s
}

// argSuffix reads the ":" or "::" after an option's name.
func argSuffix(s string) (argKind, int) {
	switch {
	case strings.HasPrefix(s, "::"):
		return argOptional, 2
	case strings.HasPrefix(s, ":"):
		return argRequired, 1
	}
	return argNone, 0
}

// An opt is one option found in a command's words.
type opt struct {
	// name is the letter of a short option or the full name of a long one.
	name string
	// value is its argument, if it has one; lit whether the word that
	// holds it is literal.
	value    string
	hasValue bool
	lit      bool
}

// An optScan is what optSpec.read found.
type optScan struct {
	opts []opt
	// operands are the indexes of the operands in the words, in order.
	operands []int
	// ok is false when reading met a word it cannot read for sure: an
	// option the program does not have, or a word that is not literal
	// where an option may stand ($x may expand to one, or to several
	// words). stop is then that word's index.
	ok   bool
	stop int
	// dashdash is the index of the "--" that ended the options, or -1.
	dashdash int
}

// has reports whether any of the options names was given.
func (sc optScan) has(names ...string) bool {
	return slices.ContainsFunc(sc.opts, func(o opt) bool { return slices.Contains(names, o.name) })
}

// rest is the index of the first operand, or len(ws) without one: where
// the command of a wrapper that stops at its first operand starts.
func (sc optScan) rest(n int) int {
	if len(sc.operands) > 0 {
		return sc.operands[0]
	}
	return n
}

// read reads the options in ws from index i on.
func (s *optSpec) read(ws []word, i int) optScan {
	sc := optScan{ok: true, dashdash: -1}
	fail := func(at int) optScan {
		sc.ok, sc.stop = false, at
		return sc
	}
	for ; i < len(ws); i++ {
		w := ws[i]
		switch {
		case !w.lit:
			return fail(i)
		case w.text == "--":
			sc.dashdash = i
			for j := i + 1; j < len(ws); j++ {
				sc.operands = append(sc.operands, j)
			}
			return sc
		case strings.HasPrefix(w.text, "--"):
			name, val, hasVal := strings.Cut(w.text[2:], "=")
			full, kind, known := s.longOpt(name)
			if !known || kind == argNone && hasVal {
				return fail(i)
			}
			o := opt{name: full, value: val, hasValue: hasVal, lit: true}
			if kind == argRequired && !hasVal {
				if i+1 >= len(ws) {
					return fail(i) // getopt: an argument is required
				}
				i++
				if !ws[i].lit {
					return fail(i)
				}
				o.value, o.hasValue = ws[i].text, true
			}
			sc.opts = append(sc.opts, o)
		case len(w.text) > 1 && w.text[0] == '-':
			next, ok := s.cluster(ws, i, &sc)
			if !ok {
				return fail(next)
			}
			i = next
		default:
			sc.operands = append(sc.operands, i)
			if s.stopAtOperand {
				for j := i + 1; j < len(ws); j++ {
					sc.operands = append(sc.operands, j)
				}
				return sc
			}
		}
	}
	return sc
}

// cluster reads a word of short options, "-abc" or "-ovalue", and
// returns the index of the last word it used.
func (s *optSpec) cluster(ws []word, i int, sc *optScan) (int, bool) {
	text := ws[i].text
	for j := 1; j < len(text); j++ {
		kind, known := s.short[text[j]]
		if !known {
			return i, false
		}
		o := opt{name: string(text[j]), lit: true}
		switch {
		case kind == argNone:
		case j+1 < len(text):
			o.value, o.hasValue = text[j+1:], true
			sc.opts = append(sc.opts, o)
			return i, true
		case kind == argRequired:
			if i+1 >= len(ws) || !ws[i+1].lit {
				return i + 1, false
			}
			o.value, o.hasValue = ws[i+1].text, true
			sc.opts = append(sc.opts, o)
			return i + 1, true
		}
		sc.opts = append(sc.opts, o)
	}
	return i, true
}

// longOpt finds a long option by its name or a unique prefix of it.
func (s *optSpec) longOpt(name string) (string, argKind, bool) {
	if kind, ok := s.long[name]; ok {
		return name, kind, true
	}
	found, kind, n := "", argNone, 0
	for full, k := range s.long {
		if name != "" && strings.HasPrefix(full, name) {
			found, kind = full, k
			n++
		}
	}
	return found, kind, n == 1
}
