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
func (p Policy) Decide(tool string, readOnly bool, args json.RawMessage) (Decision, *Rule) {
	args = p.relativize(args)
	for i, r := range p.Deny {
		if r.matches(tool, args, true) {
			return Deny, &p.Deny[i]
		}
	}
	for i, r := range p.Ask {
		if r.matches(tool, args, true) {
			return Ask, &p.Ask[i]
		}
	}
	for i, r := range p.Allow {
		if r.matches(tool, args, false) {
			return Allow, &p.Allow[i]
		}
	}
	if readOnly {
		return Allow, nil
	}
	if tool == "bash" {
		if cmd, ok := commandOf(args); ok && analyzeCommand(cmd).err != nil {
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

// unparseable is the rule reported for a shell command that does not
// parse. It is never satisfied by a posture, a grant, or an unattended run.
var unparseable = Rule{Raw: "a shell command that does not parse", strict: true}

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

// Scope is the rule a grant for this call would add: for a shell command
// its conservative command prefix (`Bash(go test:*)`), for a file tool the
// path (`Edit(src/a.go)`), otherwise the tool itself.
func Scope(tool string, args json.RawMessage) string {
	subj, ok := subject(args)
	switch {
	case tool == "bash" && ok:
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
	case ok && isFileWriter(tool):
		return "Edit(" + filepath.ToSlash(subj) + ")"
	}
	return tool
}

func isFileWriter(tool string) bool {
	for _, t := range families["Edit"] {
		if t == tool {
			return true
		}
	}
	return false
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
