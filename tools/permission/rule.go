// Package permission decides, per tool call, whether it may run: allowed,
// denied, or asked of the user. A Policy holds the static rules from the
// config; a Checker adds the interactive part (an Approver) and the grants
// a user gives during a session.
package permission

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Decision is the outcome of a permission check.
type Decision int

const (
	Allow Decision = iota
	Ask
	Deny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// ParseDecision reads a [permissions] mode.
func ParseDecision(s string) (Decision, error) {
	switch s {
	case "", "ask":
		return Ask, nil
	case "allow":
		return Allow, nil
	case "deny":
		return Deny, nil
	}
	return Ask, fmt.Errorf("permission mode must be ask, allow or deny, not %q", s)
}

// Rule is one allow, ask or deny entry: `Tool`, `Tool(specifier)`, or the
// legacy `tool=literal`.
type Rule struct {
	// Raw is the rule as written.
	Raw string
	// Tool is the family or tool name.
	Tool string
	// Spec is the specifier; HasSpec tells an empty one from none.
	Spec    string
	HasSpec bool
	// strict marks the internal rules that only a person's answer
	// satisfies; why says what a person must decide.
	strict bool
	why    string
}

// ParseRule parses one rule.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	r := Rule{Raw: s}
	switch {
	case s == "":
		return r, fmt.Errorf("empty permission rule")
	case strings.HasSuffix(s, ")"):
		name, spec, ok := strings.Cut(s, "(")
		if !ok {
			return r, fmt.Errorf("permission rule %q: unbalanced parenthesis", s)
		}
		r.Tool, r.Spec, r.HasSpec = strings.TrimSpace(name), spec[:len(spec)-1], true
	case strings.Contains(s, "="):
		name, spec, _ := strings.Cut(s, "=")
		r.Tool, r.Spec, r.HasSpec = strings.TrimSpace(name), strings.TrimSpace(spec), true
	default:
		r.Tool = s
	}
	if r.Tool == "" || strings.ContainsAny(r.Tool, " ()") {
		return r, fmt.Errorf("permission rule %q: bad tool name", s)
	}
	return r, nil
}

// covers reports whether the rule's tool part names tool, or a
// capitalised name of its family (family.go).
func (r Rule) covers(tool string) bool {
	if r.Tool == tool || slices.Contains(familyRules[FamilyOf(tool)], r.Tool) {
		return true
	}
	// "mcp__server" covers every tool of that server.
	return strings.HasPrefix(r.Tool, "mcp__") && strings.HasPrefix(tool, r.Tool+"__")
}

// subject extracts what a specifier is matched against from a call's
// arguments, by the keys built-in and MCP tools commonly use.
func subject(args json.RawMessage) (string, bool) {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return "", false
	}
	for _, k := range []string{"command", "path", "file_path", "source", "destination", "pattern"} {
		if s, ok := m[k].(string); ok {
			return s, true
		}
	}
	return "", false
}

