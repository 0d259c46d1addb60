package builtin

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// grepTree is the workspace most grep tests search.
var grepTree = map[string]string{
	".gitignore":          "build/\n*.log\n!keep.log\n",
	"main.go":             "package main\n\nfunc main() {\n\tNewServer()\n}\n",
	"server.go":           "package main\n\n// NewServer makes a server.\nfunc NewServer() *Server {\n\treturn &Server{}\n}\n\nfunc (s *Server) Start() error { return nil }\n",
	"server_test.go":      "package main\n\nfunc TestNewServer(t *testing.T) {\n\tnewserver := NewServer()\n\t_ = newserver\n}\n",
	"build/gen.go":        "func NewServer() {} // generated\n",
	"debug.log":           "NewServer failed\n",
	"keep.log":            "NewServer kept\n",
	"docs/.gitignore":     "draft.md\n",
	"docs/draft.md":       "NewServer draft\n",
	"docs/guide.md":       "Call NewServer.\n",
	"blob.bin":            "NewServer\x00\x01\x02",
	".hidden/notes.txt":   "NewServer hidden\n",
	"sub/pkg/handler.go":  "package pkg\n\nfunc Handle() { NewServer() }\n",
	"sub/pkg/handler.txt": "NewServer in text\n",
}

func TestGrep(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    map[string]any
		want    []string // the output lines, in order, before any note
		summary string
		isError bool
		contain string // the content must also contain this
	}{
		{
			name: "literal honours ignore files",
			args: map[string]any{"pattern": "NewServer"},
			want: []string{
				".hidden/notes.txt:1:NewServer hidden",
				"docs/guide.md:1:Call NewServer.",
				"keep.log:1:NewServer kept",
				"main.go:4:\tNewServer()",
				"server.go:3:// NewServer makes a server.",
				"server.go:4:func NewServer() *Server {",
				"server_test.go:3:func TestNewServer(t *testing.T) {",
				"server_test.go:4:\tnewserver := NewServer()",
				"sub/pkg/handler.go:3:func Handle() { NewServer() }",
				"sub/pkg/handler.txt:1:NewServer in text",
			},
			summary: "10 matches in 8 files",
		},
		{
			name: "regex",
			args: map[string]any{"pattern": `func \(\w+ \*Server\) \w+\(`},
			want: []string{"server.go:8:func (s *Server) Start() error { return nil }"},
		},
		{
			name: "ignore case",
			args: map[string]any{"pattern": "newserver :=", "ignore_case": true},
			want: []string{"server_test.go:4:\tnewserver := NewServer()"},
		},
		{
			name: "case matters by default",
			args: map[string]any{"pattern": "newserver"},
			want: []string{"server_test.go:4:\tnewserver := NewServer()", "server_test.go:5:\t_ = newserver"},
		},
		{
			name: "alternation of literals",
			args: map[string]any{"pattern": "TestNewServer|Handle\\(", "glob": "*.go"},
			want: []string{"server_test.go:3:func TestNewServer(t *testing.T) {", "sub/pkg/handler.go:3:func Handle() { NewServer() }"},
		},
		{
			name: "glob by base name at any depth",
			args: map[string]any{"pattern": "NewServer", "glob": "*.txt"},
			want: []string{".hidden/notes.txt:1:NewServer hidden", "sub/pkg/handler.txt:1:NewServer in text"},
		},
		{
			name: "glob with double star",
			args: map[string]any{"pattern": "NewServer", "glob": "**/*_test.go"},
			want: []string{"server_test.go:3:func TestNewServer(t *testing.T) {", "server_test.go:4:\tnewserver := NewServer()"},
		},
		{
			name: "glob alternation",
			args: map[string]any{"pattern": "NewServer", "glob": "*.{md,txt}", "path": "docs"},
			want: []string{"docs/guide.md:1:Call NewServer."},
		},
		{
			name: "glob relative to the searched path or to the root",
			args: map[string]any{"pattern": "NewServer", "path": "sub", "glob": "sub/pkg/*.go"},
			want: []string{"sub/pkg/handler.go:3:func Handle() { NewServer() }"},
		},
		{
			name: "path is a file",
			args: map[string]any{"pattern": "NewServer", "path": "main.go"},
			want: []string{"main.go:4:\tNewServer()"},
		},
		{
			name: "an ignored file named explicitly is searched",
			args: map[string]any{"pattern": "NewServer", "path": "debug.log"},
			want: []string{"debug.log:1:NewServer failed"},
		},
		{
			name: "an ignored directory named explicitly is searched",
			args: map[string]any{"pattern": "NewServer", "path": "build"},
			want: []string{"build/gen.go:1:func NewServer() {} // generated"},
		},
		{
			name:    "a binary file named explicitly is reported",
			args:    map[string]any{"pattern": "NewServer", "path": "blob.bin"},
			want:    []string{"blob.bin is a binary file and matches `NewServer`; its lines are not shown."},
			summary: "binary file matches",
		},
		{
			name:    "files with matches",
			args:    map[string]any{"pattern": "NewServer", "output_mode": "files_with_matches", "path": "sub"},
			want:    []string{"sub/pkg/handler.go", "sub/pkg/handler.txt"},
			summary: "2 files",
		},
		{
			name:    "count",
			args:    map[string]any{"pattern": "Server", "output_mode": "count", "glob": "server*.go"},
			want:    []string{"server.go:4", "server_test.go:2"},
			summary: "6 matches in 2 files",
		},
		{
			name:    "no matches",
			args:    map[string]any{"pattern": "NoSuchThing", "path": "sub"},
			want:    []string{"No matches for `NoSuchThing` in sub."},
			summary: "no matches",
		},
		{
			name:    "invalid regex",
			args:    map[string]any{"pattern": "func (s"},
			isError: true,
			contain: "missing closing ): `func (s`",
		},
		{
			name:    "lookahead",
			args:    map[string]any{"pattern": "foo(?=bar)"},
			isError: true,
			contain: "no lookahead",
		},
		{
			name:    "backreference",
			args:    map[string]any{"pattern": `(a)\1`},
			isError: true,
			contain: "no lookahead, lookbehind or backreferences",
		},
		{
			name:    "newline in pattern",
			args:    map[string]any{"pattern": `a\nb`},
			isError: true,
			contain: "one line at a time",
		},
		{
			name:    "missing path",
			args:    map[string]any{"pattern": "x", "path": "sub/pkj"},
			isError: true,
			contain: `sub/pkj does not exist; did you mean "sub/pkg"?`,
		},
		{
			name:    "bad glob",
			args:    map[string]any{"pattern": "x", "glob": "*.{go"},
			isError: true,
			contain: "unclosed '{'",
		},
		{
			name:    "bad output mode",
			args:    map[string]any{"pattern": "x", "output_mode": "lines"},
			isError: true,
		},
		{
			name:    "unknown argument",
			args:    map[string]any{"pattern": "x", "include": "*.go"},
			isError: true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t, grepTree)
			res := call(t, env, "grep", c.args)
			if res.IsError != c.isError {
				t.Fatalf("IsError = %v, want %v; content:\n%s", res.IsError, c.isError, res.Content)
			}
			if c.contain != "" && !strings.Contains(res.Content, c.contain) {
				t.Errorf("content does not contain %q:\n%s", c.contain, res.Content)
			}
			if c.want != nil {
				if got := outputLines(res.Content); !slices.Equal(got, c.want) {
					t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(c.want, "\n\t"))
				}
			}
			if c.summary != "" && res.Summary != c.summary {
				t.Errorf("summary %q, want %q", res.Summary, c.summary)
			}
		})
	}
}

