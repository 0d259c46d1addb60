package permission

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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

// interpreters run code given in their arguments, so a prefix grant for
// one would allow anything.
var interpreters = map[string]bool{
	"python": true, "python2": true, "python3": true, "node": true, "deno": true, "bun": true,
	"perl": true, "ruby": true, "php": true, "lua": true, "awk": true, "gawk": true, "mawk": true,
	"osascript": true, "pwsh": true, "powershell": true, "source": true, ".": true, "watch": true,
	"ssh": true, "script": true, "setsid": true, "flock": true, "parallel": true, "npx": true,
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

// source analyzes a command line read as Bash, then as POSIX sh. A line
// Bash cannot parse gets a best-effort reading for deny rules and err.
func (an *analyzer) source(text string, depth int) (parts []*part, canon string, err error) {
	an.parsed += len(text)
	switch {
	case len(text) > maxCommandBytes || an.parsed > maxParsedBytes || depth > maxShellDepth:
		return an.looseParts(text, depth), "", errTooComplex
	case !utf8.ValidString(text) || strings.ContainsRune(text, 0):
		return an.looseParts(text, depth), "", errors.New("command is not valid text")
	}
	stmts, err := parseStmts(text, syntax.LangBash)
	w := &walker{an: an, depth: depth}
	for _, s := range stmts {
		w.stmt(s)
	}
	if err != nil {
		return append(w.parts, an.looseParts(text, depth)...), "", err
	}
	canon = printStmts(stmts)

	// The POSIX reading: add the parts Bash did not see.
	seen := map[string]bool{}
	for _, p := range w.parts {
		seen[p.String()] = true
	}
	posix, _ := parseStmts(text, syntax.LangPOSIX)
	pw := &walker{an: an, depth: depth}
	for _, s := range posix {
		pw.stmt(s)
	}
	for _, p := range pw.parts {
		if !seen[p.String()] {
			w.parts = append(w.parts, p)
		}
	}
	return w.parts, canon, nil
}

// parseStmts parses text in one dialect. On a syntax error it returns the
// complete statements before it, which a shell would already have run.
func parseStmts(text string, lang syntax.LangVariant) ([]*syntax.Stmt, error) {
	var stmts []*syntax.Stmt
	var first error
	// The loop never breaks: StmtsSeq of mvdan.cc/sh v3.14.1 yields again
	// after an error, which panics if the loop has stopped.
	for s, err := range syntax.NewParser(syntax.Variant(lang)).StmtsSeq(strings.NewReader(text)) {
		switch {
		case err != nil && first == nil:
			first = err
		case err == nil && first == nil && s != nil:
			stmts = append(stmts, s)
		}
	}
	return stmts, first
}

func printStmts(stmts []*syntax.Stmt) string {
	var b strings.Builder
	pr := syntax.NewPrinter(syntax.Minify(true))
	if pr.Print(&b, &syntax.File{Stmts: stmts}) != nil {
		return ""
	}
	return strings.TrimSpace(b.String())
}

// looseParts reads a command that does not parse, for deny rules only: it
// splits the text at shell operators, strips quotes and reads each piece
// as a command. A second pass also splits at quotes, so
// `bash -c 'rm -rf x` still shows `rm -rf x`.
func (an *analyzer) looseParts(text string, depth int) []*part {
	// Past a megabyte the command is asked whatever it holds.
	if len(text) > 1<<20 {
		text = text[:1<<20]
	}
	var parts []*part
	seen := map[string]bool{}
	for _, seps := range []string{";&|()<>`$\n{}", ";&|()<>`$\n{}'\""} {
		for _, frag := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
			var ws []word
			for _, f := range strings.Fields(quoteStripper.Replace(frag)) {
				if len(ws) == 0 && (syntax.IsKeyword(f) || strings.Contains(f, "=")) {
					continue // if/then/do … and leading assignments
				}
				ws = append(ws, word{text: f, lit: true})
			}
			if key := joinWords(ws); len(ws) > 0 && !seen[key] && an.nparts < maxParts {
				seen[key] = true
				parts = append(parts, an.callParts(ws, depth+1, true)...)
			}
		}
	}
	return parts
}