// pathSubjects extracts every path a call names: a move names two, and
// both must be judged (`move_file docs/a → .git/hooks/x`). Without a path
// the pattern is the subject.
func pathSubjects(args json.RawMessage) []string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"path", "file_path", "source", "destination"} {
		if s, ok := m[k].(string); ok {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		if s, ok := m["pattern"].(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// matches reports whether the rule covers a call. deny selects the
// stricter reading used for deny and ask rules: a shell command matches
// when any part of it does and a call with several paths when any path
// does, while an allow rule must cover every part and every path.
func (r Rule) matches(tool string, args json.RawMessage, deny bool) bool {
	if !r.covers(tool) {
		return false
	}
	if isShellTool(tool) {
		cmd, ok := commandOf(args)
		if !r.HasSpec || r.Spec == "*" {
			// Even a rule for every command does not allow one that does
			// not parse: what it would run is unknown.
			return deny || !ok || analyzeCommand(cmd).err == nil
		}
		return ok && matchCommand(r.Spec, cmd, deny)
	}
	if !r.HasSpec || r.Spec == "*" {
		return true
	}
	return matchPaths(r.Spec, pathSubjects(args), deny)
}

// matchesChange reports whether the rule covers a call that declared the
// paths it touches, spelt by inRoot. Edit and Write rules cover every
// such call, whatever its tool, since what they guard is the files; an
// absolute specifier is spelt like the paths, so `Edit(/work/proj/a/**)`
// is `Edit(a/**)` in the workspace /work/proj.
func (r Rule) matchesChange(tool string, paths []string, inRoot func(string) string, deny bool) bool {
	if !r.covers(tool) && r.Tool != "Edit" && r.Tool != "Write" {
		return false
	}
	if !r.HasSpec || r.Spec == "*" {
		return true
	}
	spec := r.Spec
	if isAbsPath(spec) {
		spec = inRoot(spec)
	}
	return matchPaths(spec, paths, deny)
}

// matchPaths matches a path specifier against the paths of a call: for a
// deny reading any path matching is enough, otherwise every path must be
// covered. A call without paths matches nothing.
func matchPaths(spec string, paths []string, deny bool) bool {
	if len(paths) == 0 {
		return false
	}
	for _, s := range paths {
		if m := matchPath(spec, s, deny); m == deny {
			return m
		}
	}
	return !deny
}

func commandOf(args json.RawMessage) (string, bool) {
	var m struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(args, &m) != nil || m.Command == nil {
		return "", false
	}
	return *m.Command, true
}

// matchCommand matches a Bash specifier against the parsed command. A
// deny (or ask) rule matches when any part matches, the program also
// compared by base name and case-folded (/bin/RM is rm on a
// case-insensitive file system). An allow rule matches when every part is
// covered: by the specifier, as a harmless builtin, assignment or
// redirection, or as a transparent wrapper whose inner command is
// covered. A command that does not parse, or whose expansions could run
// hidden code, is never allowed by a specifier, except one naming that
// exact command (a grant of it).
func matchCommand(spec, cmd string, deny bool) bool {
	a := analyzeCommand(cmd)
	s := parseBashSpec(spec)
	if s.canon != "" && s.canon == a.canon {
		return true
	}
	if deny {
		return !a.walk(func(p *part) bool { return !s.matchesPart(p) })
	}
	if a.err != nil || len(a.hazards) > 0 {
		return false
	}
	for _, p := range a.parts {
		if !s.coversPart(p) {
			return false
		}
	}
	return true
}

// shellBlanks are the characters the shell separates words with; others,
// such as \v or a no-break space, are part of a word.
const shellBlanks = " \t\n"

// A bashSpec is a parsed Bash specifier: `prefix:*` (or the legacy
// `prefix *`) matches argv starting with the prefix's words, a `*`
// elsewhere is a wildcard over the argv joined by spaces, and anything
// else must equal the argv.
type bashSpec struct {
	prefix  []string // for prefix specifiers
	exact   []string // for exact ones
	pattern string   // for wildcards
	kind    int
	// canon is the specifier printed as a parsed command line, so a grant
	// of an exact compound command covers that command again.
	canon string
}

const (
	specExact = iota
	specPrefix
	specWildcard
)

func parseBashSpec(spec string) bashSpec {
	// Every form also covers the exact command it spells, so a grant of a
	// command that happens to end in " *" still covers that command.
	s := bashSpec{canon: canonCommand(spec)}
	spec = strings.Trim(spec, shellBlanks)
	if p, ok := strings.CutSuffix(spec, ":*"); ok {
		s.kind, s.prefix = specPrefix, specWords(p)
		return s
	}
	if p, ok := strings.CutSuffix(spec, " *"); ok && !strings.Contains(p, "*") {
		s.kind, s.prefix = specPrefix, specWords(p)
		return s
	}
	if strings.Contains(spec, "*") {
		s.kind, s.pattern = specWildcard, strings.Join(strings.Fields(spec), " ")
	} else {
		s.exact = specWords(spec)
	}
	return s
}

// specWords splits a specifier into words as the shell would, so
// `Bash(git commit -m "a b")` has four; what does not parse as one plain
// command is split at spaces.
func specWords(spec string) []string {
	stmts, err := parseStmts(spec, syntax.LangBash)
	if err == nil && len(stmts) == 1 && len(stmts[0].Redirs) == 0 {
		if call, ok := stmts[0].Cmd.(*syntax.CallExpr); ok && len(call.Assigns) == 0 {
			w := &walker{an: &analyzer{}}
			words := make([]string, 0, len(call.Args))
			for _, a := range call.Args {
				wd := w.word(a, false)
				if !wd.lit {
					return strings.Fields(spec)
				}
				words = append(words, wd.text)
			}
			return words
		}
	}
	return strings.Fields(spec)
}

// canonCommand prints a command line canonically, or "" if it does not
// parse.
func canonCommand(cmd string) string {
	if len(cmd) > maxCommandBytes {
		return ""
	}
	stmts, err := parseStmts(cmd, syntax.LangBash)
	if err != nil || len(stmts) == 0 {
		return ""
	}
	return printStmts(stmts)
}

// matchWords matches the words of a call. For an allow rule the words the
// specifier names must be literal, and an exact or wildcard specifier
// needs every word literal; a prefix one lets later words be anything.
func (s bashSpec) matchWords(p *part, allow bool) bool {
	argv := p.argv()
	lit := p.literalPrefix()
	switch s.kind {
	case specPrefix:
		if len(argv) < len(s.prefix) || allow && lit < len(s.prefix) {
			return false
		}
		return slices.Equal(argv[:len(s.prefix)], s.prefix)
	case specWildcard:
		if allow && (lit < len(argv) || p.moreArgs) {
			return false
		}
		return wildcard(s.pattern, strings.Join(argv, " "))
	}
	if allow && (lit < len(argv) || p.moreArgs) {
		return false
	}
	return slices.Equal(argv, s.exact)
}

// matchesPart is the deny reading of one part: the words as written, the
// program by its base name and case folded, and the command with the
// program's global options left out (`git -C . push` is `git push`).
func (s bashSpec) matchesPart(p *part) bool {
	if p.kind == partRedirect || len(p.words) == 0 {
		return false
	}
	if s.matchWords(p, false) {
		return true
	}
	if p.kind != partCall {
		return false
	}
	for _, argv := range callSpellings(p.words) {
		if s.matchWords(&part{kind: p.kind, words: argv, moreArgs: p.moreArgs}, false) {
			return true
		}
	}
	// rm${IFS}-rf${IFS}x is split at run time.
	if joined := strings.Join(p.argv(), " "); strings.Contains(joined, "IFS") {
		var q part
		for _, f := range strings.Fields(ifsSplitter.Replace(joined)) {
			q.words = append(q.words, word{text: f})
		}
		return len(q.words) > 0 && q.words[0].text != p.words[0].text && s.matchesPart(&q)
	}
	return false
}

// callSpellings returns the other ways a deny rule may name a call: its
// program by base name, case folded and without ".exe", and each reading
// of the command without its global options.
func callSpellings(ws []word) [][]word {
	prog := ws[0].text
	base := path.Base(prog)
	lower := strings.ToLower(base)
	var out [][]word
	seen := map[string]bool{prog: true}
	for _, alt := range []string{base, lower, strings.TrimSuffix(lower, ".exe")} {
		if !seen[alt] {
			seen[alt] = true
			out = append(out, append([]word{{text: alt, lit: ws[0].lit}}, ws[1:]...))
		}
	}
	for _, r := range globalReadings(ws) {
		if r.sub == 1 {
			continue // nothing left out
		}
		for _, name := range []string{prog, programKey(prog)} {
			out = append(out, append([]word{{text: name, lit: ws[0].lit}}, r.argv[1:]...))
		}
	}
	return out
}

var ifsSplitter = strings.NewReplacer("${IFS}", " ", "$IFS", " ")

// coversPart is the allow reading of one part.
func (s bashSpec) coversPart(p *part) bool {
	switch {
	case p.harmless:
		return true
	case p.kind != partCall:
		return false
	case s.matchWords(p, true):
		// A wrapper the rule names covers what it runs.
		return true
	case p.wrap == transparent && p.understood && len(p.inner) > 0:
		for _, in := range p.inner {
			if !s.coversPart(in) {
				return false
			}
		}
		return true
	}
	return false
}

// wildcard matches s against a pattern where * is any run of characters.
func wildcard(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return s == ""
}

// matchPath matches a path specifier, a glob where ** spans directories
// and a pattern without a slash matches the base name anywhere. The path
// is cleaned first, and a relative one that leaves the root (`../x`)
// never matches a relative pattern, nor an absolute path (one outside the
// root, as Policy.relativize made those inside it relative) a relative
// pattern; an absolute pattern matches absolute paths. Matching is
// case-sensitive, except that deny reads it case-insensitively, as a
// case-insensitive file system would (`.GIT/config` is .git/config on
// macOS), and lets a base-name pattern match any path.
func matchPath(spec, p string, deny bool) bool {
	p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
	spec = path.Clean(strings.ReplaceAll(spec, "\\", "/"))
	if deny {
		p, spec = strings.ToLower(p), strings.ToLower(spec)
	}
	abs, specAbs := isAbsPath(p), isAbsPath(spec)
	outside := !abs && (p == ".." || strings.HasPrefix(p, "../"))
	if !strings.Contains(spec, "/") {
		if !deny && (abs || outside) {
			return false
		}
		ok, _ := path.Match(spec, path.Base(p))
		return ok || spec == p
	}
	if abs != specAbs || outside {
		return false
	}
	return globMatch(strings.Split(spec, "/"), strings.Split(p, "/"))
}

func isAbsPath(p string) bool {
	return strings.HasPrefix(p, "/") || len(p) >= 3 && p[1] == ':' && p[2] == '/'
}

func globMatch(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if globMatch(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
