package permission

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file turns a shell command line into the parts the Bash rules judge.
// Rules never see the raw string: a command is parsed (Bash dialect, the
// shell the bash tool prefers), every simple command anywhere in the tree is
// collected with its argv after quote removal, and commands that run other
// commands (eval, sh -c, env, xargs, find -exec, sudo …) are unwrapped so
// the inner command is judged too.
//
// The bash tool falls back to /bin/sh when bash is missing, so the command
// is also parsed as POSIX sh and the parts only that reading finds are
// added: `[[ a || curl x ]]` is one test to bash but runs curl under dash.
//
// This file holds the model (words, parts, the analysis) and the entry
// point, analyzeCommand. The rest is split by idea:
//
//   - shell_parse.go walks the syntax tree and collects the parts;
//   - shell_words.go does quote removal and walks expansions in a word;
//   - shell_risk.go classifies a simple command and holds the tables of
//     what is harmless and what is dangerous;
//   - shell_unwrap.go and shell_wrappers.go find the command a wrapper
//     (env, sudo, xargs, setsid, flock, sh -c …) runs, reading the
//     wrapper's options as shell_opts.go reads a program's options;
//   - shell_global.go leaves out the global options of the programs
//     rules name (`git -C dir push` is `git push` to a deny rule);
//   - shell_suspect.go finds a denied program where no rule can tell
//     whether it runs (`somewrapper rm -rf x`).

const (
	// maxCommandBytes bounds what the parser reads; a longer command is
	// judged unparseable instead of pinning the CPU on it.
	maxCommandBytes = 64 << 10
	// maxShellDepth bounds nested unwrapping (eval, sh -c, env env …).
	maxShellDepth = 8
	// maxParts bounds the parts of one analysis, unwrapped ones included.
	maxParts = 4096
	// maxParsedBytes bounds the text parsed for one analysis across
	// nested eval and sh -c strings, so `eval eval eval …` stays linear.
	maxParsedBytes = 4 * maxCommandBytes
)

var errTooComplex = errors.New("command too large or too deeply nested to judge")

// partKind says what a part of a command line is.
type partKind int

const (
	partCall     partKind = iota // a simple command
	partAssign                   // a variable assignment
	partRedirect                 // a redirection
)

// wrapKind says whether and how a command runs other commands.
type wrapKind int

const (
	// notWrapper runs no command given in its arguments.
	notWrapper wrapKind = iota
	// transparent wrappers (env, nice, timeout, sh -c, eval, xargs …)
	// only run their inner command: covering that covers the wrapper.
	transparent
	// opaque wrappers (sudo, chroot, find, zsh -c …) change what the
	// inner command may do: a rule must cover the wrapper itself.
	opaque
)

// A word is one shell word after quote removal.
type word struct {
	// text is the word after quote removal; a word that is not fully
	// literal keeps its expansions in source form ("-rf $HOME").
	text string
	// lit is set when the word is fully literal: no parameter expansion,
	// substitution, arithmetic, glob, brace or tilde expansion.
	lit bool
}

// A part is one thing a command line does that the rules judge on its
// own: a simple command, an assignment, or a redirection.
type part struct {
	kind partKind
	// words is the argv of a call, the single NAME=value of an
	// assignment, or the operator and target of a redirection.
	words []word
	// moreArgs is set when the call gets further arguments that are not
	// known here (those xargs reads from its input).
	moreArgs bool
	// harmless parts are covered without a rule: a harmless builtin, a
	// plain assignment, a redirection that writes no file.
	harmless bool
	// risk says why an assignment or redirection is not harmless.
	risk string
	// wrap says whether the call runs other commands, inner, and
	// understood whether inner holds everything it runs.
	wrap       wrapKind
	understood bool
	inner      []*part
}

func (p *part) argv() []string {
	out := make([]string, len(p.words))
	for i, w := range p.words {
		out[i] = w.text
	}
	return out
}