var quoteStripper = strings.NewReplacer(`'`, "", `"`, "", `\`, "")

// A walker collects the parts of one parsed source.
type walker struct {
	an    *analyzer
	depth int
	parts []*part
}

func (w *walker) add(ps ...*part) { w.parts = append(w.parts, ps...) }

func (w *walker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

func (w *walker) stmt(s *syntax.Stmt) {
	if s == nil || w.an.err != nil {
		return
	}
	switch c := s.Cmd.(type) {
	case nil:
		// Only redirections: `> file`.
	case *syntax.CallExpr:
		var ps []*part
		for _, as := range c.Assigns {
			ps = append(ps, w.assign(as))
		}
		words := make([]word, len(c.Args))
		for i, a := range c.Args {
			words[i] = w.word(a, false)
		}
		if len(words) > 0 {
			call := w.an.callParts(words, w.depth, false)
			w.stdinScript(call[0], s.Redirs)
			ps = append(ps, call...)
		}
		w.add(ps...)
	case *syntax.BinaryCmd:
		w.stmt(c.X)
		w.stmt(c.Y)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.Subshell:
		w.stmts(c.Stmts)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond)
			w.stmts(ic.Then)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond)
		w.stmts(c.Do)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			for _, it := range l.Items {
				w.word(it, false)
			}
			// The loop variable is assigned: `for PATH in /tmp` counts.
			p := w.an.newPart(partAssign, []word{{text: l.Name.Value + "=", lit: true}})
			p.risk = varRisk(l.Name.Value)
			p.harmless = p.risk == ""
			w.add(p)
		case *syntax.CStyleLoop:
			for _, x := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
				w.arith(x)
			}
		}
		w.stmts(c.Do)
	case *syntax.CaseClause:
		w.word(c.Word, false)
		for _, it := range c.Items {
			for _, pat := range it.Patterns {
				w.word(pat, false)
			}
			w.stmts(it.Stmts)
		}
	case *syntax.FuncDecl:
		// A definition runs nothing, but the body is judged as if it ran:
		// `f(){ rm -rf x; }; f`.
		w.stmt(c.Body)
	case *syntax.ArithmCmd:
		p := w.an.newPart(partCall, []word{{text: "((", lit: true}, {text: "))", lit: true}})
		p.harmless = w.arith(c.X)
		w.add(p)
	case *syntax.LetClause:
		p := w.an.newPart(partCall, []word{{text: "let", lit: true}})
		p.harmless = true
		for _, x := range c.Exprs {
			p.harmless = w.arith(x) && p.harmless
		}
		w.add(p)
	case *syntax.TestClause:
		p := w.an.newPart(partCall, []word{{text: "[[", lit: true}, {text: "]]", lit: true}})
		p.harmless = w.test(c.X)
		w.add(p)
	case *syntax.DeclClause:
		w.decl(c)
	case *syntax.TimeClause:
		w.stmt(c.Stmt)
	case *syntax.CoprocClause:
		if c.Name != nil {
			w.word(c.Name, false)
		}
		w.stmt(c.Stmt)
	default:
		w.an.hazard("unsupported shell construct %T", c)
	}
	for _, r := range s.Redirs {
		w.redirect(r)
	}
}

// stdinScript reads the here-document or here-string fed to a shell that
// runs its standard input (`bash <<< 'rm -rf x'`), for deny rules: the
// shell stays not understood, so only a rule for it can allow it.
func (w *walker) stdinScript(p *part, redirs []*syntax.Redirect) {
	if p.wrap == notWrapper || p.understood || len(p.inner) > 0 || !isShell(path.Base(p.words[0].text)) {
		return
	}
	for _, r := range redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				parts, _, _ := w.an.source(w.word(r.Hdoc, false).text, w.depth+1)
				p.inner = append(p.inner, parts...)
			}
		case syntax.WordHdoc:
			parts, _, _ := w.an.source(w.word(r.Word, false).text, w.depth+1)
			p.inner = append(p.inner, parts...)
		}
	}
}

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish":
		return true
	}
	return false
}

// redirect judges one redirection: writing a file is not harmless, except
// the null device, stdout, stderr and duplicating a descriptor.
func (w *walker) redirect(r *syntax.Redirect) {
	var target word
	if r.Word != nil {
		target = w.word(r.Word, false)
	}
	if r.Hdoc != nil {
		w.word(r.Hdoc, false) // substitutions in an unquoted here-doc run
	}
	p := w.an.newPart(partRedirect, []word{{text: r.Op.String(), lit: true}, target})
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn:
		if target.lit && (strings.HasPrefix(target.text, "/dev/tcp/") || strings.HasPrefix(target.text, "/dev/udp/")) {
			p.risk = "opens a network connection"
		}
	case syntax.DplOut:
		if !target.lit || !isFD(target.text) {
			p.risk = "writes to the file " + target.text
		}
	default:
		if !target.lit || !safeDevice(target.text) {
			p.risk = "writes to the file " + target.text
		}
	}
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		// {name}>file assigns the descriptor number to name.
		if risk := varRisk(strings.Trim(r.N.Value, "{}")); risk != "" {
			p.risk = risk
		}
	}
	p.harmless = p.risk == ""
	w.add(p)
}

func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-") // 2>&1- moves the descriptor
	if s == "" {
		return true // >&- closes stdout
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func safeDevice(s string) bool {
	switch s {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return true
	}
	return false
}

// assign makes the part for an assignment of a simple command or a
// standalone one.
func (w *walker) assign(as *syntax.Assign) *part {
	name := ""
	if as.Name != nil {
		name = as.Name.Value
	}
	val := word{lit: true}
	if as.Value != nil {
		val = w.word(as.Value, true)
	}
	text := name
	if as.Index != nil {
		text += "[" + w.an.print(as.Index) + "]"
	}
	p := w.an.newPart(partAssign, []word{{text: text + "=" + val.text, lit: val.lit}})
	p.risk = varRisk(name)
	switch {
	case p.risk != "":
	case as.Index != nil && !w.arith(as.Index):
		p.risk = "array subscript is evaluated"
	case !val.lit:
		p.risk = "value is not literal"
	case as.Array != nil:
		for _, el := range as.Array.Elems {
			if el.Index != nil && !w.arith(el.Index) {
				p.risk = "array subscript is evaluated"
			}
			if el.Value != nil && !w.word(el.Value, true).lit {
				p.risk = "value is not literal"
			}
		}
	}
	p.harmless = p.risk == ""
	return p
}

// decl handles declare, local, export, readonly and typeset as Bash
// parses them: the options must be harmless ones and every variable an
// assignment that is harmless on its own.
func (w *walker) decl(c *syntax.DeclClause) {
	p := w.an.newPart(partCall, []word{{text: c.Variant.Value, lit: true}})
	p.harmless = c.Variant.Value != "nameref"
	var ps []*part
	for _, as := range c.Args {
		switch {
		case as.Naked && as.Name == nil:
			// An option, or a word evaluated at run time.
			v := w.word(as.Value, false)
			p.words = append(p.words, v)
			if !v.lit || !declArgOK(c.Variant.Value, v.text) {
				p.harmless = false
			}
		case as.Naked:
			p.words = append(p.words, word{text: as.Name.Value, lit: true})
			if varRisk(as.Name.Value) != "" || as.Index != nil {
				p.harmless = false
			}
		default:
			a := w.assign(as)
			p.words = append(p.words, a.words[0])
			ps = append(ps, a)
		}
	}
	w.add(append([]*part{p}, ps...)...)
}

// declArgOK reports whether a literal argument of a declaration builtin
// is harmless: an option that only exports or marks read-only, or a plain
// variable name that is not dangerous. Others, such as -n (a name
// reference that redirects later assignments) and -i (arithmetic on every
// assignment), are not.
func declArgOK(variant, arg string) bool {
	if strings.HasPrefix(arg, "-") || strings.HasPrefix(arg, "+") {
		allowed := "p"
		if variant == "declare" || variant == "typeset" || variant == "local" {
			allowed = "xrgp"
		}
		rest := arg[1:]
		return rest != "" && strings.Trim(rest, allowed) == ""
	}
	name, _, _ := strings.Cut(arg, "=")
	return isName(name) && varRisk(name) == ""
}

func isName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// test judges a [[ … ]] expression: harmless unless it evaluates text as
// arithmetic or as a variable reference with a subscript, which can run
// commands (`[[ 'a[$(cmd)]' -eq 1 ]]`, `[[ -v a[$(cmd)] ]]`).
func (w *walker) test(x syntax.TestExpr) bool {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		l, lok := w.testOperand(x.X)
		r, rok := w.testOperand(x.Y)
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			if !l.lit || !isInt(l.text) || !r.lit || !isInt(r.text) {
				w.an.hazard("[[ … ]] evaluates its operands as arithmetic")
				return false
			}
		}
		return lok && rok
	case *syntax.UnaryTest:
		v, ok := w.testOperand(x.X)
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			if !v.lit || !isName(v.text) {
				w.an.hazard("[[ -v ]] evaluates a subscript")
				return false
			}
		}
		return ok
	case *syntax.ParenTest:
		return w.test(x.X)
	}
	return false
}

// testOperand walks one operand of a test expression, once, and returns
// it as a word if it is one.
func (w *walker) testOperand(x syntax.TestExpr) (word, bool) {
	if wd, ok := x.(*syntax.Word); ok {
		return w.word(wd, false), true
	}
	return word{}, w.test(x)
}

func isInt(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// arith walks an arithmetic expression for the commands in it and reports
// whether it is pure: numbers and operators only. Bash evaluates a
// variable's value as an expression again, and a subscript in it runs
// command substitutions (x='a[$(cmd)]'; $((x)) runs cmd), so arithmetic
// that names a variable is a hazard.
func (w *walker) arith(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.BinaryArithm:
		l := w.arith(x.X)
		return w.arith(x.Y) && l
	case *syntax.UnaryArithm:
		return w.arith(x.X)
	case *syntax.ParenArithm:
		return w.arith(x.X)
	case *syntax.Word:
		if lit, ok := x.Parts[0].(*syntax.Lit); ok && len(x.Parts) == 1 && lit.Value != "" && lit.Value[0] >= '0' && lit.Value[0] <= '9' && !strings.ContainsAny(lit.Value, "[]$`") {
			return true
		}
		w.word(x, false)
	}
	w.an.hazard("arithmetic on variables can run commands")
	return false
}

