package builtin

// This file reads unified diffs, as `diff -u` and `git diff` print them, and
// applies their hunks to file contents in memory. The apply_patch tool
// (apply_patch.go) adds the workspace: paths, the sandbox, and the FS.
//
// A patch is a sequence of file sections. A section starts with a
// `diff --git` line and git's extended headers, or with a `--- old` line
// followed by `+++ new`; it holds hunks, each an `@@ -l,s +l,s @@` line and
// a body of context (' '), removed ('-') and added ('+') lines. Text that
// is not part of a section (a commit message, a diffstat, prose) is
// ignored.
//
// The parser is tolerant where model output tends to be sloppy: hunk counts
// are checked against the body and recounted when they disagree, a blank
// line in a body is a blank context line, and a/ and b/ prefixes are
// optional. It is strict where a guess could silently drop a change: a line
// inside a hunk that has no valid prefix is an error, not the end of the
// patch.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// A filePatch is one file's section of a patch.
type filePatch struct {
	// oldName and newName are the paths of the --- and +++ lines (or of
	// git's headers) with an a/ or b/ prefix removed; a side that is
	// /dev/null is "".
	oldName, newName string
	// create and delete are set by /dev/null (or an epoch timestamp, as
	// `diff -N` writes) on one side, or by git's mode headers.
	create, delete bool
	// rename and copy come from git's "rename from/to" and "copy from/to"
	// headers; oldName and newName are then the two paths.
	rename, copy bool
	// modeChange records git's "old mode/new mode" headers, which
	// apply_patch cannot honour.
	modeChange bool
	binary     bool
	hunks      []*hunk
	// line is the 1-based line of the patch where the section starts.
	line int

	// State used only while parsing.
	gitOld, gitNew string // from the diff --git line
	sawHeaders     bool   // the --- and +++ lines were seen
	inGit          bool   // git extended headers may still follow
}

// name is the path the model knows the section by, for messages.
func (f *filePatch) name() string {
	if f.newName != "" {
		return f.newName
	}
	return f.oldName
}

// A hunk is one @@ block.
type hunk struct {
	header string // the @@ line, for messages
	// oldStart and oldCount are as stated in the header; hasPos is false
	// when the header carries no usable numbers ("@@" alone).
	oldStart, oldCount int
	newStart, newCount int
	hasPos             bool
	lines              []hunkLine
	// oldNoEOL and newNoEOL record "\ No newline at end of file" after the
	// last line of the old and the new side.
	oldNoEOL, newNoEOL bool
	line               int // 1-based line of the @@ header in the patch
}

// A hunkLine is one body line: op is ' ', '-' or '+'. text excludes the op
// but keeps a trailing "\r" when the patch had CRLF line endings.
type hunkLine struct {
	op   byte
	text string
}

// old returns the lines the hunk expects in the file (context and
// removed), without line endings.
func (h *hunk) old() []string {
	var out []string
	for _, l := range h.lines {
		if l.op != '+' {
			out = append(out, strings.TrimSuffix(l.text, "\r"))
		}
	}
	return out
}

