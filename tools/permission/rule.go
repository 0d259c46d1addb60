// Package permission decides, per tool call, whether it may run: allowed,
// denied, or asked of the user. A Policy holds the static rules from the
// config; a Checker adds the interactive part (an Approver) and the grants
// a user gives during a session.
package permission

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
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

// families maps the capitalised rule names to the tools they cover.
var families = map[string][]string{
	"Bash":  {"bash"},
	"Edit":  {"write_file", "edit_file", "multi_edit", "move_file", "apply_patch"},
	"Write": {"write_file", "edit_file", "multi_edit", "move_file", "apply_patch"},
	"Read":  {"read_file", "ls", "glob", "grep"},
	"Grep":  {"grep"},
	"Glob":  {"glob"},
	"LS":    {"ls"},
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

// covers reports whether the rule's tool part names tool.
func (r Rule) covers(tool string) bool {
	if r.Tool == tool {
		return true
	}
	if fam, ok := families[r.Tool]; ok {
		for _, t := range fam {
			if t == tool {
				return true
			}
		}
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

// matches reports whether the rule covers a call. deny selects the
// stricter reading for shell commands: a deny rule matches any part of a
// compound command, while an allow rule must cover it whole.
func (r Rule) matches(tool string, args json.RawMessage, deny bool) bool {
	if !r.covers(tool) {
		return false
	}
	if !r.HasSpec || r.Spec == "*" {
		return true
	}
	subj, ok := subject(args)
	if !ok {
		return false
	}
	if tool == "bash" {
		return matchCommand(r.Spec, subj, deny)
	}
	return matchPath(r.Spec, subj)
}

// shellOperators are the characters that let one command line run more
// than one command, redirect to files, or substitute output.
const shellOperators = ";&|<>`$()\n"

// matchCommand matches a Bash specifier. "prefix:*" covers commands that
// start with prefix as whole words; "*" elsewhere is a wildcard; anything
// else must equal the command. An allow rule never covers a command that
// contains shell operators, since the operators could chain anything. A
// deny rule is checked against the whole command and each part of it.
func matchCommand(spec, cmd string, deny bool) bool {
	cmd = strings.TrimSpace(cmd)
	if !deny {
		if strings.ContainsAny(cmd, shellOperators) {
			return false
		}
		return matchOneCommand(spec, cmd)
	}
	if matchOneCommand(spec, cmd) {
		return true
	}
	for _, part := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(shellOperators, r) }) {
		if matchOneCommand(spec, strings.TrimSpace(part)) {
			return true
		}
	}
	return false
}

func matchOneCommand(spec, cmd string) bool {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		prefix = strings.Join(strings.Fields(prefix), " ")
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	}
	if strings.Contains(spec, "*") {
		return wildcard(strings.Join(strings.Fields(spec), " "), cmd)
	}
	return cmd == strings.Join(strings.Fields(spec), " ")
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

// matchPath matches a path specifier, a glob where ** spans directories.
// Both sides are compared slash-separated; a pattern without a slash
// matches the base name anywhere.
func matchPath(spec, p string) bool {
	p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
	p = strings.TrimPrefix(p, "./")
	spec = strings.TrimPrefix(spec, "./")
	if !strings.Contains(spec, "/") {
		ok, _ := path.Match(spec, path.Base(p))
		return ok || spec == p
	}
	return globMatch(strings.Split(spec, "/"), strings.Split(p, "/"))
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