// word does quote removal on a word and walks the substitutions in it.
// assignValue applies the tilde rules of an assignment's value.
func (w *walker) word(wd *syntax.Word, assignValue bool) word {
	var b strings.Builder
	lit := true
	for i, wp := range wd.Parts {
		switch x := wp.(type) {
		case *syntax.Lit:
			s, plain := unescapeUnquoted(x.Value)
			if !plain || i == 0 && strings.HasPrefix(x.Value, "~") || assignValue && strings.Contains(x.Value, ":~") {
				lit = false
			}
			b.WriteString(s)
		case *syntax.SglQuoted:
			if x.Dollar {
				b.WriteString(ansiC(x.Value))
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			for _, dp := range x.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
					continue
				}
				lit = false
				b.WriteString(w.expansion(dp))
			}
		default:
			lit = false
			b.WriteString(w.expansion(wp))
		}
	}
	if lit && hasBraceExpansion(wd) {
		lit = false
	}
	return word{text: b.String(), lit: lit}
}

// expansion walks a word part that is not literal and returns its source.
func (w *walker) expansion(wp syntax.WordPart) string {
	switch x := wp.(type) {
	case *syntax.CmdSubst:
		w.stmts(x.Stmts)
	case *syntax.ProcSubst:
		w.stmts(x.Stmts)
	case *syntax.ArithmExp:
		w.arith(x.X)
	case *syntax.ParamExp:
		w.param(x)
	case *syntax.ExtGlob:
	default:
		w.an.hazard("unsupported word part %T", x)
	}
	return w.an.print(wp)
}

// print formats a node back to source.
func (an *analyzer) print(n syntax.Node) string {
	if an.printer == nil {
		an.printer = syntax.NewPrinter()
	}
	var b strings.Builder
	if an.printer.Print(&b, n) != nil {
		return "?"
	}
	return b.String()
}