// counts returns how many lines the hunk adds and removes.
func (h *hunk) counts() (added, removed int) {
	for _, l := range h.lines {
		switch l.op {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	return added, removed
}

// patchParser holds the state of parsePatch.
type patchParser struct {
	lines []string // the patch, split after each "\n", without it
	i     int      // current line
	files []*filePatch
	cur   *filePatch
}

// parsePatch splits a unified diff into file sections. Its errors are
// worded for the model and name the offending line.
func parsePatch(text string) ([]*filePatch, error) {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil, errors.New("the patch is empty")
	}
	p := &patchParser{lines: strings.Split(text, "\n")}
	for p.i < len(p.lines) {
		line := strings.TrimSuffix(p.lines[p.i], "\r")
		switch {
		case strings.HasPrefix(line, "*** Begin Patch"):
			return nil, errors.New(`this tool takes a unified diff (--- a/path, +++ b/path, @@ hunks), not the "*** Begin Patch" format`)
		case strings.HasPrefix(line, "diff --git "):
			p.startGit(line)
		case p.isFileHeader(p.i):
			p.fileHeader()
			p.i++ // the +++ line
		case strings.HasPrefix(line, "@@"):
			if err := p.hunk(); err != nil {
				return nil, err
			}
			continue // p.hunk leaves p.i on the line after the hunk
		case strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch":
			if p.cur == nil || !p.cur.inGit {
				// diff -r reports a binary file on a line of its own.
				return nil, fmt.Errorf("line %d: %q: binary files are not supported", p.i+1, clipLine(line))
			}
			p.cur.binary = true
		case p.cur != nil && p.cur.inGit:
			p.gitHeader(line)
		}
		p.i++
	}
	if len(p.files) == 0 {
		return nil, errors.New("no file sections found: each file must start with a `--- a/path` line and a `+++ b/path` line (or a `diff --git` line), followed by @@ hunks")
	}
	for _, f := range p.files {
		if !f.sawHeaders && !f.rename && !f.copy {
			// A git section without --- and +++: an empty new or deleted
			// file, or a mode change. Its names come from the diff line.
			f.oldName, f.newName = f.gitOld, f.gitNew
		}
		if f.create {
			f.oldName = ""
		}
		if f.delete {
			f.newName = ""
		}
		if f.create && f.delete {
			return nil, fmt.Errorf("line %d: the section neither has an old file nor a new one (both sides are /dev/null)", f.line)
		}
		if f.name() == "" {
			return nil, fmt.Errorf("line %d: the section names no file", f.line)
		}
	}
	return p.files, nil
}

// isFileHeader reports whether line i is a `--- ` line followed by a
// `+++ ` line.
func (p *patchParser) isFileHeader(i int) bool {
	return i+1 < len(p.lines) && strings.HasPrefix(p.lines[i], "--- ") && strings.HasPrefix(p.lines[i+1], "+++ ")
}

func (p *patchParser) startGit(line string) {
	f := &filePatch{line: p.i + 1, inGit: true}
	f.gitOld, f.gitNew = gitNames(strings.TrimPrefix(line, "diff --git "))
	p.cur = f
	p.files = append(p.files, f)
}

// gitHeader interprets one of git's extended header lines. Lines it does
// not know (index, similarity index) carry nothing apply_patch needs.
func (p *patchParser) gitHeader(line string) {
	f := p.cur
	switch {
	case strings.HasPrefix(line, "new file mode "):
		f.create = true
	case strings.HasPrefix(line, "deleted file mode "):
		f.delete = true
	case strings.HasPrefix(line, "old mode "), strings.HasPrefix(line, "new mode "):
		f.modeChange = true
	case strings.HasPrefix(line, "rename from "):
		f.rename, f.oldName = true, unquoteName(strings.TrimPrefix(line, "rename from "))
	case strings.HasPrefix(line, "rename to "):
		f.rename, f.newName = true, unquoteName(strings.TrimPrefix(line, "rename to "))
	case strings.HasPrefix(line, "copy from "):
		f.copy, f.oldName = true, unquoteName(strings.TrimPrefix(line, "copy from "))
	case strings.HasPrefix(line, "copy to "):
		f.copy, f.newName = true, unquoteName(strings.TrimPrefix(line, "copy to "))
	}
}

// fileHeader reads the --- and +++ lines at p.i. They belong to the
// current git section if it has not had them yet, and start a new section
// otherwise.
func (p *patchParser) fileHeader() {
	f := p.cur
	if f == nil || !f.inGit || f.sawHeaders {
		f = &filePatch{line: p.i + 1}
		p.cur = f
		p.files = append(p.files, f)
	}
	f.inGit = false
	f.sawHeaders = true
	oldName, oldNull := headerName(strings.TrimPrefix(p.lines[p.i], "--- "), "a/")
	newName, newNull := headerName(strings.TrimPrefix(p.lines[p.i+1], "+++ "), "b/")
	if !f.rename && !f.copy {
		// Git's rename headers name the paths without prefixes; trust
		// them over the --- and +++ lines.
		f.oldName, f.newName = oldName, newName
	}
	f.create = f.create || oldNull
	f.delete = f.delete || newNull
}

// headerName extracts the path from the rest of a --- or +++ line: it
// drops a tab and whatever follows (diff's timestamp), unquotes git's
// C-style quoting, and removes prefix when present. null reports /dev/null,
// or the epoch timestamp `diff -N` gives a missing file.
func headerName(s, prefix string) (name string, null bool) {
	s = strings.TrimSuffix(s, "\r")
	var stamp string
	if q, rest, ok := cutQuoted(s); ok {
		s, stamp = q, rest
	} else {
		s, stamp, _ = strings.Cut(s, "\t")
		s = strings.TrimRight(s, " ")
	}
	if s == "/dev/null" {
		return "", true
	}
	return strings.TrimPrefix(s, prefix), isEpoch(strings.TrimSpace(stamp))
}

// isEpoch reports whether a diff timestamp is the Unix epoch, which GNU
// diff -N prints for a file that does not exist (in any time zone).
func isEpoch(ts string) bool {
	return strings.HasPrefix(ts, "1970-01-01 ") || strings.HasPrefix(ts, "1969-12-31 ")
}

// gitNames splits the rest of a `diff --git a/x b/y` line into its two
// paths, prefixes removed. Unquoted names may contain spaces, so the line
// is ambiguous in general; the names are equal except for renames, whose
// headers give the paths again.
func gitNames(rest string) (oldName, newName string) {
	rest = strings.TrimSuffix(rest, "\r")
	if strings.HasPrefix(rest, `"`) {
		a, tail, ok := cutQuoted(rest)
		if !ok {
			return "", ""
		}
		return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(unquoteName(strings.TrimSpace(tail)), "b/")
	}
	if i := strings.Index(rest, ` "`); i >= 0 {
		return strings.TrimPrefix(rest[:i], "a/"), strings.TrimPrefix(unquoteName(rest[i+1:]), "b/")
	}
	if n := len(rest); n%2 == 1 && rest[n/2] == ' ' {
		a, b := strings.TrimPrefix(rest[:n/2], "a/"), strings.TrimPrefix(rest[n/2+1:], "b/")
		if a == b {
			return a, b
		}
	}
	if i := strings.Index(rest, " b/"); i >= 0 {
		return strings.TrimPrefix(rest[:i], "a/"), rest[i+3:]
	}
	return "", ""
}

// cutQuoted splits s, which starts with a double-quoted C-style string as
// git writes unusual file names, into the unquoted string and the rest.
func cutQuoted(s string) (unquoted, rest string, ok bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			u, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", false
			}
			return u, s[i+1:], true
		}
	}
	return "", "", false
}

