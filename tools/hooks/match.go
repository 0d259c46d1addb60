package hooks

import (
	"regexp"
	"strings"
)

// claudeNames maps Reasonix's tool names to Claude Code's names for the
// same tools, so that a matcher written for Claude Code ("Bash",
// "Edit|Write") selects Reasonix's calls. Tools with no equivalent are
// matched by their own name only.
var claudeNames = map[string]string{
	"bash":       "Bash",
	"read_file":  "Read",
	"write_file": "Write",
	"edit_file":  "Edit",
	"multi_edit": "MultiEdit",
	"glob":       "Glob",
	"grep":       "Grep",
	"ls":         "LS",
	"task":       "Task",
}

// ClaudeName is Claude Code's name for the Reasonix tool name, or name
// itself when Claude Code has no such tool.
func ClaudeName(name string) string {
	if n, ok := claudeNames[name]; ok {
		return n
	}
	return name
}

// A matcher selects names. As in Claude Code: empty or "*" selects all;
// a value of only letters, digits, '_' and '|' is a list of exact names;
// anything else is a regular expression that selects a name it matches
// anywhere.
type matcher struct {
	all   bool
	exact []string
	re    *regexp.Regexp
}

func compile(pattern string) (matcher, error) {
	switch {
	case pattern == "" || pattern == "*":
		return matcher{all: true}, nil
	case strings.Trim(pattern, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_|") == "":
		return matcher{exact: strings.Split(pattern, "|")}, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return matcher{}, err
	}
	return matcher{re: re}, nil
}

func (m matcher) match(name string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(name)
	}
	for _, e := range m.exact {
		if e == name {
			return true
		}
	}
	return false
}

// Match reports whether pattern selects the tool name: Reasonix's name
// or Claude Code's for the same tool. An invalid pattern selects
// nothing (Flatten leaves such hooks out).
func Match(pattern, name string) bool {
	m, err := compile(pattern)
	if err != nil {
		return false
	}
	return m.match(name) || m.match(ClaudeName(name))
}