// param walks a parameter expansion. Indirection (${!x}), subscripts,
// slices and prompt expansion (${x@P}) can run commands held in a
// variable's value, so they are hazards.
func (w *walker) param(x *syntax.ParamExp) {
	if x.Excl && x.Names == 0 {
		w.an.hazard("indirect expansion ${!name} can run commands")
	}
	if x.Index != nil {
		if wd, ok := x.Index.(*syntax.Word); !ok || wd.Lit() != "@" && wd.Lit() != "*" {
			w.arith(x.Index)
		}
	}
	if x.Slice != nil {
		w.arith(x.Slice.Offset)
		w.arith(x.Slice.Length)
	}
	if x.Repl != nil {
		if x.Repl.Orig != nil {
			w.word(x.Repl.Orig, false)
		}
		if x.Repl.With != nil {
			w.word(x.Repl.With, false)
		}
	}
	if x.NestedParam != nil {
		w.expansion(x.NestedParam)
	}
	if x.Exp != nil {
		if x.Exp.Word != nil {
			w.word(x.Exp.Word, false)
		}
		switch x.Exp.Op {
		case syntax.OtherParamOps:
			if x.Exp.Word != nil && x.Exp.Word.Lit() == "P" {
				w.an.hazard("prompt expansion ${name@P} runs substitutions")
			}
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if x.Param != nil && varRisk(x.Param.Value) != "" {
				w.an.hazard("${%s:=…} assigns a dangerous variable", x.Param.Value)
			}
		}
	}
}

// unescapeUnquoted removes backslash escapes from an unquoted literal and
// reports whether it is plain: no unescaped glob character.
func unescapeUnquoted(s string) (string, bool) {
	if !strings.ContainsAny(s, `\*?[`) {
		return s, true
	}
	var b strings.Builder
	plain := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		case c == '*' || c == '?':
			plain = false
		case c == '[' && strings.Contains(s[i+1:], "]"):
			plain = false
		}
		b.WriteByte(c)
	}
	return b.String(), plain
}

// unescapeDouble removes the backslashes that escape a character inside
// double quotes.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the escapes of a $'…' string as Bash does.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < n && isHexDigit(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	// Bash ends the string at a NUL byte.
	out, _, _ := strings.Cut(b.String(), "\x00")
	return out
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// hasBraceExpansion reports whether Bash would brace-expand the word.
func hasBraceExpansion(wd *syntax.Word) bool {
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), wd.Parts...)}
	if !syntax.SplitBraces(cp) {
		return false
	}
	// SplitBraces also reports words like "{}" it only re-split.
	return slices.ContainsFunc(cp.Parts, func(wp syntax.WordPart) bool {
		_, ok := wp.(*syntax.BraceExp)
		return ok
	})
}

// callParts classifies a simple command given as words: a harmless
// builtin, a declaration, a wrapper whose inner command is unwrapped, or
// an ordinary command. It returns the call and any assignment parts it
// makes. loose is set for the best-effort reading of an unparseable line.
func (an *analyzer) callParts(ws []word, depth int, loose bool) []*part {
	p := an.newPart(partCall, ws)
	if !ws[0].lit || an.err != nil {
		return []*part{p}
	}
	name := ws[0].text
	bare := !strings.Contains(name, "/")
	if bare {
		switch {
		case harmlessBuiltins[name]:
			p.harmless = an.builtinOK(ws)
		case declBuiltins[name]:
			return an.declParts(p)
		}
		an.subscriptHazards(ws)
	}
	if kind, unwrap := wrapperFor(path.Base(name)); unwrap != nil {
		p.wrap = kind
		if !bare {
			p.wrap = opaque // /tmp/x/env is not env
		}
		if depth >= maxShellDepth {
			return []*part{p}
		}
		unwrap(&unwrapper{an: an, p: p, depth: depth + 1, loose: loose}, ws)
		if !bare {
			p.harmless = false // /tmp/x/env alone is not harmless either
		}
	}
	return []*part{p}
}

// harmlessBuiltins run nothing and write nothing by themselves, so they
// are covered without a rule (their redirections and substitutions are
// still judged).
var harmlessBuiltins = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "pwd": true, "true": true, "false": true,
	":": true, "echo": true, "printf": true, "test": true, "[": true, "[[": true,
	"exit": true, "return": true, "shift": true,
}

var declBuiltins = map[string]bool{
	"declare": true, "local": true, "export": true, "readonly": true, "typeset": true,
}

// builtinOK checks the arguments of a harmless builtin for the few forms
// that do run code or assign: printf -v, test -v with a subscript, and
// arithmetic comparisons in [[ (the POSIX reading sees [[ as a command).
func (an *analyzer) builtinOK(ws []word) bool {
	switch ws[0].text {
	case "printf":
		return len(ws) < 2 || ws[1].lit && !strings.HasPrefix(ws[1].text, "-v")
	case "test", "[", "[[":
		for i := 1; i < len(ws); i++ {
			switch ws[i].text {
			case "-v", "-R":
				if i+1 < len(ws) && (!ws[i+1].lit || !isName(ws[i+1].text)) {
					an.hazard("test -v evaluates a subscript")
					return false
				}
			case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
				if ws[0].text == "[[" && (!ws[i-1].lit || !isInt(ws[i-1].text) || i+1 < len(ws) && (!ws[i+1].lit || !isInt(ws[i+1].text))) {
					an.hazard("[[ … ]] evaluates its operands as arithmetic")
					return false
				}
			}
		}
	}
	return true
}

// nameBuiltins take variable names, whose subscripts Bash evaluates.
var nameBuiltins = map[string]bool{
	"read": true, "mapfile": true, "readarray": true, "getopts": true, "printf": true, "unset": true,
	"let": true, "test": true, "[": true, "[[": true, "wait": true, "declare": true, "local": true,
	"export": true, "readonly": true, "typeset": true,
}