// unquoteName undoes git's quoting of a whole header value, if any.
func unquoteName(s string) string {
	s = strings.TrimSuffix(s, "\r")
	if u, rest, ok := cutQuoted(s); ok && strings.TrimSpace(rest) == "" {
		return u
	}
	return s
}

// parseHunkHeader reads "@@ -l,s +l,s @@ section". A header without
// usable numbers is kept with hasPos unset, so the hunk is placed by its
// content alone.
func parseHunkHeader(line string) *hunk {
	h := &hunk{header: line}
	ranges, _, _ := strings.Cut(strings.TrimPrefix(line, "@@"), "@@")
	f := strings.Fields(ranges)
	if len(f) != 2 || !strings.HasPrefix(f[0], "-") || !strings.HasPrefix(f[1], "+") {
		return h
	}
	var ok1, ok2 bool
	h.oldStart, h.oldCount, ok1 = parseRange(f[0][1:])
	h.newStart, h.newCount, ok2 = parseRange(f[1][1:])
	h.hasPos = ok1 && ok2
	return h
}

// parseRange reads "l,s" or "l" (meaning a count of 1).
func parseRange(s string) (start, count int, ok bool) {
	l, c, hasCount := strings.Cut(s, ",")
	start, err := strconv.Atoi(l)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(c); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}