// bufferFS serves some files from memory, as the editor serves unsaved
// buffers, and the rest from disk.
type bufferFS struct {
	tools.DiskFS
	buffers map[string]string // absolute path → content
}

func (f bufferFS) ReadFile(name string) ([]byte, error) {
	if b, ok := f.buffers[name]; ok {
		return []byte(b), nil
	}
	return f.DiskFS.ReadFile(name)
}

// overlayFS is bufferFS as a tools.Overlay: the tools read the files it
// does not hold from the disk themselves.
type overlayFS struct{ bufferFS }

func (f overlayFS) Overlaid(name string) ([]byte, bool, error) {
	b, ok := f.buffers[name]
	return []byte(b), ok, nil
}

func TestGrepReadsThroughFS(t *testing.T) {
	env := testEnv(t, map[string]string{"a.go": "saved text\n", "b.go": "other saved text\n"})
	buffers := bufferFS{buffers: map[string]string{filepath.Join(env.Root, "a.go"): "unsaved text\n"}}
	for _, fsys := range []tools.FS{buffers, overlayFS{buffers}} {
		env.FS = fsys
		res := call(t, env, "grep", map[string]any{"pattern": "text"})
		if got, want := outputLines(res.Content), []string{"a.go:1:unsaved text", "b.go:1:other saved text"}; !slices.Equal(got, want) {
			t.Errorf("%T: got %q, want %q", fsys, got, want)
		}
		res = call(t, env, "grep", map[string]any{"pattern": "text", "path": "a.go"})
		if got, want := outputLines(res.Content), []string{"a.go:1:unsaved text"}; !slices.Equal(got, want) {
			t.Errorf("%T, one file: got %q, want %q", fsys, got, want)
		}
		if res := call(t, env, "read_file", map[string]any{"path": "a.go"}); !strings.Contains(res.Content, "unsaved text") {
			t.Errorf("%T: read_file shows %q", fsys, res.Content)
		}
	}
}

