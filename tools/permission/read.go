package permission

import (
	"path"
	"path/filepath"
	"strings"
)

// Rules about reading. A deny or ask rule of the Read family that names
// paths (`Read(private/**)`, `read_file(*.pem)`) says which files the
// model may not read, or may read only when a person agrees. The read
// tools' own calls are judged by their arguments like any call; but a
// file's text also reaches the model by other ways: a search over a
// directory above it, a listing, a move to a name no rule covers, the
// snippet an edit echoes, a shell command that prints it. So the same
// rules are also:
//
//   - matched against the paths a call declares it reads
//     (Request.Reads), whatever its tool — the source of a move, the file
//     an edit matches its old text against, the files a shell command
//     names — in deny and ask readings only: a Read allow rule does not
//     let anything else run;
//   - offered to every walk and listing, one path at a time, as
//     ReadRules, so that what a rule covers is left out of their results.
//
// A Read rule without a path (`Read`, `Read(*)`) is about the read tools
// themselves, and is not one of these: it would cover every word of every
// shell command, and every move.

// isReadRule reports whether r is a rule about reading paths.
func isReadRule(r Rule) bool {
	return r.coversFamily(FamilyRead) && r.HasSpec && r.Spec != "*" && strings.TrimSpace(r.Spec) != ""
}

// matchesRead reports whether r, a deny or ask rule, covers reading one
// of paths, spelt by inRoot.
func (p Policy) matchesRead(r Rule, paths []string) bool {
	return len(paths) > 0 && isReadRule(r) && compileReadRule(&r, p.Root).matchesAny(paths)
}

// ReadRules answers, one path at a time, which deny or ask rule about
// reading covers a path. It is built once per session (Policy.ReadRules)
// and is safe for concurrent use; a walk asks about each entry, so
// matching a path allocates nothing for a path in lower case.
type ReadRules struct {
	// roots are the workspace root and, when it differs, its real path,
	// each ending in a separator: a path below either is matched
	// relative to the root.
	roots     []string
	deny, ask []readRule
}

// A readRule is one rule about reading, its specifier split and lowered
// as the deny reading of matchPath compares it.
type readRule struct {
	rule *Rule
	// base is the specifier of a rule without a slash, matched against a
	// path's base name (or the whole path); segs is that of any other.
	base segment
	segs []segment
	abs  bool
}

// A segment is one slash-separated part of a specifier: a pattern of
// path.Match, or a literal name compared as it is, which is faster.
type segment struct {
	pat string
	lit bool
}