// subscriptHazards flags a literal argument such as 'a[$(cmd)]' given to
// a builtin that takes a variable name: Bash expands the subscript.
func (an *analyzer) subscriptHazards(ws []word) {
	if !nameBuiltins[ws[0].text] {
		return
	}
	for _, w := range ws[1:] {
		if strings.Contains(w.text, "[") && strings.ContainsAny(w.text, "$`") {
			an.hazard("%s evaluates the subscript in %q", ws[0].text, w.text)
		}
	}
}

// declParts judges a declaration builtin given as words (the POSIX
// reading, or one run by a wrapper): each NAME=value is an assignment.
func (an *analyzer) declParts(p *part) []*part {
	ps := []*part{p}
	p.harmless = true
	an.subscriptHazards(p.words)
	for _, w := range p.words[1:] {
		if name, _, ok := strings.Cut(w.text, "="); ok && w.lit && isName(name) {
			a := an.newPart(partAssign, []word{w})
			a.risk = varRisk(name)
			a.harmless = a.risk == ""
			ps = append(ps, a)
			continue
		}
		if !w.lit || !declArgOK(p.words[0].text, w.text) {
			p.harmless = false
		}
	}
	return ps
}

// varRisk says why assigning the variable is dangerous, or "" when it is
// not. The dangerous ones change how the loader, the shell or a common
// tool runs programs:
//
//   - loader: LD_*, DYLD_*, GCONV_PATH, LOCPATH, NLSPATH
//   - shell: PATH, BASH*, ENV, PROMPT_COMMAND, IFS, SHELLOPTS, PS0–PS4,
//     CDPATH, HOME, SHELL, POSIXLY_CORRECT, GLOBIGNORE, EXECIGNORE, HISTFILE
//   - programs run by tools: GIT_* (but author/committer identity and
//     GIT_TERMINAL_PROMPT), EDITOR, VISUAL, PAGER, MANPAGER, LESSOPEN,
//     LESSCLOSE, BROWSER, SSH_ASKPASS, SUDO_ASKPASS, SUDO_EDITOR,
//     XDG_CONFIG_HOME, XDG_CONFIG_DIRS
//   - Go: GOFLAGS, GOENV, GOROOT, GOPATH, GOMODCACHE, GOCACHE, GOTOOLCHAIN,
//     GOTOOLDIR, GOPROXY, GONOPROXY, GOSUMDB, GONOSUMDB, GONOSUMCHECK,
//     GOPRIVATE, GOINSECURE, GOVCS, GOWORK, GOBIN, CGO_* (but CGO_ENABLED)
//   - C toolchain: CC, CXX, CPP, LD, AR, AS, CFLAGS, CXXFLAGS, CPPFLAGS,
//     LDFLAGS, MAKEFLAGS, GNUMAKEFLAGS, MAKEFILES
//   - interpreters: NODE_OPTIONS, NODE_PATH, npm_config_* (any case),
//     YARN_*, PYTHONSTARTUP, PYTHONPATH, PYTHONHOME, PYTHONUSERBASE,
//     PERL5OPT, PERL5LIB, PERLLIB, PERL5DB, RUBYOPT, RUBYLIB,
//     JAVA_TOOL_OPTIONS, _JAVA_OPTIONS, JDK_JAVA_OPTIONS, CLASSPATH,
//     RUSTC, RUSTC_WRAPPER, RUSTC_WORKSPACE_WRAPPER, RUSTDOC, RUSTFLAGS,
//     RUSTDOCFLAGS, CARGO_*
//
// The list cannot be complete; it names what is known to run code.
func varRisk(name string) string {
	if dangerousVars[name] {
		return "sets " + name
	}
	upper := strings.ToUpper(name)
	for _, prefix := range dangerousVarPrefixes {
		if strings.HasPrefix(upper, prefix) && !harmlessVars[name] {
			return "sets " + name
		}
	}
	return ""
}

var dangerousVars = map[string]bool{
	"GCONV_PATH": true, "LOCPATH": true, "NLSPATH": true,
	"PATH": true, "ENV": true, "PROMPT_COMMAND": true, "IFS": true, "SHELLOPTS": true,
	"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true, "CDPATH": true, "HOME": true,
	"SHELL": true, "POSIXLY_CORRECT": true, "GLOBIGNORE": true, "EXECIGNORE": true, "HISTFILE": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true, "LESSOPEN": true,
	"LESSCLOSE": true, "BROWSER": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true, "SUDO_EDITOR": true,
	"XDG_CONFIG_HOME": true, "XDG_CONFIG_DIRS": true,
	"GOFLAGS": true, "GOENV": true, "GOROOT": true, "GOPATH": true, "GOMODCACHE": true,
	"GOCACHE": true, "GOTOOLCHAIN": true, "GOTOOLDIR": true, "GOPROXY": true, "GONOPROXY": true,
	"GOSUMDB": true, "GONOSUMDB": true, "GONOSUMCHECK": true, "GOPRIVATE": true, "GOINSECURE": true,
	"GOVCS": true, "GOWORK": true, "GOBIN": true,
	"CC": true, "CXX": true, "CPP": true, "LD": true, "AR": true, "AS": true, "CFLAGS": true,
	"CXXFLAGS": true, "CPPFLAGS": true, "LDFLAGS": true, "MAKEFLAGS": true, "GNUMAKEFLAGS": true,
	"MAKEFILES":    true,
	"NODE_OPTIONS": true, "NODE_PATH": true, "PYTHONSTARTUP": true, "PYTHONPATH": true,
	"PYTHONHOME": true, "PYTHONUSERBASE": true, "PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true,
	"PERL5DB": true, "RUBYOPT": true, "RUBYLIB": true, "JAVA_TOOL_OPTIONS": true,
	"_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "CLASSPATH": true, "RUSTC": true,
	"RUSTC_WRAPPER": true, "RUSTC_WORKSPACE_WRAPPER": true, "RUSTDOC": true, "RUSTFLAGS": true,
	"RUSTDOCFLAGS": true,
}