// bodyOp classifies a line inside a hunk body: ' ', '-', '+' or '\\', or 0
// for a line that cannot be part of a hunk.
func bodyOp(line string) byte {
	if line == "" || line == "\r" {
		return ' ' // a blank context line whose leading space was lost
	}
	switch line[0] {
	case ' ', '-', '+', '\\':
		return line[0]
	case '\t':
		// A context line of tab-indented code whose leading space was
		// lost. No diff writes this, and reading it as context costs
		// nothing: if it does not match the file, the hunk fails.
		return ' '
	}
	return 0
}

// hunk reads the hunk whose header is at p.i and leaves p.i on the first
// line after it.
//
// The header's counts and the body can disagree when a model wrote the
// patch. The body runs until the next header or a line that cannot be in a
// hunk. If the counts fit a prefix of it and only blank lines (or a
// format-patch "-- " signature) follow, the counts win, so trailing blank
// context lines are kept; otherwise the body wins, minus trailing blank
// lines, which are more likely separators than context.
func (p *patchParser) hunk() error {
	f := p.cur
	if f == nil {
		return fmt.Errorf("line %d: hunk header %q comes before any file header; start each file with `--- a/path` and `+++ b/path` lines", p.i+1, strings.TrimSuffix(p.lines[p.i], "\r"))
	}
	f.inGit = false
	h := parseHunkHeader(strings.TrimSuffix(p.lines[p.i], "\r"))
	h.line = p.i + 1
	num := len(f.hunks) + 1

	var run []string
	oldSeen, newSeen := 0, 0
	j := p.i + 1
	junk := false
	for ; j < len(p.lines); j++ {
		l := p.lines[j]
		if strings.HasPrefix(l, "@@") || strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "```") {
			break // the next hunk or section, or the end of a Markdown code block
		}
		// "--- x" then "+++ y" inside a body may be a removed "-- x" and an
		// added "++ y"; it is a file header once the counts are used up, or
		// when a hunk header follows it.
		if p.isFileHeader(j) && (h.hasPos && oldSeen >= h.oldCount && newSeen >= h.newCount ||
			j+2 < len(p.lines) && strings.HasPrefix(p.lines[j+2], "@@")) {
			break
		}
		op := bodyOp(l)
		if op == 0 {
			junk = true
			break
		}
		run = append(run, l)
		switch op {
		case ' ':
			oldSeen++
			newSeen++
		case '-':
			oldSeen++
		case '+':
			newSeen++
		}
	}

	end := len(run)
	for end > 0 && isBlankLine(run[end-1]) {
		end--
	}
	fits := false
	if k := fitCounts(run, h); k >= 0 && onlyBlankOrSignature(run[k:]) {
		end, fits = k, true
	}
	if junk {
		if !fits {
			return fmt.Errorf("line %d: %q is inside hunk %d of %s but is not a hunk line; every line of a hunk starts with ' ' (context), '-' (removed) or '+' (added)", j+1, clipLine(p.lines[j]), num, f.name())
		}
		// The hunk is complete; what follows is prose until the next
		// header. Make sure it holds no change that would be dropped.
		for m := j; m < len(p.lines); m++ {
			l := p.lines[m]
			if strings.HasPrefix(l, "@@") || strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "```") || p.isFileHeader(m) {
				break
			}
			if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && strings.TrimSuffix(l, "\r") != "-- " {
				return fmt.Errorf("line %d: %q follows hunk %d of %s after the non-hunk line %d (%q); if it belongs to the hunk, give line %d a ' ', '-' or '+' prefix", m+1, clipLine(l), num, f.name(), j+1, clipLine(p.lines[j]), j+1)
			}
		}
	}

	for _, l := range run[:end] {
		op := bodyOp(l)
		switch {
		case op == '\\':
			// "\ No newline at end of file" ends the side(s) of the line
			// before it.
			if n := len(h.lines); n > 0 {
				switch h.lines[n-1].op {
				case ' ':
					h.oldNoEOL, h.newNoEOL = true, true
				case '-':
					h.oldNoEOL = true
				case '+':
					h.newNoEOL = true
				}
			}
		case isBlankLine(l):
			h.lines = append(h.lines, hunkLine{op: ' '})
		case l[0] == '\t':
			h.lines = append(h.lines, hunkLine{op: ' ', text: l})
		default:
			h.lines = append(h.lines, hunkLine{op: op, text: l[1:]})
		}
	}
	if len(h.lines) == 0 {
		return fmt.Errorf("line %d: hunk %d of %s has no lines", h.line, num, f.name())
	}
	f.hunks = append(f.hunks, h)
	p.i = j
	return nil
}

