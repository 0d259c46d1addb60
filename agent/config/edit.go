package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// AppendRule adds rule to the [permissions] list (allow, ask or deny) of
// the TOML file at path, creating the file or the table if needed. The
// edit is textual, so the user's comments and layout survive; the result
// is parsed before it is written, and nothing is written if it would not
// load. A rule already present is not added twice.
func AppendRule(path, list, rule string) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	src := string(data)
	var cur struct {
		Permissions map[string]any `toml:"permissions"`
	}
	if _, err := toml.Decode(src, &cur); err != nil {
		return fmt.Errorf("%s does not parse, not editing it: %w", path, err)
	}
	if existing, ok := cur.Permissions[list].([]any); ok {
		for _, r := range existing {
			if r == rule {
				return nil
			}
		}
	}
	out, err := insertRule(src, list, rule)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := toml.Decode(out, &cur); err != nil {
		return fmt.Errorf("%s: the edited file would not parse (%v); add %s = [%q] under [permissions] by hand", path, err, list, rule)
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return os.WriteFile(path, []byte(out), mode)
}

func insertRule(src, list, rule string) (string, error) {
	quoted := strconv.Quote(rule)
	lines := strings.SplitAfter(src, "\n")
	header := -1
	for i, l := range lines {
		s := strings.TrimSpace(l)
		if header < 0 {
			if s == "[permissions]" || strings.HasPrefix(s, "[permissions]") && strings.HasPrefix(strings.TrimSpace(s[len("[permissions]"):]), "#") {
				header = i
			}
			continue
		}
		if strings.HasPrefix(s, "[") {
			break // the next table: the list is not there
		}
		key, _, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(key) != list {
			continue
		}
		// Found "list = [ ... ]", possibly spanning lines: insert before
		// the closing bracket.
		rest := strings.Join(lines[i:], "")
		open := strings.Index(rest, "[")
		closing := closingBracket(rest, open)
		if open < 0 || closing < 0 {
			return "", fmt.Errorf("cannot find the end of the %s list", list)
		}
		body := strings.TrimSpace(stripComments(rest[open+1 : closing]))
		sep := ", "
		if body == "" {
			sep = ""
		} else if strings.HasSuffix(body, ",") {
			sep = " "
		}
		insert := sep + quoted
		if strings.Contains(rest[open:closing], "\n") {
			// A multi-line list, perhaps with comments: the rule goes on
			// its own line right after the bracket, where a trailing
			// comma is always valid.
			return strings.Join(lines[:i], "") + rest[:open+1] + "\n  " + quoted + "," + rest[open+1:], nil
		}
		return strings.Join(lines[:i], "") + rest[:closing] + insert + rest[closing:], nil
	}
	if header < 0 {
		out := src
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if out != "" {
			out += "\n"
		}
		return out + "[permissions]\n" + list + " = [" + quoted + "]\n", nil
	}
	head := strings.Join(lines[:header+1], "")
	if !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	return head + list + " = [" + quoted + "]\n" + strings.Join(lines[header+1:], ""), nil
}

// closingBracket finds the bracket closing the array opened at open,
// skipping strings and comments.
func closingBracket(s string, open int) int {
	if open < 0 {
		return -1
	}
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
				if q == '"' && s[i] == '\\' {
					i++
				}
			}
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// stripComments drops # comments outside strings.
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			q := s[i]
			j := i + 1
			for ; j < len(s) && s[j] != q; j++ {
				if q == '"' && s[j] == '\\' {
					j++
				}
			}
			b.WriteString(s[i:min(j+1, len(s))])
			i = j
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// Expand replaces ${VAR} and ${VAR:-default} with environment values and
// a leading ~/ with the home directory.
func Expand(s string) string { return ExpandWith(s, os.LookupEnv) }

// ExpandWith is Expand with variables looked up by lookup.
func ExpandWith(s string, lookup func(string) (string, bool)) string {
	if strings.HasPrefix(s, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			s = home + s[1:]
		}
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		expr := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(expr, ":-")
		v, ok := lookup(name)
		if (!ok || v == "") && hasDef {
			v = def
		}
		b.WriteString(v)
		s = s[i+j+1:]
	}
}