// dangerousVarPrefixes are compared with the upper-cased name: npm reads
// npm_config_* in any case.
var dangerousVarPrefixes = []string{"LD_", "DYLD_", "BASH", "GIT_", "CGO_", "NPM_CONFIG_", "YARN_", "CARGO_"}

var harmlessVars = map[string]bool{
	"CGO_ENABLED":     true,
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true,
	"GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true, "GIT_COMMITTER_DATE": true,
	"GIT_TERMINAL_PROMPT": true,
}

// wrapperFor returns how a program runs the command in its arguments and
// the function that finds it, or nil for a program that runs none.
func wrapperFor(name string) (wrapKind, func(*unwrapper, []word)) {
	switch name {
	case "env":
		return transparent, unwrapEnv
	case "command":
		return transparent, unwrapCommand
	case "builtin", "nohup":
		return transparent, func(u *unwrapper, ws []word) { u.runAfter(ws, 1, "", "", nil) }
	case "exec":
		return transparent, func(u *unwrapper, ws []word) { u.runAfter(ws, 1, "cl", "a", nil) }
	case "nice":
		return transparent, unwrapNice
	case "timeout":
		return transparent, unwrapTimeout
	case "time":
		return transparent, func(u *unwrapper, ws []word) {
			u.runAfter(ws, 1, "pvq", "f", map[string]bool{"portability": false, "verbose": false, "quiet": false, "format": true})
		}
	case "stdbuf":
		return transparent, func(u *unwrapper, ws []word) {
			u.runAfter(ws, 1, "", "ioe", map[string]bool{"input": true, "output": true, "error": true})
		}
	case "xargs":
		return transparent, unwrapXargs
	case "eval":
		return transparent, unwrapEval
	case "sh", "bash", "dash":
		return transparent, unwrapShell
	case "zsh", "ksh", "mksh", "ash", "fish":
		// Parsed as Bash for deny rules, but their syntax differs.
		return opaque, unwrapShell
	case "sudo":
		return opaque, unwrapSudo
	case "doas":
		return opaque, func(u *unwrapper, ws []word) { u.runAfter(ws, 1, "nsSL", "Cua", nil) }
	case "chroot":
		return opaque, unwrapChroot
	case "find":
		return opaque, unwrapFind
	case "trap":
		return opaque, unwrapTrap
	case "su":
		return opaque, unwrapSu
	}
	return notWrapper, nil
}

// An unwrapper finds the commands a wrapper runs and records them as the
// wrapper's inner parts.
type unwrapper struct {
	an    *analyzer
	p     *part
	depth int
	// loose is set for the best-effort reading of an unparseable line.
	loose bool
}

// run records ws as the command the wrapper runs; no words means the
// wrapper runs nothing, which leaves it harmless when harmlessAlone.
func (u *unwrapper) run(ws []word, harmlessAlone bool) {
	u.p.understood = true
	if len(ws) == 0 {
		u.p.harmless = harmlessAlone
		return
	}
	u.p.inner = append(u.p.inner, u.an.callParts(ws, u.depth, u.loose)...)
}

// guess is the best effort for options not understood: skip what looks
// like options and assignments and judge the rest for deny rules. The
// wrapper stays not understood, so only a rule for it can allow it.
func (u *unwrapper) guess(ws []word) {
	for len(ws) > 0 && (strings.HasPrefix(ws[0].text, "-") || strings.Contains(ws[0].text, "=")) {
		ws = ws[1:]
	}
	if len(ws) > 0 {
		u.p.inner = append(u.p.inner, u.an.callParts(ws, u.depth, true)...)
	}
	u.p.understood = false
}

// shell records the commands of a command string (sh -c, eval).
func (u *unwrapper) shell(text string, literal bool) {
	parts, _, err := u.an.source(text, u.depth)
	u.p.inner = append(u.p.inner, parts...)
	u.p.understood = literal && err == nil
}

// runAfter skips the wrapper's options and runs the rest.
func (u *unwrapper) runAfter(ws []word, i int, flags, args string, long map[string]bool) {
	i, _, ok := getopt(ws, i, flags, args, long)
	if !ok {
		u.guess(ws[i:])
		return
	}
	u.run(ws[i:], false)
}

// getopt skips a wrapper's options from ws[i] the way GNU getopt does
// with a leading "+": it stops at the first operand or after "--". Short
// options in flags take no argument, those in args take one; long maps a
// long option to whether it takes one. It returns the operand's index and
// the short options seen, or ok=false at an option it does not know or a
// word that is not literal.
func getopt(ws []word, i int, flags, args string, long map[string]bool) (next int, seen string, ok bool) {
	for i < len(ws) {
		s := ws[i].text
		if !ws[i].lit {
			return i, seen, false
		}
		switch {
		case s == "--":
			return i + 1, seen, true
		case strings.HasPrefix(s, "--"):
			name, _, hasVal := strings.Cut(s[2:], "=")
			takes, known := long[name]
			if !known {
				return i, seen, false
			}
			i++
			if takes && !hasVal {
				if i < len(ws) && !ws[i].lit {
					return i, seen, false // $x may split into more words
				}
				i++
			}
		case len(s) > 1 && s[0] == '-':
			i++
		cluster:
			for j := 1; j < len(s); j++ {
				c := s[j]
				switch {
				case strings.IndexByte(flags, c) >= 0:
					seen += string(c)
				case strings.IndexByte(args, c) >= 0:
					seen += string(c)
					if j == len(s)-1 {
						// The argument is the next word; $x may split
						// into more words.
						if i < len(ws) && !ws[i].lit {
							return i, seen, false
						}
						i++
					}
					break cluster
				default:
					return i - 1, seen, false
				}
			}
		default:
			return i, seen, true
		}
	}
	return min(i, len(ws)), seen, true
}

