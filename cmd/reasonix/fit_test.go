package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTraceFitsTheWidth: with COLUMNS set, no row of the tables of
// trace, sessions and stats is wider, the columns that matter stay, and
// what is cut ends with ….
func TestTraceFitsTheWidth(t *testing.T) {
	home := fixtureHome(t)
	trace := []string{"trace", "--session", "20261120"}
	for _, c := range []struct {
		args  []string
		width int
		keep  []string // headers every width keeps
		cut   bool     // a title is cut with …
	}{
		{trace, 80, []string{"STEP", "KIND", "TITLE", "IN", "OUT", "CACHE", "COST", "LAT", "OUTCOME"}, true},
		{trace, 120, []string{"TIME", "STEP", "KIND", "TITLE", "IN", "OUT", "CACHE", "COST", "LAT", "TTFT", "OUTCOME"}, true},
		{[]string{"sessions"}, 60, []string{"ID", "UPDATED", "COST", "FIRST"}, false},
		{[]string{"stats", "--days", "0"}, 80, []string{"MODEL", "REQUESTS", "PROMPT", "CACHE", "OUTPUT", "COST"}, false},
		{[]string{"stats", "--days", "0"}, 80, []string{"DAY", "REQUESTS", "PROMPT", "CACHE", "OUTPUT", "COST"}, false},
	} {
		t.Run(c.args[0]+strconv.Itoa(c.width)+c.keep[0], func(t *testing.T) {
			r := runReasonix(t, t.TempDir(), home, []string{"TZ=UTC", "COLUMNS=" + strconv.Itoa(c.width)}, c.args...)
			if r.exit != exitOK || r.stderr != "" {
				t.Fatalf("exit %d\n%s", r.exit, r.stderr)
			}
			for _, line := range tableRows(r.stdout, c.keep[0]) {
				if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > c.width {
					t.Errorf("%d columns, over %d: %q", n, c.width, line)
				}
			}
			header := tableHeader(t, r.stdout, c.keep[0])
			for _, h := range c.keep {
				if !slices.Contains(header, h) {
					t.Errorf("header %q lacks %s", header, h)
				}
			}
			// The first prompts of sessions are short, but how long ago
			// they ran, and so what is left for them, varies.
			if c.cut && !strings.Contains(r.stdout, "…") {
				t.Errorf("no title cut with …:\n%s", r.stdout)
			}
		})
	}
}

// TestTraceNarrow: below the width of the columns never dropped, trace
// writes exactly those.
func TestTraceNarrow(t *testing.T) {
	r := runReasonix(t, t.TempDir(), fixtureHome(t), []string{"COLUMNS=30"}, "trace", "--session", "20261120")
	want := []string{"STEP", "KIND", "TITLE", "IN", "OUT", "CACHE", "COST", "LAT"}
	if got := tableHeader(t, r.stdout, "STEP"); !slices.Equal(got, want) {
		t.Errorf("header %q, want %q\n%s", got, want, r.stdout)
	}
	if !strings.Contains(r.stdout, "scripted/de… ") {
		t.Errorf("the title is not cut to 12 columns:\n%s", r.stdout)
	}
}

// tableRows is the lines of the table of out whose header starts with
// first, up to the first line after it that has no gap of two spaces
// between columns (a blank line, a note).
func tableRows(out, first string) []string {
	var rows []string
	for line := range strings.Lines(out) {
		switch {
		case strings.HasPrefix(line, first+" "):
			rows = append(rows, line)
		case len(rows) > 0 && !strings.Contains(line, "  "):
			return rows
		case len(rows) > 0:
			rows = append(rows, line)
		}
	}
	return rows
}

// tableHeader is the fields of the first line of out that starts with
// first.
func tableHeader(t *testing.T, out, first string) []string {
	t.Helper()
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, first+" ") {
			return strings.Fields(line)
		}
	}
	t.Fatalf("no header starting %s:\n%s", first, out)
	return nil
}

// TestTruncate: cuts count display columns, two for a wide character.
func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"read_file calc.go", 20, "read_file calc.go"},
		{"read_file calc.go", 10, "read_file…"},
		{"修复失败的测试", 14, "修复失败的测试"},
		{"修复失败的测试", 7, "修复失…"},
		{"修复失败的测试", 6, "修复…"},
		{"fix 测试", 6, "fix …"},
	} {
		got := truncate(c.in, c.width)
		if got != c.want || displayWidth(got) > c.width {
			t.Errorf("truncate(%q, %d) = %q (width %d), want %q", c.in, c.width, got, displayWidth(got), c.want)
		}
	}
}