// fitCounts returns the length of the prefix of run that holds exactly the
// header's line counts (with a "\ No newline" marker that follows it), or
// -1 if none does.
func fitCounts(run []string, h *hunk) int {
	if !h.hasPos {
		return -1
	}
	o, n := 0, 0
	for k := 0; k <= len(run); k++ {
		if o == h.oldCount && n == h.newCount {
			if k < len(run) && bodyOp(run[k]) == '\\' {
				k++
			}
			return k
		}
		if k == len(run) || o > h.oldCount || n > h.newCount {
			break
		}
		switch bodyOp(run[k]) {
		case ' ':
			o++
			n++
		case '-':
			o++
		case '+':
			n++
		}
	}
	return -1
}

func isBlankLine(l string) bool { return l == "" || l == "\r" }

// onlyBlankOrSignature reports whether lines hold only blank lines and the "-- "
// that starts a git format-patch signature.
func onlyBlankOrSignature(lines []string) bool {
	for _, l := range lines {
		if !isBlankLine(l) && strings.TrimSuffix(l, "\r") != "-- " {
			return false
		}
	}
	return true
}

// clipLine shortens a line for quoting in a message.
func clipLine(s string) string {
	s = strings.TrimSuffix(s, "\r")
	const max = 80
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// A fileLine is one line of a file being patched, split from its ending
// ("\n", "\r\n", or "" for a last line without one).
type fileLine struct {
	text, eol string
}

func splitFileLines(s string) []fileLine {
	var out []fileLine
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, fileLine{text: s})
			break
		}
		l := fileLine{text: s[:i], eol: "\n"}
		if strings.HasSuffix(l.text, "\r") {
			l.text, l.eol = l.text[:len(l.text)-1], "\r\n"
		}
		out = append(out, l)
		s = s[i+1:]
	}
	return out
}