func newSegment(pat string) segment {
	return segment{pat: pat, lit: !strings.ContainsAny(pat, `*?[\`)}
}

func (s segment) match(name string) bool {
	if s.lit {
		return s.pat == name
	}
	ok, _ := path.Match(s.pat, name)
	return ok
}

// compileReadRule compiles r, an absolute specifier made relative to the
// first of roots that holds it.
func compileReadRule(r *Rule, roots ...string) readRule {
	spec := r.Spec
	for _, root := range roots {
		if isAbsPath(spec) && root != "" {
			spec = Policy{Root: root}.inRoot(spec)
		}
	}
	spec = strings.ToLower(path.Clean(strings.ReplaceAll(spec, "\\", "/")))
	rr := readRule{rule: r, abs: isAbsPath(spec)}
	if strings.Contains(spec, "/") {
		for _, s := range strings.Split(spec, "/") {
			rr.segs = append(rr.segs, newSegment(s))
		}
	} else {
		rr.base = newSegment(spec)
	}
	return rr
}

// matchesAny reports whether the rule covers any of paths, each spelt as
// Policy.inRoot spells it.
func (rr readRule) matchesAny(paths []string) bool {
	for _, p := range paths {
		p = strings.ToLower(path.Clean(strings.ReplaceAll(p, "\\", "/")))
		if rr.match(p) {
			return true
		}
	}
	return false
}

// match is matchPath's deny reading of the rule against p, a clean,
// slash-separated, lower-case path relative to the root (or absolute
// outside it).
func (rr readRule) match(p string) bool {
	abs := isAbsPath(p)
	if rr.segs == nil {
		base := p
		if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
			base = p[i+1:]
		}
		return rr.base.match(base) || rr.base.pat == p
	}
	if abs != rr.abs || !abs && (p == ".." || strings.HasPrefix(p, "../")) {
		return false
	}
	return globMatchPath(rr.segs, p, false)
}

// globMatchPath is globMatch over the slash-separated segments of p,
// without splitting it; end marks that no segment is left.
func globMatchPath(pat []segment, p string, end bool) bool {
	for len(pat) > 0 {
		if pat[0].pat == "**" {
			for {
				if globMatchPath(pat[1:], p, end) {
					return true
				}
				if end {
					return false
				}
				i := strings.IndexByte(p, '/')
				if i < 0 {
					p, end = "", true
				} else {
					p = p[i+1:]
				}
			}
		}
		if end {
			return false
		}
		seg, rest, more := strings.Cut(p, "/")
		if !pat[0].match(seg) {
			return false
		}
		pat, p, end = pat[1:], rest, !more
	}
	return end
}

// ReadRules returns the policy's deny and ask rules about reading,
// compiled for matching one path at a time; nil when there are none.
// Grants only add allow rules, which these never consult, so the answer
// holds for the whole session.
func (p Policy) ReadRules() *ReadRules {
	rs := &ReadRules{}
	var roots []string
	if p.Root != "" {
		root := filepath.Clean(p.Root)
		roots = append(roots, root)
		if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
			roots = append(roots, real)
		}
	}
	for _, r := range roots {
		rs.roots = append(rs.roots, withSep(r))
	}
	for i := range p.Deny {
		if isReadRule(p.Deny[i]) {
			rs.deny = append(rs.deny, compileReadRule(&p.Deny[i], roots...))
		}
	}
	for i := range p.Ask {
		if isReadRule(p.Ask[i]) {
			rs.ask = append(rs.ask, compileReadRule(&p.Ask[i], roots...))
		}
	}
	if len(rs.deny)+len(rs.ask) == 0 {
		return nil
	}
	return rs
}

// ReadRules returns the rules about reading as the checker applies them:
// in the yolo posture, which answers every question, the ask rules do
// not hold a read back.
func (c *Checker) ReadRules() *ReadRules {
	c.mu.Lock()
	rs := c.Policy.ReadRules()
	c.mu.Unlock()
	if rs != nil && c.Posture == PostureYolo {
		rs.ask = nil
		if len(rs.deny) == 0 {
			return nil
		}
	}
	return rs
}

func withSep(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir
	}
	return dir + string(filepath.Separator)
}

// Judge returns Deny or Ask and the rule that decides for reading p (an
// absolute path, or one relative to the root), deny rules first; Allow
// and nil when no rule covers it.
func (rs *ReadRules) Judge(p string) (Decision, *Rule) {
	if rs == nil {
		return Allow, nil
	}
	p = rs.spell(p)
	for _, r := range rs.deny {
		if r.match(p) {
			return Deny, r.rule
		}
	}
	for _, r := range rs.ask {
		if r.match(p) {
			return Ask, r.rule
		}
	}
	return Allow, nil
}

// ReadRule is Judge in the words of tools.ReadRules: the rule, as
// written, that denies (deny set) or asks about reading p; "" for none.
func (rs *ReadRules) ReadRule(p string) (rule string, deny bool) {
	d, r := rs.Judge(p)
	if r == nil {
		return "", false
	}
	return r.Raw, d == Deny
}

// spell spells p as the rules are matched: relative to the root when
// below it, clean, slash-separated and in lower case.
func (rs *ReadRules) spell(p string) string {
	if filepath.IsAbs(p) {
		for _, root := range rs.roots {
			if rel, ok := strings.CutPrefix(p, root); ok {
				p = rel
				break
			}
			if p == root[:len(root)-1] {
				p = "."
				break
			}
		}
	}
	if filepath.Separator != '/' {
		p = filepath.ToSlash(p)
	}
	// Clean and ToLower return a path already clean and in lower case
	// as it is, without allocating.
	return strings.ToLower(path.Clean(p))
}