func unwrapEnv(u *unwrapper, ws []word) {
	i := 1
	for {
		var ok bool
		i, _, ok = getopt(ws, i, "i0v", "uC", map[string]bool{"ignore-environment": false, "null": false, "unset": true, "chdir": true, "debug": false})
		if !ok {
			// -S splits a string into more arguments: not followed here.
			u.guess(ws[i:])
			return
		}
		if i < len(ws) && ws[i].lit && ws[i].text == "-" { // same as -i
			i++
			continue
		}
		break
	}
	var assigns []*part
	for ; i < len(ws) && strings.Contains(ws[i].text, "="); i++ {
		name, _, _ := strings.Cut(ws[i].text, "=")
		if !ws[i].lit || !isName(name) {
			u.guess(ws[i:])
			return
		}
		a := u.an.newPart(partAssign, []word{ws[i]})
		a.risk = varRisk(name)
		a.harmless = a.risk == ""
		assigns = append(assigns, a)
	}
	u.p.inner = append(u.p.inner, assigns...)
	u.run(ws[i:], true) // env alone prints the environment
}

func unwrapCommand(u *unwrapper, ws []word) {
	i, seen, ok := getopt(ws, 1, "pvV", "", nil)
	switch {
	case !ok:
		u.guess(ws[i:])
	case strings.ContainsAny(seen, "vV"):
		// command -v only looks the name up.
		u.p.understood, u.p.harmless = true, true
	default:
		u.run(ws[i:], false)
	}
}

func unwrapNice(u *unwrapper, ws []word) {
	i := 1
	for i < len(ws) && ws[i].lit {
		s := ws[i].text
		switch {
		case s == "-n" || s == "--adjustment":
			if i+1 < len(ws) && !ws[i+1].lit {
				u.guess(ws[i:]) // $x may split into more words
				return
			}
			i += 2
			continue
		case s == "--":
			i++
		case strings.HasPrefix(s, "-n") || strings.HasPrefix(s, "--adjustment=") || len(s) > 1 && s[0] == '-' && isInt(s[1:]):
			i++
			continue
		case strings.HasPrefix(s, "-"):
			u.guess(ws[i:])
			return
		}
		break
	}
	if i < len(ws) && !ws[i].lit && strings.HasPrefix(ws[i].text, "-") {
		u.guess(ws[i:])
		return
	}
	u.run(ws[min(i, len(ws)):], false)
}

func unwrapTimeout(u *unwrapper, ws []word) {
	i, _, ok := getopt(ws, 1, "fvp", "ks", map[string]bool{"foreground": false, "verbose": false, "preserve-status": false, "kill-after": true, "signal": true})
	if !ok {
		u.guess(ws[i:])
		return
	}
	// The first operand is the duration.
	if i < len(ws) && !ws[i].lit {
		u.guess(ws[i:]) // $x may split into more words
		return
	}
	u.run(ws[min(i+1, len(ws)):], false)
}

// unwrapXargs finds the command xargs runs. It gets further arguments
// from the input, unknown here; with -I they replace the marker instead.
func unwrapXargs(u *unwrapper, ws []word) {
	repl := ""
	i := 1
	ok := true
loop:
	for i < len(ws) {
		s := ws[i].text
		if !ws[i].lit {
			ok = false
			break
		}
		switch {
		case s == "--":
			i++
			break loop
		case strings.HasPrefix(s, "--"):
			name, val, hasVal := strings.Cut(s[2:], "=")
			i++
			switch name {
			case "null", "no-run-if-empty", "verbose", "interactive", "exit", "open-tty", "show-limits":
			case "arg-file", "delimiter", "max-args", "max-procs", "max-chars":
				if !hasVal {
					if i < len(ws) && !ws[i].lit {
						ok = false
						break loop
					}
					i++
				}
			case "max-lines", "eof":
			case "replace":
				repl = "{}"
				if hasVal {
					repl = val
				}
			default:
				ok = false
				break loop
			}
		case len(s) > 1 && s[0] == '-':
			i++
			for j := 1; j < len(s); j++ {
				c := s[j]
				rest := s[j+1:]
				switch {
				case strings.IndexByte("0prtxo", c) >= 0:
					continue
				case strings.IndexByte("adEILnPs", c) >= 0:
					arg := rest
					if rest == "" && i < len(ws) {
						if !ws[i].lit {
							ok = false
							break loop
						}
						arg = ws[i].text
						i++
					}
					if c == 'I' {
						repl = arg
					}
				case c == 'i':
					repl = "{}"
					if rest != "" {
						repl = rest
					}
				case c == 'e' || c == 'l':
				default:
					ok = false
					break loop
				}
				break
			}
		default:
			break loop
		}
	}
	if !ok {
		u.guess(ws[min(i, len(ws)):])
		return
	}
	cmd := append([]word(nil), ws[min(i, len(ws)):]...)
	for k := range cmd {
		if repl != "" && strings.Contains(cmd[k].text, repl) {
			cmd[k].lit = false
		}
	}
	u.run(cmd, true) // xargs alone runs echo
	if len(u.p.inner) > 0 && repl == "" {
		u.p.inner[len(u.p.inner)-1].moreArgs = true
	}
}