// dominantEOL is the line ending most lines of the file use, which added
// lines get; "\n" for a file without any.
func dominantEOL(lines []fileLine) string {
	crlf, lf := 0, 0
	for _, l := range lines {
		switch l.eol {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}

// A hunkError says why a hunk does not fit the file.
type hunkError struct {
	num int // 1-based
	msg string
}

func (e *hunkError) Error() string { return fmt.Sprintf("hunk %d %s", e.num, e.msg) }

// applyHunks applies hunks, in order, to content and returns the result.
// Context and removed lines are compared without their line endings;
// unchanged lines keep theirs and added lines get the file's dominant one,
// so a CRLF file stays CRLF. Whether the file ends with a newline is kept
// unless a hunk reaching the end says otherwise with "\ No newline at end
// of file".
func applyHunks(content string, hunks []*hunk) (string, error) {
	lines := splitFileLines(content)
	eol := dominantEOL(lines)
	wantEOL := len(lines) == 0 || lines[len(lines)-1].eol != ""
	var out []fileLine
	prev := 0  // lines[:prev] are dealt with
	drift := 0 // how far the last hunk was from its stated line
	for i, h := range hunks {
		old := h.old()
		pos, err := placeHunk(lines, h, old, prev, drift)
		if err != nil {
			return "", &hunkError{num: i + 1, msg: err.Error()}
		}
		out = append(out, lines[prev:pos]...)
		k := pos
		for _, l := range h.lines {
			switch l.op {
			case ' ':
				out = append(out, lines[k])
				k++
			case '-':
				k++
			case '+':
				out = append(out, fileLine{text: strings.TrimSuffix(l.text, "\r"), eol: eol})
			}
		}
		if k == len(lines) {
			switch {
			case h.newNoEOL:
				wantEOL = false
			case h.oldNoEOL:
				wantEOL = true
			}
		}
		if h.hasPos {
			drift = pos - h.anchor(len(old))
		}
		prev = k
	}
	out = append(out, lines[prev:]...)

	var b strings.Builder
	for i, l := range out {
		b.WriteString(l.text)
		switch {
		case i < len(out)-1 && l.eol == "":
			// A line that was last and is no longer.
			b.WriteString(eol)
		case i == len(out)-1 && !wantEOL:
		case i == len(out)-1 && l.eol == "":
			b.WriteString(eol)
		default:
			b.WriteString(l.eol)
		}
	}
	return b.String(), nil
}

// newFileContent assembles a file created by the patch (--- /dev/null)
// from its hunks, which may only add lines. Each line keeps the ending it
// has in the patch, so a CRLF patch creates a CRLF file.
func newFileContent(hunks []*hunk) (string, error) {
	var b strings.Builder
	for i, h := range hunks {
		for _, l := range h.lines {
			if l.op != '+' {
				return "", &hunkError{num: i + 1, msg: fmt.Sprintf("has the context or removed line %q, but a new file can only have added lines", clipLine(l.text))}
			}
			b.WriteString(l.text) // with its "\r", if any
			b.WriteString("\n")
		}
	}
	s := b.String()
	if len(hunks) > 0 && hunks[len(hunks)-1].newNoEOL {
		s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	}
	return s, nil
}

// anchor is the 0-based index the header puts the hunk's first old line
// at. A hunk without old lines inserts after line oldStart.
func (h *hunk) anchor(oldLen int) int {
	if oldLen == 0 {
		return h.oldStart
	}
	return h.oldStart - 1
}

// placeHunk finds where h's old lines are in lines, at or after from:
// first at the stated line (moved by the drift of the previous hunk), then
// searching outward from it, with an exact match anywhere preferred to one
// that ignores trailing whitespace.
func placeHunk(lines []fileLine, h *hunk, old []string, from, drift int) (int, error) {
	want := from
	if h.hasPos {
		want = h.anchor(len(old)) + drift
	}
	if len(old) == 0 {
		if !h.hasPos {
			return 0, errors.New("has neither context lines nor a line number, so there is no telling where it goes")
		}
		return clampInt(want, from, len(lines)), nil
	}
	last := len(lines) - len(old) // the last position the hunk fits at
	if last >= from {
		for _, eq := range []func(a, b string) bool{lineEqual, lineEqualTrimmed} {
			if pos := searchHunk(lines, old, clampInt(want, from, last), from, last, eq); pos >= 0 {
				return pos, nil
			}
		}
	}
	return 0, errors.New(diagnoseHunk(lines, h, old, from, want))
}

func clampInt(v, lo, hi int) int { return max(lo, min(v, hi)) }

func lineEqual(a, b string) bool { return a == b }

func lineEqualTrimmed(a, b string) bool {
	return strings.TrimRightFunc(a, unicode.IsSpace) == strings.TrimRightFunc(b, unicode.IsSpace)
}

func lineEqualSpacing(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}

// searchHunk returns the position in [lo, hi] nearest to want where old
// matches lines under eq, or -1.
func searchHunk(lines []fileLine, old []string, want, lo, hi int, eq func(a, b string) bool) int {
	for d := 0; want-d >= lo || want+d <= hi; d++ {
		if p := want + d; p <= hi && hunkMatchesAt(lines, old, p, eq) {
			return p
		}
		if p := want - d; d > 0 && p >= lo && hunkMatchesAt(lines, old, p, eq) {
			return p
		}
	}
	return -1
}

func hunkMatchesAt(lines []fileLine, old []string, pos int, eq func(a, b string) bool) bool {
	for i, o := range old {
		if !eq(lines[pos+i].text, o) {
			return false
		}
	}
	return true
}

// diagnoseHunk explains why a hunk found no place, for a model to fix it: where
// it was expected and what the file has there, then the closest match —
// the same lines before the previous hunk, the same lines with other
// whitespace, or the stretch of the file that lines up with most of it.
func diagnoseHunk(lines []fileLine, h *hunk, old []string, from, want int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "(%s) does not match the file. Its first line %q ", clipLine(h.header), clipLine(old[0]))
	w := max(want, 0)
	switch {
	case !h.hasPos:
		fmt.Fprintf(&b, "was searched for after line %d", from)
	case w < len(lines) && lineEqualTrimmed(lines[w].text, old[0]):
		fmt.Fprintf(&b, "was expected near line %d, which has it", w+1)
	case w < len(lines):
		fmt.Fprintf(&b, "was expected near line %d, where the file has %q", w+1, clipLine(lines[w].text))
	default:
		fmt.Fprintf(&b, "was expected near line %d, but the file has %d lines", w+1, len(lines))
	}
	b.WriteString(".")

	span := func(p int) string { return fmt.Sprintf("lines %d-%d", p+1, p+len(old)) }
	last := len(lines) - len(old)
	if last >= 0 {
		for _, eq := range []func(a, b string) bool{lineEqual, lineEqualTrimmed} {
			if p := searchHunk(lines, old, clampInt(want, 0, last), 0, last, eq); p >= 0 && p < from {
				fmt.Fprintf(&b, " It matches %s, but the previous hunk already covers the file up to line %d: hunks must be in file order and must not overlap.", span(p), from)
				return b.String()
			}
		}
		if p := searchHunk(lines, old, clampInt(want, 0, last), 0, last, lineEqualSpacing); p >= 0 {
			for i, o := range old {
				if !lineEqualTrimmed(lines[p+i].text, o) {
					fmt.Fprintf(&b, " It matches %s if whitespace is ignored: line %d is %q where the hunk has %q. Copy the file's indentation and spacing exactly.", span(p), p+i+1, clipLine(lines[p+i].text), clipLine(o))
					break
				}
			}
			return b.String()
		}
	}

	// The stretch of the file that agrees with the most hunk lines,
	// nearest to where the hunk was expected.
	best, bestScore := -1, 0
	for p := range lines {
		score := 0
		for i, o := range old {
			if p+i < len(lines) && lineEqualTrimmed(lines[p+i].text, o) {
				score++
			}
		}
		if score > bestScore || score == bestScore && score > 0 && distance(p, want) < distance(best, want) {
			best, bestScore = p, score
		}
	}
	if best < 0 {
		b.WriteString(" No line of the file matches any of its context or removed lines; read the file again.")
		return b.String()
	}
	for i, o := range old {
		p := best + i
		if p >= len(lines) {
			fmt.Fprintf(&b, " The closest match starts at line %d (%d of its %d context and removed lines agree), but the file ends before its line %q.", best+1, bestScore, len(old), clipLine(o))
			break
		}
		if !lineEqualTrimmed(lines[p].text, o) {
			fmt.Fprintf(&b, " The closest match is lines %d-%d (%d of its %d context and removed lines agree); line %d is %q where the hunk has %q.", best+1, min(best+len(old), len(lines)), bestScore, len(old), p+1, clipLine(lines[p].text), clipLine(o))
			break
		}
	}
	return b.String()
}

// distance is |a-b|.
func distance(a, b int) int {
	if a < b {
		return b - a
	}
	return a - b
}
