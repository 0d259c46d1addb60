package tools

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Frontmatter splits Markdown that opens with a "---" line into the
// "key: value" lines of its frontmatter and the body after the closing
// "---"; text without one is all body. This is the YAML-ish header of
// Claude Code's command and skill files, read without a YAML parser:
// comments, blank lines and the indented or "- " lines of values that span
// lines (lists of allowed tools) are passed over; "|" and ">" values take
// their indented lines, joined; quoted scalars are unquoted. A byte order
// mark and CRLF line ends are accepted.
func Frontmatter(text string) (fields map[string]string, body string, err error) {
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return nil, text, nil
	}
	fields = map[string]string{}
	lines := strings.Split(rest, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t")
		n := i + 2 // the file's line number
		switch {
		case line == "---":
			return fields, strings.Join(lines[i+1:], "\n"), nil
		case strings.TrimSpace(line) == "", strings.HasPrefix(strings.TrimSpace(line), "#"),
			line[0] == ' ' || line[0] == '\t', strings.HasPrefix(line, "- "):
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, "", fmt.Errorf("line %d: %q is not a key: value line", n, line)
		}
		value = strings.TrimSpace(value)
		if value == "|" || value == ">" || value == "|-" || value == ">-" {
			var parts []string
			for i+1 < len(lines) && (strings.HasPrefix(lines[i+1], " ") || strings.HasPrefix(lines[i+1], "\t")) {
				i++
				parts = append(parts, strings.TrimSpace(lines[i]))
			}
			value = strings.Join(parts, " ")
		}
		fields[strings.TrimSpace(key)] = unquote(value)
	}
	return nil, "", errors.New("the frontmatter's opening --- has no closing ---")
}

// unquote removes the quotes around a YAML scalar.
func unquote(v string) string {
	if len(v) < 2 {
		return v
	}
	switch {
	case v[0] == '"' && v[len(v)-1] == '"':
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return v[1 : len(v)-1]
	case v[0] == '\'' && v[len(v)-1] == '\'':
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}