// outputLines returns the lines of a result before its first blank line,
// where notes begin.
func outputLines(content string) []string {
	body, _, _ := strings.Cut(content, "\n\n")
	return strings.Split(strings.TrimSuffix(body, "\n"), "\n")
}

func TestGrepContext(t *testing.T) {
	var lines []string
	for i := 1; i <= 20; i++ {
		text := fmt.Sprintf("line %d", i)
		if i == 5 || i == 7 || i == 15 {
			text += " hit"
		}
		lines = append(lines, text)
	}
	env := testEnv(t, map[string]string{"f.txt": strings.Join(lines, "\r\n") + "\r\n"})
	res := call(t, env, "grep", map[string]any{"pattern": "hit$", "context": 2})
	want := []string{
		"f.txt-3-line 3",
		"f.txt-4-line 4",
		"f.txt:5:line 5 hit",
		"f.txt-6-line 6",
		"f.txt:7:line 7 hit",
		"f.txt-8-line 8",
		"f.txt-9-line 9",
		"--",
		"f.txt-13-line 13",
		"f.txt-14-line 14",
		"f.txt:15:line 15 hit",
		"f.txt-16-line 16",
		"f.txt-17-line 17",
	}
	if got := outputLines(res.Content); !slices.Equal(got, want) {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	if res.Summary != "3 matches in 1 file" {
		t.Errorf("summary %q", res.Summary)
	}
}

func TestGrepOutputCap(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("needle\n", 20)
	}
	env := testEnv(t, files)
	for _, c := range []struct {
		mode      string
		wantLines int
		note      string
	}{
		{"content", grepMaxLines, "600 matching lines in 30 files in all"},
		{"count", 30, ""},
		{"files_with_matches", 30, ""},
	} {
		res := call(t, env, "grep", map[string]any{"pattern": "needle", "output_mode": c.mode})
		got := outputLines(res.Content)
		if len(got) != c.wantLines {
			t.Errorf("%s: %d lines, want %d", c.mode, len(got), c.wantLines)
		}
		if c.mode == "content" {
			// The first files by path come first, whole.
			if got[0] != "f00.txt:1:needle" || got[len(got)-1] != "f12.txt:10:needle" {
				t.Errorf("content: first %q, last %q", got[0], got[len(got)-1])
			}
		}
		if c.note != "" && !strings.Contains(res.Content, c.note) {
			t.Errorf("%s: no note %q in\n%s", c.mode, c.note, res.Content[len(res.Content)-300:])
		}
		if res.Summary != "600 matches in 30 files" && res.Summary != "30 files" {
			t.Errorf("%s: summary %q", c.mode, res.Summary)
		}
	}
}

