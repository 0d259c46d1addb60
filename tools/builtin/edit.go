package builtin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode"

	"github.com/reasonix/reasonix/tools"
)

// checkedArgs are a tool's decoded arguments, which can say what is
// missing from them.
type checkedArgs interface {
	check() error
}

// decodeArgs decodes and checks a call's arguments. The file-changing
// tools read them with it both when they declare the paths they change
// and when they run, so the two agree. Errors are worded for the model.
func decodeArgs[T any, PT interface {
	*T
	checkedArgs
}](raw json.RawMessage) (T, error) {
	var args T
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return args, err
	}
	return args, PT(&args).check()
}

// An edit replaces exact text. These helpers are shared by edit_file and
// multi_edit.

type edit struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// loadForEdit reads a file to be edited. missing reports that it does not
// exist (the caller may create it); a failed Result explains anything else.
func loadForEdit(env *tools.Env, path string) (abs string, content string, missing bool, fail *tools.Result) {
	abs, err := env.WritePath(path)
	if err != nil {
		r := tools.Errorf("%v", err)
		return "", "", false, &r
	}
	data, err := env.ReadConfined(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return abs, "", true, nil
	}
	if err != nil {
		r := tools.Errorf("%s: %v", path, err)
		return "", "", false, &r
	}
	if tools.IsBinary(data) {
		r := tools.Errorf("%s is a binary file; it cannot be edited as text", path)
		return "", "", false, &r
	}
	return abs, string(data), false, nil
}

// applyEdit performs one replacement on content. The error is worded for
// the model: what did not match, and where something close is.
func applyEdit(content string, e edit, path string) (string, int, error) {
	if e.OldString == e.NewString {
		return "", 0, fmt.Errorf("old_string and new_string are identical; nothing would change")
	}
	if e.OldString == "" {
		return "", 0, fmt.Errorf("old_string is empty; give the exact text to replace (to create a file, use write_file)")
	}
	old, repl := e.OldString, e.NewString
	// Models write \n; match a CRLF file anyway and keep its endings.
	if strings.Contains(content, "\r\n") && !strings.Contains(old, "\r\n") {
		old = strings.ReplaceAll(old, "\n", "\r\n")
		repl = strings.ReplaceAll(repl, "\n", "\r\n")
	}
	n := strings.Count(content, old)
	switch {
	case n == 0:
		return "", 0, notMatched(content, e.OldString, path)
	case n > 1 && !e.ReplaceAll:
		return "", 0, fmt.Errorf("old_string occurs %d times in %s (at lines %s); include more surrounding lines to make it unique, or set replace_all to change every occurrence",
			n, path, matchLines(content, old, 5))
	}
	if e.ReplaceAll {
		return strings.ReplaceAll(content, old, repl), n, nil
	}
	return strings.Replace(content, old, repl, 1), 1, nil
}

// matchLines lists the 1-based lines where sub starts, at most max of them.
func matchLines(content, sub string, max int) string {
	var out []string
	off := 0
	for len(out) < max {
		i := strings.Index(content[off:], sub)
		if i < 0 {
			break
		}
		out = append(out, fmt.Sprint(1+strings.Count(content[:off+i], "\n")))
		off += i + len(sub)
	}
	if n := strings.Count(content, sub); n > len(out) {
		out = append(out, "…")
	}
	return strings.Join(out, ", ")
}

// notMatched explains a missing old_string, pointing at a near match when
// the text is there with different whitespace.
func notMatched(content, old, path string) error {
	base := fmt.Sprintf("old_string was not found in %s", path)
	if line := fuzzyLine(content, old); line > 0 {
		return fmt.Errorf("%s exactly, but it appears at line %d with different whitespace or indentation; read the file and copy the text exactly", base, line)
	}
	first := strings.TrimSpace(firstNonBlankLine(old))
	if first != "" {
		if i := strings.Index(content, first); i >= 0 {
			line := 1 + strings.Count(content[:i], "\n")
			return fmt.Errorf("%s; its first line appears at line %d but the lines after it differ. Read the file around that line and copy the text exactly", base, line)
		}
	}
	return fmt.Errorf("%s. Read the file again and copy the exact text to replace, including whitespace", base)
}

// fuzzyLine finds old in content comparing with all whitespace removed and
// returns the 1-based line where it starts, or 0.
func fuzzyLine(content, old string) int {
	squash := func(s string) (string, []int) {
		var b strings.Builder
		var pos []int
		for i, r := range s {
			if !unicode.IsSpace(r) {
				b.WriteRune(r)
				for range len(string(r)) {
					pos = append(pos, i)
				}
			}
		}
		return b.String(), pos
	}
	sc, pos := squash(content)
	so, _ := squash(old)
	if so == "" {
		return 0
	}
	i := strings.Index(sc, so)
	if i < 0 {
		return 0
	}
	return 1 + strings.Count(content[:pos[i]], "\n")
}

func firstNonBlankLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// snippet shows the lines around the first difference between before and
// after, numbered as in read_file, so the model sees its edit in place.
func snippet(before, after string) string {
	if before == after {
		return ""
	}
	al := strings.Split(after, "\n")
	bl := strings.Split(before, "\n")
	start := 0
	for start < len(al) && start < len(bl) && al[start] == bl[start] {
		start++
	}
	endA, endB := len(al)-1, len(bl)-1
	for endA > start && endB > start && al[endA] == bl[endB] {
		endA--
		endB--
	}
	from := max(0, start-3)
	to := min(len(al)-1, endA+3)
	const maxLines = 30
	var b strings.Builder
	width := len(fmt.Sprint(to + 1))
	for i := from; i <= to; i++ {
		if i-from == maxLines {
			fmt.Fprintf(&b, "%*s\t[… %d more changed lines]\n", width, "", to-i+1)
			break
		}
		fmt.Fprintf(&b, "%*d\t%s\n", width, i+1, strings.TrimSuffix(al[i], "\r"))
	}
	return b.String()
}

func lineCount(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := bytes.Count(b, []byte("\n"))
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// replaceWords renders one replacement for a person to approve.
func replaceWords(e edit) string {
	what := "Replace"
	if e.ReplaceAll {
		what = "Replace every occurrence of"
	}
	return fmt.Sprintf("%s:\n%s\nwith:\n%s\n", what, fence(e.OldString), fence(e.NewString))
}
