package walk

import (
	"fmt"
	"path"
	"strings"
)

// A Glob is a compiled file pattern, as models write them for find-like
// tools: '*' matches within one path component, '?' one character but
// '/', '[...]' a class ("[!...]" or "[^...]" negated), a whole "**"
// component any number of directories, '\' escapes, and "{a,b}" is an
// alternation (nesting allowed). An alternative without '/' matches the
// base name at any depth, like ripgrep's -g and .gitignore patterns:
// "*.go" is "**/*.go", while "./*.go" or "/*.go" match only at the top.
type Glob struct {
	alts []globAlt
}

type globAlt struct {
	text     string
	basename bool // no '/': match the last path component only
	// suffix is set when text is "*" and a literal: a name matches
	// when it ends in suffix. "*.go", the commonest glob by far, then
	// costs a comparison instead of a wildmatch.
	suffix    string
	hasSuffix bool
}

// maxGlobAlts bounds brace expansion, so "{a,b}{c,d}..." cannot explode.
const maxGlobAlts = 1024

// CompileGlob checks and compiles pattern.
func CompileGlob(pattern string) (*Glob, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty glob")
	}
	if err := checkClasses(pattern); err != nil {
		return nil, err
	}
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	g := &Glob{}
	for _, a := range alts {
		// A leading "./" or "/" anchors the pattern to the top, as in
		// .gitignore: "./*.go" matches only the top level.
		basename := !strings.Contains(a, "/")
		a = strings.TrimPrefix(strings.TrimPrefix(a, "./"), "/")
		if a == "" {
			return nil, fmt.Errorf("glob %q has an empty alternative", pattern)
		}
		// A leading "**/" matches any number of directories, none
		// included, so "**/x" without another '/' matches what x
		// matches as a base name.
		if rest, ok := strings.CutPrefix(a, "**/"); ok && rest != "" && !strings.Contains(rest, "/") {
			a, basename = rest, true
		}
		alt := globAlt{text: a, basename: basename}
		if rest, ok := strings.CutPrefix(a, "*"); ok && basename && !strings.ContainsAny(rest, "*?[\\{") {
			alt.suffix, alt.hasSuffix = rest, true
		}
		g.alts = append(g.alts, alt)
	}
	return g, nil
}

// Match reports whether rel, a slash-separated relative path, matches.
func (g *Glob) Match(rel string) bool {
	name := rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		name = rel[i+1:]
	}
	for _, a := range g.alts {
		subject := rel
		if a.basename {
			subject = name
		}
		if a.hasSuffix {
			// '*' matches any run of characters but '/', the empty
			// one included; a base name holds no '/'.
			if strings.HasSuffix(name, a.suffix) {
				return true
			}
			continue
		}
		if wildmatch(a.text, subject) {
			return true
		}
	}
	return false
}

// Base returns the longest directory, slash-separated and relative, that
// holds every match: "src/app" for "src/app/**/*.ts". Walking from there
// instead of from the top finds the same files sooner. It is "" when the
// pattern can match anywhere.
func (g *Glob) Base() string {
	base := ""
	for i, a := range g.alts {
		if a.basename {
			return ""
		}
		d := literalDir(a.text)
		if i == 0 {
			base = d
			continue
		}
		for base != "" && d != base && !strings.HasPrefix(d, base+"/") {
			base = path.Dir(base)
			if base == "." {
				base = ""
			}
		}
	}
	return base
}

// literalDir returns the leading directories of a pattern that contain no
// special character.
func literalDir(p string) string {
	end := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', '\\', '{':
			return p[:end]
		case '/':
			end = i
		}
	}
	return p[:end]
}

// checkClasses reports a '[' without its ']', which wildmatch would
// silently treat as matching nothing.
func checkClasses(p string) error {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++ // a leading ']' is a member
			}
			for j < len(p) && p[j] != ']' {
				if p[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(p) {
				return fmt.Errorf("unclosed '[' in glob %q", p)
			}
			i = j
		}
	}
	return nil
}

// expandBraces turns "a{b,c{d,e}}f" into [abf acdf acef]. An escaped
// brace or comma is left alone.
func expandBraces(p string) ([]string, error) {
	open := -1
	depth := 0
	var commas []int
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
				commas = commas[:0]
			}
			depth++
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		case '}':
			if depth == 0 {
				return nil, fmt.Errorf("unmatched '}' in glob %q", p)
			}
			depth--
			if depth > 0 {
				continue
			}
			prefix, suffix := p[:open], p[i+1:]
			var parts []string
			start := open + 1
			for _, c := range commas {
				parts = append(parts, p[start:c])
				start = c + 1
			}
			parts = append(parts, p[start:i])
			rest, err := expandBraces(suffix)
			if err != nil {
				return nil, err
			}
			var out []string
			for _, part := range parts {
				inner, err := expandBraces(part)
				if err != nil {
					return nil, err
				}
				for _, in := range inner {
					for _, r := range rest {
						out = append(out, prefix+in+r)
						if len(out) > maxGlobAlts {
							return nil, fmt.Errorf("glob %q expands to more than %d alternatives", p, maxGlobAlts)
						}
					}
				}
			}
			return out, nil
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("unclosed '{' in glob %q", p)
	}
	return []string{p}, nil
}