func TestGrepLongLine(t *testing.T) {
	line := strings.Repeat("a", 1000) + "NEEDLE" + strings.Repeat("é", 500)
	env := testEnv(t, map[string]string{"min.js": line + "\n"})
	for _, pattern := range []string{"NEEDLE", "NEE+DLE"} {
		res := call(t, env, "grep", map[string]any{"pattern": pattern})
		got := outputLines(res.Content)
		if len(got) != 1 {
			t.Fatalf("%s: %q", pattern, got)
		}
		text := strings.TrimPrefix(got[0], "min.js:1:")
		if !strings.Contains(text, "NEEDLE") || !strings.HasPrefix(text, "…") || !strings.HasSuffix(text, "…") {
			t.Errorf("%s: cut line %q", pattern, text)
		}
		if len(text) > grepMaxLineLen+2*len("…") || !isValidUTF8(text) {
			t.Errorf("%s: cut line of %d bytes, valid UTF-8 %v", pattern, len(text), isValidUTF8(text))
		}
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestGrepForbiddenDirPruned(t *testing.T) {
	env := testEnv(t, map[string]string{
		"ok.txt":         "token\n",
		"secret/key.txt": "token\n",
	})
	env.Guard = sandbox.New([]string{env.Root}, []string{filepath.Join(env.Root, "secret")})
	res := call(t, env, "grep", map[string]any{"pattern": "token"})
	if got := outputLines(res.Content); !slices.Equal(got, []string{"ok.txt:1:token"}) {
		t.Errorf("got %q", got)
	}
	res = call(t, env, "grep", map[string]any{"pattern": "token", "path": "secret"})
	if !res.IsError || !strings.Contains(res.Content, "forbidden") {
		t.Errorf("searching the forbidden directory: %+v", res)
	}
}

// TestGrepMatcher checks the literal prefilters against the regexp run on
// every line, which is what they must agree with.
func TestGrepMatcher(t *testing.T) {
	text := strings.Join([]string{
		"func (s *Server) Serve(l net.Listener) error {",
		"func NewRequest(method, url string) (*Request, error) {",
		"\treturn NewRequestWithContext(context.Background(), method, url, body)",
		"KELVIN: \u212Aelvin and kelvin and Kelvin",
		"long \u017Fs and ss and SS",
		"TODO: fix; FIXME later; todo lower",
		"",
		"   ",
		"the end",
		"NEWREQUEST shouted",
		"straße STRASSE",
		"tab\there",
		"x", // no trailing newline
	}, "\n")
	patterns := []struct {
		pattern string
		fold    bool
	}{
		{"func NewRequest", false},
		{"NewRequest", true},
		{"newrequest", true},
		{`func \(\w+ \*Server\) \w+\(`, false},
		{"kelvin", true},
		{"KELVIN", false},
		{"ss", true},
		{"TODO|FIXME", false},
		{"todo|fixme", true},
		{"^$", false},
		{`^\s*$`, false},
		{"^the", false},
		{"end$", false},
		{"x$", false},
		{"e", false},
		{"[Ss]erver", false},
		{"(Request)+", false},
		{"Request{2,}", false},
		{"straße", true},
		{"STRASSE", true},
		{`\t`, false},
		{"a*", false},
		{"(?i)server", false},
		{"s(?i:ERVER)", false},
		{`\bend\b`, false},
	}
	lines := strings.Split(text, "\n")
	for _, p := range patterns {
		m, err := compileGrep(p.pattern, p.fold)
		if err != nil {
			t.Fatalf("%s: %v", p.pattern, err)
		}
		var want []int
		for i, l := range lines {
			if m.re.MatchString(l) {
				want = append(want, i+1)
			}
		}
		var got []int
		var sc grepScanner
		sc.init(m)
		data := []byte(text)
		for hit, ok := sc.next(data, 0); ok; hit, ok = sc.next(data, hit.end+1) {
			got = append(got, 1+strings.Count(text[:hit.start], "\n"))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q (ignore case %v, %d literals, exact %v): lines %v, want %v", p.pattern, p.fold, len(m.lits), m.exact, got, want)
		}
	}
}

func TestGrepRequiredLiterals(t *testing.T) {
	for _, c := range []struct {
		pattern string
		fold    bool
		want    []string
		exact   bool
	}{
		{pattern: "func NewRequest", want: []string{"func NewRequest"}, exact: true},
		{pattern: `func \(\w+ \*Server\) \w+\(`, want: []string{" *Server) "}},
		{pattern: "NewRequest", fold: true, want: []string{"newreque"}},
		{pattern: "Handler", fold: true, want: []string{"handler"}, exact: true},
		{pattern: "TODO|FIXME", want: []string{"TODO", "FIXME"}, exact: true},
		{pattern: `\w+Error\b`, want: []string{"Error"}},
		{pattern: `^\s*$`},
		{pattern: "a|b*"},
		{pattern: "sk", fold: true},
	} {
		m, err := compileGrep(c.pattern, c.fold)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range m.lits {
			got = append(got, string(l.s))
		}
		if !slices.Equal(got, c.want) || (len(got) > 0 && m.exact != c.exact) {
			t.Errorf("%q: literals %q exact %v, want %q exact %v", c.pattern, got, m.exact, c.want, c.exact)
		}
	}
}

func TestGrepAnchorIsRare(t *testing.T) {
	l := newGrepLiteral("func NewRequest", false)
	if c := l.s[l.anchor]; c != 'q' {
		t.Errorf("anchor %q, want 'q'", c)
	}
	if !regexp.MustCompile(`^[a-z]$`).MatchString(string(newGrepLiteral("handler", true).lo)) {
		t.Error("fold anchor is not a lower-case letter")
	}
}
