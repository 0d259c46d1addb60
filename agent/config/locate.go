package config

import (
	"strconv"
	"strings"
)

// The TOML decoder reports positions only for syntax errors. To name the
// line of a semantic error (an unknown provider kind, a missing key) we
// find it again in the source: a light scan of table headers and key lines,
// which is all a config file needs.

// locator answers "on which line is this key" for one file.
type locator struct {
	lines []line
	src   []string // the file's lines
}

type line struct {
	table string // dotted table name, "" for the root
	index int    // entry number for arrays of tables, else 0
	key   string // first key of a "key = value" line, else ""
	n     int    // 1-based line number
}

func newLocator(src string) *locator {
	l := &locator{src: strings.Split(src, "\n")}
	counts := map[string]int{}
	table, index := "", 0
	inMulti := "" // the delimiter of an open multi-line string
	for i, raw := range l.src {
		s := strings.TrimSpace(raw)
		if inMulti != "" {
			if strings.Count(s, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		switch {
		case s == "" || s[0] == '#':
			continue
		case strings.HasPrefix(s, "[["):
			name := headerName(s[2:], "]]")
			table, index = name, counts[name]
			counts[name]++
			l.lines = append(l.lines, line{table: table, index: index, n: i + 1})
			continue
		case s[0] == '[':
			table, index = headerName(s[1:], "]"), 0
			// A sub-table of an array entry belongs to the latest entry.
			if parent, _, ok := cutLast(table, "."); ok && counts[parent] > 0 {
				index = counts[parent] - 1
			}
			l.lines = append(l.lines, line{table: table, index: index, n: i + 1})
			continue
		}
		key, rest, ok := strings.Cut(s, "=")
		if !ok {
			continue
		}
		key = unquoteKey(strings.TrimSpace(key))
		l.lines = append(l.lines, line{table: table, index: index, key: key, n: i + 1})
		for _, delim := range []string{`"""`, `'''`} {
			if strings.Count(rest, delim)%2 == 1 {
				inMulti = delim
			}
		}
	}
	return l
}

func headerName(s, close string) string {
	if i := strings.Index(s, close); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = unquoteKey(strings.TrimSpace(p))
	}
	return strings.Join(parts, ".")
}

func unquoteKey(k string) string {
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') {
		if u, err := strconv.Unquote(`"` + k[1:len(k)-1] + `"`); err == nil {
			return u
		}
		return k[1 : len(k)-1]
	}
	return k
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// find returns the line of key in the index-th entry of table, or of the
// table's header when key is "" or absent; 0 when nothing matches.
func (l *locator) find(table string, index int, key string) int {
	header := 0
	for _, ln := range l.lines {
		if ln.table != table || ln.index != index {
			continue
		}
		if ln.key == "" && header == 0 {
			header = ln.n
		}
		if key != "" && ln.key == key {
			return ln.n
		}
	}
	// A dotted key such as agent.max_steps written at the root.
	if table != "" && key != "" {
		dotted := table + "." + key
		for _, ln := range l.lines {
			if ln.table == "" && ln.key == dotted {
				return ln.n
			}
		}
	}
	return header
}

// findItem returns the line of value in the array table.key, which may
// span lines; the line of the key when the value is not found as a
// string literal there, 0 when the key is not found either.
func (l *locator) findItem(table, key, value string) int {
	n := l.find(table, 0, key)
	if n == 0 {
		return 0
	}
	rest := strings.Join(l.src[n-1:], "\n")
	open := strings.Index(rest, "[")
	end := closingBracket(rest, open)
	if end < 0 {
		return n
	}
	for _, q := range []string{strconv.Quote(value), "'" + value + "'"} {
		if i := strings.Index(rest[open:end], q); i >= 0 {
			return n + strings.Count(rest[:open+i], "\n")
		}
	}
	return n
}
