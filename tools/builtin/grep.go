package builtin

import (
	"bytes"
	"container/heap"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/walk"
)

//go:embed grep.md
var grepDescription string

const (
	// grepMaxLines caps the output lines of one call, in every mode.
	grepMaxLines = 250
	// grepMaxLineLen is where a long line (minified code, data) is cut,
	// keeping the part around the match.
	grepMaxLineLen = 300
	grepMaxContext = 10
	// grepMaxFileSize bounds the memory a single file can take; larger
	// files are skipped and reported.
	grepMaxFileSize = 128 << 20
)

// Output modes.
const (
	grepContent = "content"
	grepFiles   = "files_with_matches"
	grepCount   = "count"
)

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path,omitempty"`
	Glob       string `json:"glob,omitempty"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	OutputMode string `json:"output_mode,omitempty"`
	Context    int    `json:"context,omitempty"`
}

type grepTool struct{}

var _ tools.Tool = grepTool{}

func init() { tools.RegisterBuiltin(grepTool{}) }

func (grepTool) Name() string        { return "grep" }
func (grepTool) Description() string { return grepDescription }
func (grepTool) ReadOnly() bool      { return true }

var grepSchema = schema(`{
	"type": "object",
	"properties": {
		"pattern": {"type": "string", "description": "The regular expression."},
		"path": {"type": "string", "description": "File or directory to search."},
		"glob": {"type": "string", "description": "Only search files matching this glob, e.g. \"*.go\", \"*.{ts,tsx}\" or \"**/*_test.go\". Without a '/' it matches file names at any depth."},
		"ignore_case": {"type": "boolean", "description": "Match case-insensitively. Default false."},
		"output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "content (default): matching lines as path:line:text. files_with_matches: only the paths. count: path:count per file."},
		"context": {"type": "integer", "minimum": 0, "maximum": 10, "description": "Lines of context to show before and after each match (content mode). Default 0."}
	},
	"required": ["pattern"],
	"additionalProperties": false
}`)

func (grepTool) Schema() json.RawMessage { return grepSchema }

func (grepTool) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	var args grepArgs
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return tools.Errorf("%v", err), nil
	}
	if args.Pattern == "" {
		return tools.Errorf("pattern is required"), nil
	}
	switch args.OutputMode {
	case "":
		args.OutputMode = grepContent
	case grepContent, grepFiles, grepCount:
	default:
		return tools.Errorf("output_mode must be %q, %q or %q", grepContent, grepFiles, grepCount), nil
	}
	if args.Context < 0 || args.Context > grepMaxContext {
		return tools.Errorf("context must be between 0 and %d", grepMaxContext), nil
	}
	m, err := compileGrep(args.Pattern, args.IgnoreCase)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	abs, err := env.ReadPath(args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	fi, err := env.FS.Stat(abs)
	if err != nil {
		return notFound(env, args.Path, err), nil
	}
	s := &grepSearch{env: env, m: m, mode: args.OutputMode, context: args.Context}
	if args.Glob != "" && fi.IsDir() {
		if s.glob, err = walk.CompileGlob(args.Glob); err != nil {
			return tools.Errorf("%v", err), nil
		}
		s.rootRel = env.Rel(abs)
	}

	withheld := env.Withhold(abs)
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return tools.Errorf("%s is not a regular file", args.Path), nil
		}
		// A file named explicitly is searched even if it is ignored.
		s.explicit = true
		var refused error
		s.searchFile(abs, func(buf []byte, limit int) ([]byte, error) {
			data, err := env.ReadDisk(abs, buf, limit)
			if errors.Is(err, tools.ErrReadDenied) {
				refused = err // through a link, to a file no tool may read
			}
			return data, err
		})
		if refused != nil {
			return tools.Errorf("%v", refused), nil
		}
	} else {
		opts := walk.Options{Ceiling: env.Root, Skip: env.SkipForbidden(), Withhold: withheld.Func()}
		if err := walk.Walk(ctx, abs, opts, s.visit); err != nil {
			if ctx.Err() != nil {
				return tools.Result{}, err
			}
			return walkFailed(env, abs, err), nil
		}
	}
	return withNote(s.res.report(env, args), withheld.Note()), nil
}

// withNote appends a note, such as what a walk withheld, to a result.
func withNote(res tools.Result, note string) tools.Result {
	if note != "" {
		res.Content += "\n" + note
	}
	return res
}

// grepSearch is one grep call, shared by the walk's workers.
type grepSearch struct {
	env     *tools.Env
	m       *grepMatcher
	mode    string
	context int
	glob    *walk.Glob // nil: every file
	rootRel string     // root as shown to the model, for globs written from the workspace root
	// explicit is set when path names a file, which is then searched
	// whatever the ignore files say, and reported if binary. The search
	// is then a single call on one goroutine.
	explicit bool

	res grepResults
}

func (s *grepSearch) visit(e walk.Entry) error {
	// Symbolic links are not followed, as in ripgrep: the target is
	// either searched where it lives or outside the tree.
	if !e.Type.IsRegular() {
		return nil
	}
	if s.glob != nil && !s.globMatch(e) {
		return nil
	}
	s.searchFile(e.Path, e.ReadFile)
	return nil
}

// globMatch tries the path relative to the searched directory, then to
// the workspace root, because models write globs either way.
func (s *grepSearch) globMatch(e walk.Entry) bool {
	rel := e.Rel()
	if s.glob.Match(rel) {
		return true
	}
	return s.rootRel != "." && s.glob.Match(s.rootRel+"/"+rel)
}

// grepBufs recycles read buffers across files and calls, so a search of
// a large tree does not allocate per file.
var grepBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// grepKeepBuf is the largest buffer returned to the pool; one huge file
// should not pin its size in memory.
const grepKeepBuf = 4 << 20

// searchFile searches the file at path: what the FS holds for it (an
// editor's buffer), or else what read, a confined read of the disk,
// returns into a pooled buffer.
func (s *grepSearch) searchFile(path string, read func(buf []byte, limit int) ([]byte, error)) {
	data, held, err := s.env.Held(path)
	if held {
		if err == nil && len(data) > grepMaxFileSize {
			err = walk.ErrTooLarge
		}
	} else {
		bp := grepBufs.Get().(*[]byte)
		data, err = read((*bp)[:0], grepMaxFileSize)
		defer func() {
			if cap(data) <= grepKeepBuf {
				*bp = data[:0]
			}
			grepBufs.Put(bp)
		}()
	}
	if err != nil {
		if errors.Is(err, walk.ErrTooLarge) {
			s.res.skipLarge(s.env.Rel(path))
		}
		// Anything else (the file vanished, is unreadable) is left out
		// quietly, as a search of a live tree must.
		return
	}
	s.scan(path, data)
}

// scan searches one file's content and records what it found.
func (s *grepSearch) scan(path string, data []byte) {
	var sc grepScanner
	sc.init(s.m)
	hit, ok := sc.next(data, 0)
	if !ok {
		return
	}
	// Binary files are only checked once they match: most files do not.
	if grepIsBinary(data) {
		if s.explicit {
			s.res.binary = true
		}
		return
	}
	f := &grepFile{path: s.env.Rel(path)}
	switch s.mode {
	case grepFiles:
		f.count = 1
	case grepCount:
		for ok {
			f.count++
			hit, ok = sc.next(data, hit.end+1)
		}
	case grepContent:
		keep := s.res.wants(f.path)
		var hits []grepHit
		line, counted := 1, 0
		for ok {
			f.count++
			if keep && len(hits) < grepMaxLines {
				line += bytes.Count(data[counted:hit.start], []byte{'\n'})
				counted = hit.start
				hit.line = line
				hits = append(hits, hit)
			}
			hit, ok = sc.next(data, hit.end+1)
		}
		if keep {
			var whole bool
			f.out, f.lines, whole = renderGrepFile(f.path, data, hits, s.context)
			f.partial = !whole || len(hits) < f.count
		}
	}
	s.res.add(f)
}

// grepIsBinary reports whether data looks binary: a NUL byte in its
// first tools.SniffLen bytes, the test of git grep and ripgrep. Unlike
// tools.IsBinary it accepts text that is not UTF-8, so a Latin-1 source
// file is still searched.
func grepIsBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), tools.SniffLen)], 0) >= 0
}

// grepHit is a matching line: its bounds in the file (end excludes the
// newline), where the match starts, and its 1-based number.
type grepHit struct {
	start, end int
	match      int
	line       int
}

// renderGrepFile formats a file's hits, with n lines of context around
// each, as ripgrep does: "path:line:text" for matches, "path-line-text"
// for context and "--" between separate groups. It returns the output
// and its number of lines, at most grepMaxLines, and whether that was all
// of it.
func renderGrepFile(path string, data []byte, hits []grepHit, n int) (out []byte, lines int, whole bool) {
	emit := func(sep byte, num int, text []byte, match int) {
		out = append(out, path...)
		out = append(out, sep)
		out = strconv.AppendInt(out, int64(num), 10)
		out = append(out, sep)
		out = appendCutLine(out, text, match)
		out = append(out, '\n')
		lines++
	}
	if n == 0 {
		for _, h := range hits {
			emit(':', h.line, data[h.start:h.end], h.match-h.start)
		}
		return out, lines, true
	}
	printed := 0 // the last line number written
	k := 0       // the first hit not yet behind us
	for _, h := range hits {
		first := max(h.line-n, printed+1, 1)
		if first > h.line+n {
			continue
		}
		if printed > 0 && first > printed+1 {
			out = append(out, "--\n"...)
			lines++
		}
		// Find where line first starts: before the hit for leading
		// context, after it when the previous group already showed the
		// hit's line.
		pos := h.start
		for num := h.line; num > first; num-- {
			pos = bytes.LastIndexByte(data[:pos-1], '\n') + 1
		}
		for num := h.line; num < first && pos < len(data); num++ {
			i := bytes.IndexByte(data[pos:], '\n')
			if i < 0 {
				pos = len(data)
				break
			}
			pos += i + 1
		}
		for num := first; num <= h.line+n && pos < len(data); num++ {
			if lines >= grepMaxLines {
				return out, lines, false
			}
			end := len(data)
			if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
				end = pos + i
			}
			for k < len(hits) && hits[k].line < num {
				k++
			}
			if k < len(hits) && hits[k].line == num {
				emit(':', num, data[pos:end], hits[k].match-pos)
			} else {
				emit('-', num, data[pos:end], 0)
			}
			printed = num
			pos = end + 1
		}
	}
	return out, lines, true
}

// appendCutLine appends a line for display: without its carriage return,
// and, when longer than grepMaxLineLen, cut to a window around the byte
// offset match with "…" marking each cut.
func appendCutLine(out, text []byte, match int) []byte {
	text = bytes.TrimSuffix(text, []byte{'\r'})
	if len(text) <= grepMaxLineLen {
		return append(out, text...)
	}
	start := max(0, min(match-grepMaxLineLen/3, len(text)-grepMaxLineLen))
	end := start + grepMaxLineLen
	for start > 0 && !utf8.RuneStart(text[start]) {
		start++
	}
	for end < len(text) && end > start && !utf8.RuneStart(text[end]) {
		end--
	}
	if start > 0 {
		out = append(out, "…"...)
	}
	out = append(out, text[start:end]...)
	if end < len(text) {
		out = append(out, "…"...)
	}
	return out
}

// grepFile is what one file contributed.
type grepFile struct {
	path  string
	count int    // matching lines (1 in files_with_matches mode)
	out   []byte // formatted lines, content mode, unless dropped
	lines int    // lines in out
	// partial marks output that stopped at grepMaxLines within the file.
	partial bool
}

// grepResults collects the files of a search. Workers finish files in
// any order, but the output lists them by path and stops at
// grepMaxLines, so only the output of the first files by path is worth
// keeping: kept holds those, and a file whose lines fall past the cap is
// dropped as soon as enough lines before it are known.
type grepResults struct {
	mu        sync.Mutex  // guards the fields below
	files     []*grepFile // every file with a match
	kept      grepHeap    // files whose output is kept, greatest path on top
	keptLines int
	tooLarge  []string // files skipped for their size
	binary    bool     // the file named in path is binary and matches; set without mu, see grepSearch.explicit
}

func (r *grepResults) add(f *grepFile) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files = append(r.files, f)
	if f.lines == 0 {
		return
	}
	heap.Push(&r.kept, f)
	r.keptLines += f.lines
	for {
		top := r.kept[0]
		if r.keptLines-top.lines < grepMaxLines {
			break
		}
		heap.Pop(&r.kept)
		r.keptLines -= top.lines
		top.out, top.lines = nil, 0
	}
}

// wants reports whether the lines of the file at path could still be
// shown. Once it says no it says no for good, so a worker can skip
// formatting a file that would only be dropped.
func (r *grepResults) wants(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keptLines < grepMaxLines || path < r.kept[0].path
}

func (r *grepResults) skipLarge(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tooLarge = append(r.tooLarge, path)
}

// report renders the result once the search is over.
func (r *grepResults) report(env *tools.Env, args grepArgs) tools.Result {
	slices.SortFunc(r.files, func(a, b *grepFile) int { return strings.Compare(a.path, b.path) })
	slices.Sort(r.tooLarge)
	matches := 0
	for _, f := range r.files {
		matches += f.count
	}
	var b strings.Builder
	if len(r.files) == 0 {
		where := env.Rel(env.Abs(args.Path))
		if where == "." {
			where = "the workspace"
		}
		if r.binary {
			return tools.Result{
				Content: fmt.Sprintf("%s is a binary file and matches %s; its lines are not shown.\n", where, grepQuote(args.Pattern)),
				Summary: "binary file matches",
			}
		}
		fmt.Fprintf(&b, "No matches for %s in %s", grepQuote(args.Pattern), where)
		if args.Glob != "" {
			fmt.Fprintf(&b, " (files matching %s)", grepQuote(args.Glob))
		}
		b.WriteString(".\n")
		r.noteLarge(&b)
		return tools.Result{Content: b.String(), Summary: "no matches"}
	}

	shown, cut := 0, false
	for _, f := range r.files {
		if shown == grepMaxLines {
			cut = true
			break
		}
		switch args.OutputMode {
		case grepFiles:
			b.WriteString(f.path)
			b.WriteByte('\n')
			shown++
		case grepCount:
			fmt.Fprintf(&b, "%s:%d\n", f.path, f.count)
			shown++
		default:
			// A file without output was dropped because enough lines
			// come before it.
			cut = cut || f.out == nil || f.partial
			out := f.out
			for len(out) > 0 && shown < grepMaxLines {
				i := bytes.IndexByte(out, '\n')
				b.Write(out[:i+1])
				out = out[i+1:]
				shown++
			}
			cut = cut || len(out) > 0
		}
	}

	fileWord := grepPlural(len(r.files), "file", "files")
	summary := fmt.Sprintf("%d %s in %d %s", matches, grepPlural(matches, "match", "matches"), len(r.files), fileWord)
	switch {
	case args.OutputMode == grepFiles:
		summary = fmt.Sprintf("%d %s", len(r.files), fileWord)
		if cut {
			fmt.Fprintf(&b, "\n(Showing %d of %d files with matches. Narrow the search with a more specific pattern, a path or a glob.)\n", shown, len(r.files))
		}
	case cut:
		fmt.Fprintf(&b, "\n(Output cut at %d lines: %d matching %s in %d %s in all. Narrow the search with a more specific pattern, a path or a glob, or use output_mode \"files_with_matches\" or \"count\".)\n",
			grepMaxLines, matches, grepPlural(matches, "line", "lines"), len(r.files), fileWord)
	}
	r.noteLarge(&b)
	return tools.Result{Content: b.String(), Summary: summary}
}

func (r *grepResults) noteLarge(b *strings.Builder) {
	if len(r.tooLarge) == 0 {
		return
	}
	names := r.tooLarge
	if len(names) > 5 {
		names = names[:5]
	}
	fmt.Fprintf(b, "\n(%d %s larger than %d MiB not searched: %s", len(r.tooLarge), grepPlural(len(r.tooLarge), "file", "files"), grepMaxFileSize>>20, strings.Join(names, ", "))
	if len(names) < len(r.tooLarge) {
		b.WriteString(", …")
	}
	b.WriteString(")\n")
}

// grepQuote shows a pattern as the model wrote it, between backticks, so
// that its backslashes are not doubled as %q would.
func grepQuote(s string) string {
	if strings.ContainsAny(s, "`\n") {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}

func grepPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// grepHeap is a max-heap of files by path.
type grepHeap []*grepFile

func (h grepHeap) Len() int           { return len(h) }
func (h grepHeap) Less(i, j int) bool { return h[i].path > h[j].path }
func (h grepHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *grepHeap) Push(x any)        { *h = append(*h, x.(*grepFile)) }
func (h *grepHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

func (grepTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyGrep, Kind: tools.KindSearch}
}

func (t grepTool) Describe(args json.RawMessage) tools.Call {
	reads, _ := t.ReadPaths(args)
	return tools.Call{Title: tools.Title(t.Name(), tools.ArgString(args, "path", "pattern")), Wording: tools.UseWording(t.Name(), args), Reads: reads}
}
