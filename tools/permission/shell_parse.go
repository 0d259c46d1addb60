package permission

import (
	"errors"
	"path"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// This file parses a command line and walks its syntax tree: every
// statement, redirection, assignment, declaration, test and arithmetic
// expression becomes parts of the analysis. A line that does not parse
// gets a best-effort reading (looseParts) that only deny rules use.

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
