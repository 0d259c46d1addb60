package permission

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file does what the shell does to a word before a command sees it,
// as far as the rules need: quote removal and escapes (including $'…'),
// and a walk of the expansions in it (parameter, command and process
// substitution, arithmetic), which may run commands of their own. A word
// with any expansion left is not literal, and rules treat it as unknown.

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

func isName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
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

func joinWords(ws []word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.text
	}
	return strings.Join(s, " ")
}