// literalPrefix is how many leading words are fully literal.
func (p *part) literalPrefix() int {
	for i, w := range p.words {
		if !w.lit {
			return i
		}
	}
	return len(p.words)
}

func (p *part) String() string {
	var b strings.Builder
	switch p.kind {
	case partAssign:
		b.WriteString("assign ")
	case partRedirect:
		b.WriteString("redirect ")
	}
	for i, w := range p.words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w.lit {
			b.WriteString(strconv.Quote(w.text))
		} else {
			b.WriteString("~" + strconv.Quote(w.text))
		}
	}
	if p.moreArgs {
		b.WriteString(" …")
	}
	if len(p.inner) > 0 {
		b.WriteString(" {")
		for i, in := range p.inner {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(in.String())
		}
		b.WriteString("}")
	}
	return b.String()
}

// An analysis is what a command line does, as far as the rules care.
type analysis struct {
	// parts are the top-level parts; wrappers hold theirs in inner.
	parts []*part
	// hazards are reasons no Bash rule with a specifier may allow the
	// command: expansions that can run code no part shows, such as
	// arithmetic on variables (`$((x))` with x='a[$(cmd)]').
	hazards []string
	// canon is the command printed canonically, for matching a grant of
	// the exact command; empty when it does not parse.
	canon string
	// err is set when the command does not parse. Its parts are then a
	// best-effort reading for deny rules only.
	err error
}

// walk calls f for every part, inner ones included.
func (a *analysis) walk(f func(*part) bool) bool {
	var rec func([]*part) bool
	rec = func(ps []*part) bool {
		for _, p := range ps {
			if !f(p) || !rec(p.inner) {
				return false
			}
		}
		return true
	}
	return rec(a.parts)
}

// prefix is the command prefix a grant for this command may offer, or ""
// when only the exact command is safe to grant: only a single simple
// command with a plain literal program gets one. More than one command,
// substitutions, redirections to files, dangerous assignments, hazards,
// wrappers and interpreters (which run whatever their arguments say) get
// none.
func (a *analysis) prefix() string {
	if a.err != nil || len(a.hazards) > 0 {
		return ""
	}
	var call *part
	for _, p := range a.parts {
		switch {
		case p.kind == partCall && call == nil:
			call = p
		case p.kind != partCall && p.harmless:
		default:
			return ""
		}
	}
	if call == nil || call.wrap != notWrapper || call.moreArgs || !call.words[0].lit {
		return ""
	}
	prog := call.words[0].text
	if !isProgram(prog) || interpreters[path.Base(prog)] {
		return ""
	}
	if len(call.words) > 1 && call.words[1].lit && isWord(call.words[1].text) {
		return prog + " " + call.words[1].text
	}
	return prog
}

// isProgram reports whether a program name can stand in a prefix rule.
func isProgram(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+@/-", r)) {
			return false
		}
	}
	return s != "" && s[0] != '-'
}

// analyzeCommand parses a command line and collects its parts.
func analyzeCommand(cmd string) *analysis {
	an := &analyzer{}
	res := &analysis{}
	res.parts, res.canon, res.err = an.source(cmd, 0)
	if an.err != nil && res.err == nil {
		res.err = an.err
	}
	res.hazards = an.hazards
	if res.err != nil {
		res.canon = ""
	}
	return res
}

// analyzer holds the state of one analysis across nested sources.
type analyzer struct {
	hazards []string
	nparts  int
	parsed  int
	// err records a budget overrun; the analysis is then unparseable.
	err error
	// printer formats expansions back to source for a word's text.
	printer *syntax.Printer
}

func (an *analyzer) hazard(format string, args ...any) {
	h := fmt.Sprintf(format, args...)
	if len(an.hazards) < 16 && !slices.Contains(an.hazards, h) {
		an.hazards = append(an.hazards, h)
	}
}

func (an *analyzer) newPart(kind partKind, words []word) *part {
	an.nparts++
	if an.nparts > maxParts {
		an.err = errTooComplex
	}
	return &part{kind: kind, words: words}
}