// unwrapFind finds the commands of -exec, -execdir, -ok and -okdir.
func unwrapFind(u *unwrapper, ws []word) {
	u.p.understood = true
	for i := 1; i < len(ws); i++ {
		switch ws[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(ws) && !(ws[j].text == ";" || ws[j].text == "+") {
			j++
		}
		cmd := append([]word(nil), ws[i+1:j]...)
		for k := range cmd {
			if strings.Contains(cmd[k].text, "{}") {
				cmd[k].lit = false // the file name
			}
		}
		if len(cmd) > 0 {
			u.p.inner = append(u.p.inner, u.an.callParts(cmd, u.depth, u.loose)...)
		}
		i = j
	}
}

// unwrapShell finds the command string of sh -c and its kin.
func unwrapShell(u *unwrapper, ws []word) {
	i := 1
	cmdMode, ok := false, true
loop:
	for i < len(ws) {
		s := ws[i].text
		switch {
		case !ws[i].lit:
			ok = false
			break loop
		case s == "--" || s == "-":
			i++
			break loop
		case strings.HasPrefix(s, "--"):
			i++
			switch s {
			case "--login", "--noprofile", "--norc", "--posix", "--restricted", "--verbose", "--noediting":
			case "--rcfile", "--init-file":
				i++
				ok = false // runs that file first
			default:
				ok = false
			}
		case len(s) > 1 && (s[0] == '-' || s[0] == '+'):
			i++
			for _, c := range s[1:] {
				switch {
				case c == 'c' && s[0] == '-':
					cmdMode = true
				case c == 'o' || c == 'O':
					i++
				case strings.ContainsRune("abefhkmnptuvxBCEHilr", c):
				default:
					ok = false // -s reads standard input, and unknown options
				}
			}
		default:
			break loop
		}
	}
	if !cmdMode || i >= len(ws) {
		// A script file or standard input: nothing to judge here.
		u.p.understood = false
		if u.loose && i < len(ws) {
			u.guess(ws[i:])
		}
		return
	}
	text := ws[i].text
	if u.loose {
		// The best-effort reading lost the quotes: take the rest.
		text = joinWords(ws[i:])
	}
	u.shell(text, ws[i].lit && ok)
}

func joinWords(ws []word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.text
	}
	return strings.Join(s, " ")
}

// unwrapEval parses eval's arguments, joined, as a command line.
func unwrapEval(u *unwrapper, ws []word) {
	args := ws[1:]
	if len(args) > 0 && args[0].text == "--" {
		args = args[1:]
	}
	lit := true
	for _, w := range args {
		lit = lit && w.lit
	}
	if len(args) == 0 {
		u.p.understood, u.p.harmless = true, true
		return
	}
	u.shell(joinWords(args), lit)
}

func unwrapTrap(u *unwrapper, ws []word) {
	args := ws[1:]
	for len(args) > 0 && strings.HasPrefix(args[0].text, "-") && args[0].text != "-" {
		if args[0].text == "--" {
			args = args[1:]
			break
		}
		args = args[1:]
	}
	if len(args) >= 2 {
		u.shell(args[0].text, args[0].lit)
	}
}

func unwrapSu(u *unwrapper, ws []word) {
	for i := 1; i < len(ws); i++ {
		s := ws[i].text
		switch {
		case (s == "-c" || s == "--command" || s == "--session-command") && i+1 < len(ws):
			u.shell(ws[i+1].text, ws[i+1].lit)
			return
		case strings.HasPrefix(s, "--command="):
			u.shell(strings.TrimPrefix(s, "--command="), ws[i].lit)
			return
		case strings.HasPrefix(s, "-c") && len(s) > 2:
			u.shell(s[2:], ws[i].lit)
			return
		}
	}
}

func unwrapSudo(u *unwrapper, ws []word) {
	i, seen, ok := getopt(ws, 1, "AbEeHiKklnPSsVv", "ugCDhprtTUR", map[string]bool{
		"askpass": false, "background": false, "preserve-env": false, "edit": false, "set-home": false,
		"login": false, "remove-timestamp": false, "reset-timestamp": false, "list": false,
		"non-interactive": false, "preserve-groups": false, "stdin": false, "shell": false,
		"validate": false, "version": false, "user": true, "group": true, "close-from": true,
		"chdir": true, "host": true, "prompt": true, "role": true, "type": true, "command-timeout": true,
		"other-user": true, "chroot": true,
	})
	if !ok {
		u.guess(ws[i:])
		return
	}
	for ; i < len(ws) && ws[i].lit && strings.Contains(ws[i].text, "="); i++ {
		name, _, _ := strings.Cut(ws[i].text, "=")
		a := u.an.newPart(partAssign, []word{ws[i]})
		a.risk = varRisk(name)
		a.harmless = a.risk == ""
		u.p.inner = append(u.p.inner, a)
	}
	if strings.ContainsAny(seen, "si") && i < len(ws) {
		// -s and -i run the command through a shell.
		u.shell(joinWords(ws[i:]), false)
		return
	}
	u.run(ws[i:], false)
}

func unwrapChroot(u *unwrapper, ws []word) {
	i, _, ok := getopt(ws, 1, "", "", map[string]bool{"userspec": true, "groups": true, "skip-chdir": false})
	if !ok {
		u.guess(ws[i:])
		return
	}
	switch {
	case i < len(ws) && !ws[i].lit:
		u.guess(ws[i:]) // $x may split into more words
	case i+1 >= len(ws):
		// Runs the user's shell: not understood.
	default:
		u.run(ws[i+1:], false)
	}
}
