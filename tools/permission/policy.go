package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Policy evaluates the static rules against a tool call. It is pure: no
// I/O and no state.
type Policy struct {
	// Mode is the fallback for tools that are not read-only.
	Mode             Decision
	Allow, Ask, Deny []Rule
	// Root is the workspace root; absolute paths inside it are matched
	// against path specifiers relative to it.
	Root string
}

// NewPolicy parses the [permissions] settings.
func NewPolicy(mode string, allow, ask, deny []string) (Policy, error) {
	var p Policy
	var err error
	p.Mode, err = ParseDecision(mode)
	parse := func(list []string) []Rule {
		var out []Rule
		for _, s := range list {
			r, perr := ParseRule(s)
			if perr != nil {
				err = errors.Join(err, perr)
				continue
			}
			out = append(out, r)
		}
		return out
	}
	p.Allow, p.Ask, p.Deny = parse(allow), parse(ask), parse(deny)
	return p, err
}

// Decide returns the decision for one call and the rule that made it (nil
// for the fallback). Precedence: deny, then ask, then allow, then the
// fallback, which allows read-only tools and applies Mode to the rest.
// Path rules are matched against the call's path arguments; Judge also
// takes the paths a file-changing call declares.
func (p Policy) Decide(tool string, readOnly bool, args json.RawMessage) (Decision, *Rule) {
	return p.Judge(Request{Tool: tool, ReadOnly: readOnly, Args: args})
}

// Judge returns the decision for a call, as Decide does. A call that
// declares the paths it touches (Request.Paths) has path rules matched
// against every one of those paths and not against its arguments: a deny
// or ask rule matches when it matches any of them, an allow rule only
// when it covers all of them. The deny and ask rules about reading are
// also matched against the paths the call reads (Request.Reads).
func (p Policy) Judge(r Request) (Decision, *Rule) {
	match := p.matcher(r)
	reads := make([]string, len(r.Reads))
	for i, s := range r.Reads {
		reads[i] = p.inRoot(s)
	}
	for i, rule := range p.Deny {
		if match(rule, true) || p.matchesRead(rule, reads) {
			return Deny, &p.Deny[i]
		}
	}
	if isShellTool(r.Tool) {
		// A program a deny rule names, where no rule can tell whether it
		// runs: only a person may allow it.
		if rule := p.suspect(r.Args); rule != nil {
			return Ask, rule
		}
	}
	for i, rule := range p.Ask {
		if match(rule, true) || p.matchesRead(rule, reads) {
			return Ask, &p.Ask[i]
		}
	}
	for i, rule := range p.Allow {
		if match(rule, false) {
			return Allow, &p.Allow[i]
		}
	}
	if r.ReadOnly {
		return Allow, nil
	}
	if isShellTool(r.Tool) {
		if cmd, ok := commandOf(r.Args); ok && analyzeCommand(cmd).err != nil {
			// What it would run is unknown: only a person may let it run,
			// whatever the mode or posture.
			if p.Mode == Deny {
				return Deny, nil
			}
			return Ask, &unparseable
		}
	}
	return p.Mode, nil
}

// matcher returns how rules are matched against r; deny selects the
// reading of deny and ask rules.
func (p Policy) matcher(r Request) func(rule Rule, deny bool) bool {
	if r.Paths == nil {
		args := p.relativize(r.Args)
		return func(rule Rule, deny bool) bool {
			if !isShellTool(r.Tool) && rule.HasSpec && isAbsPath(rule.Spec) {
				// The arguments are relativized: so is an absolute
				// path specifier, `Read(/work/proj/a/**)` being
				// `Read(a/**)` in the workspace /work/proj.
				rule.Spec = p.inRoot(rule.Spec)
			}
			return rule.matches(r.Tool, args, deny)
		}
	}
	paths := make([]string, len(r.Paths))
	for i, s := range r.Paths {
		paths[i] = p.inRoot(s)
	}
	return func(rule Rule, deny bool) bool { return rule.matchesChange(r.Tool, paths, p.inRoot, deny) }
}

// unparseable is the rule reported for a shell command that does not
// parse. It is never satisfied by a posture, a grant, or an unattended run.
var unparseable = Rule{Raw: "a shell command that does not parse", strict: true,
	why: "the command could not be parsed, so only a person may allow it"}

// relativize rewrites an absolute path argument inside the root to a
// relative one, so `Edit(docs/**)` covers /work/project/docs/a.md.
func (p Policy) relativize(args json.RawMessage) json.RawMessage {
	if p.Root == "" {
		return args
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return args
	}
	changed := false
	for _, k := range []string{"path", "file_path", "source", "destination"} {
		s, ok := m[k].(string)
		if !ok || !filepath.IsAbs(s) {
			continue
		}
		rel, err := filepath.Rel(p.Root, s)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		m[k] = filepath.ToSlash(rel)
		changed = true
	}
	if !changed {
		return args
	}
	b, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return b
}

// inRoot spells a path for matching: a relative one is taken from the
// root, `..` and `.` are resolved lexically, and a path inside the root is
// made relative to it (`/work/proj/docs/../a.md` is `a.md`). A path that
// leaves the root stays absolute, so relative patterns never match it.
func (p Policy) inRoot(s string) string {
	s = filepath.FromSlash(s)
	if p.Root == "" {
		return filepath.ToSlash(filepath.Clean(s))
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(p.Root, s)
	}
	s = filepath.Clean(s)
	rel, err := filepath.Rel(p.Root, s)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(s)
	}
	return filepath.ToSlash(rel)
}

// Scope is the rule a grant for this call would add: for a shell command
// its conservative command prefix (`Bash(go test:*)`), for a file tool the
// path (`Edit(src/a.go)`), otherwise the tool itself.
func Scope(tool string, args json.RawMessage) string {
	subj, ok := subject(args)
	switch {
	case isShellTool(tool) && ok:
		if prefix := commandPrefix(subj); prefix != "" {
			return fmt.Sprintf("Bash(%s:*)", prefix)
		}
		// Trim the blanks around the command, unless one is escaped
		// (`echo a\ `) and trimming would change the command.
		cmd := strings.Trim(subj, shellBlanks)
		if canonCommand(cmd) != canonCommand(subj) {
			cmd = subj
		}
		return "Bash(" + cmd + ")"
	case ok && FamilyOf(tool) == FamilyWrite:
		return "Edit(" + filepath.ToSlash(subj) + ")"
	}
	return tool
}

// commandPrefix returns the program and, when the second word looks like a
// subcommand, that too: "go test ./..." → "go test", "ls -la" → "ls". It
// reads the command as the Bash rules do (see analysis.prefix): a command
// with more than one simple command, substitutions, redirections to files
// or dangerous assignments has no safe prefix.
func commandPrefix(cmd string) string {
	return analyzeCommand(cmd).prefix()
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' && s[0] != '-' || r == '_') {
			return false
		}
	}
	return s != "" && s[0] != '-'
}
