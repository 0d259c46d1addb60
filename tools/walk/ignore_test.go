package walk

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// ignoreCases describe git's documented .gitignore behaviour (see
// gitignore(5)). Each case is a repository: files maps a path to its
// content ("" for the files under test, patterns for ignore files) and
// want lists the files a walk must report. When git is installed the same
// repository is also checked against `git ls-files --others
// --exclude-standard`, which lists exactly the files git does not ignore.
var ignoreCases = []struct {
	name  string
	files map[string]string
	want  []string
}{
	{
		name: "name pattern matches at any depth",
		files: map[string]string{
			".gitignore": "*.log\n",
			"a.log":      "", "b/c.log": "", "keep.txt": "", "b/keep.txt": "",
		},
		want: []string{".gitignore", "b/keep.txt", "keep.txt"},
	},
	{
		name: "trailing slash matches directories only",
		files: map[string]string{
			".gitignore": "build/\n",
			"build/x.o":  "", "src/build/y.o": "", "lib/build": "",
		},
		want: []string{".gitignore", "lib/build"},
	},
	{
		name: "leading slash anchors to the ignore file's directory",
		files: map[string]string{
			".gitignore": "/root.txt\n",
			"root.txt":   "", "sub/root.txt": "",
		},
		want: []string{".gitignore", "sub/root.txt"},
	},
	{
		name: "middle slash anchors too",
		files: map[string]string{
			".gitignore": "doc/frotz\n",
			"doc/frotz":  "", "a/doc/frotz": "", "doc/other": "",
		},
		want: []string{".gitignore", "a/doc/frotz", "doc/other"},
	},
	{
		name: "single star does not cross a slash",
		files: map[string]string{
			".gitignore": "a/*.c\n",
			"a/x.c":      "", "a/b/y.c": "", "x.c": "",
		},
		want: []string{".gitignore", "a/b/y.c", "x.c"},
	},
	{
		name: "negation re-includes",
		files: map[string]string{
			".gitignore": "*.log\n!important.log\n",
			"a.log":      "", "important.log": "", "sub/important.log": "",
		},
		want: []string{".gitignore", "important.log", "sub/important.log"},
	},
	{
		name: "the last matching pattern wins",
		files: map[string]string{
			".gitignore": "!x.log\n*.log\n",
			"x.log":      "",
		},
		want: []string{".gitignore"},
	},
	{
		name: "negation cannot reach into an excluded directory",
		files: map[string]string{
			".gitignore":    "logs/\n!logs/keep.log\n",
			"logs/keep.log": "", "logs/drop.log": "",
		},
		want: []string{".gitignore"},
	},
	{
		name: "negation works when only the content is excluded",
		files: map[string]string{
			".gitignore":    "logs/*\n!logs/keep.log\n",
			"logs/keep.log": "", "logs/drop.log": "",
		},
		want: []string{".gitignore", "logs/keep.log"},
	},
	{
		name: "allow-list idiom",
		files: map[string]string{
			".gitignore": "*\n!*/\n!*.go\n",
			"main.go":    "", "README": "", "pkg/a.go": "", "pkg/a.txt": "",
		},
		want: []string{"main.go", "pkg/a.go"},
	},
	{
		name: "nested ignore file applies below its directory",
		files: map[string]string{
			"sub/.gitignore": "*.txt\n",
			"a.txt":          "", "sub/b.txt": "", "sub/deeper/c.txt": "", "sub/d.go": "",
		},
		want: []string{"a.txt", "sub/.gitignore", "sub/d.go"},
	},
	{
		name: "deeper ignore file overrides a shallower one",
		files: map[string]string{
			".gitignore":     "*.gen\n",
			"sub/.gitignore": "!keep.gen\n",
			"keep.gen":       "", "sub/keep.gen": "", "sub/other.gen": "",
		},
		want: []string{".gitignore", "sub/.gitignore", "sub/keep.gen"},
	},
	{
		name: "anchored pattern in a nested file is relative to it",
		files: map[string]string{
			"sub/.gitignore": "/only-here\nx/y\n",
			"only-here":      "", "sub/only-here": "", "sub/z/only-here": "",
			"sub/x/y": "", "x/y": "", "sub/z/x/y": "",
		},
		want: []string{"only-here", "sub/.gitignore", "sub/z/only-here", "sub/z/x/y", "x/y"},
	},
	{
		name: "leading double star matches in all directories",
		files: map[string]string{
			".gitignore": "**/foo\n**/bar/baz\n",
			"foo":        "", "a/foo": "", "a/b/foo": "", "bar/baz": "", "a/bar/baz": "", "a/bar/qux": "",
		},
		want: []string{".gitignore", "a/bar/qux"},
	},
	{
		name: "trailing double star matches everything inside",
		files: map[string]string{
			".gitignore": "abc/**\n!abc/keep\n",
			"abc/x":      "", "abc/d/y": "", "abc/keep": "", "abcd/z": "",
		},
		want: []string{".gitignore", "abc/keep", "abcd/z"},
	},
	{
		name: "middle double star matches zero or more directories",
		files: map[string]string{
			".gitignore": "a/**/b\n",
			"a/b":        "", "a/x/b": "", "a/x/y/b": "", "a/c": "", "z/a/b": "",
		},
		want: []string{".gitignore", "a/c", "z/a/b"},
	},
	{
		name: "other consecutive stars are a single star",
		files: map[string]string{
			".gitignore": "foo**bar\n",
			"foobazbar":  "", "foo/bar": "",
		},
		want: []string{".gitignore", "foo/bar"},
	},
	{
		name: "character classes and ranges",
		files: map[string]string{
			".gitignore": "*.[oa]\n[!x]y.txt\nv[0-9].bin\n",
			"m.o":        "", "m.a": "", "m.c": "", "ay.txt": "", "xy.txt": "", "v1.bin": "", "vx.bin": "",
		},
		want: []string{".gitignore", "m.c", "vx.bin", "xy.txt"},
	},
	{
		name: "question mark matches one character",
		files: map[string]string{
			".gitignore": "file?.txt\n",
			"file1.txt":  "", "file12.txt": "", "file.txt": "",
		},
		want: []string{".gitignore", "file.txt", "file12.txt"},
	},
	{
		name: "escapes for hash, bang, star and trailing space",
		files: map[string]string{
			".gitignore": "\\#hash\n\\!bang\nstar\\*\nspace\\ \nplain.txt   \n",
			"#hash":      "", "!bang": "", "star*": "", "starx": "", "space ": "", "plain.txt": "", "space": "",
		},
		want: []string{".gitignore", "space", "starx"},
	},
	{
		name: "comments and blank lines are not patterns",
		files: map[string]string{
			".gitignore": "# comment\n\n   \n#also.txt\n",
			"# comment":  "", "#also.txt": "", "x": "",
		},
		want: []string{"# comment", "#also.txt", ".gitignore", "x"},
	},
	{
		name: "hidden files are included",
		files: map[string]string{
			".env": "", ".config/app.toml": "", ".gitkeep": "",
		},
		want: []string{".config/app.toml", ".env", ".gitkeep"},
	},
	{
		name: "info/exclude applies below .gitignore files",
		files: map[string]string{
			".git/info/exclude": "secret.txt\n*.tmp\n",
			".gitignore":        "!keep.tmp\n",
			"secret.txt":        "", "sub/secret.txt": "", "a.tmp": "", "keep.tmp": "",
		},
		want: []string{".gitignore", "keep.tmp"},
	},
	{
		name: "CRLF line endings and a byte order mark",
		files: map[string]string{
			".gitignore": "\xef\xbb\xbf*.log\r\nbin/\r\n",
			"a.log":      "", "bin/x": "", "c.txt": "",
		},
		want: []string{".gitignore", "c.txt"},
	},
}

func TestIgnoreRules(t *testing.T) {
	_, gitErr := exec.LookPath("git")
	for _, c := range ignoreCases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if gitErr == nil {
				git(t, root, "init", "-q")
			} else if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, root, c.files)

			got := walkAll(t, root, Options{})
			if !slices.Equal(got, c.want) {
				t.Errorf("walk found\n\t%q\nwant\n\t%q", got, c.want)
			}
			// Ignored must agree with the walk about every file.
			for name := range c.files {
				if strings.HasPrefix(name, ".git/") {
					continue
				}
				abs := filepath.Join(root, filepath.FromSlash(name))
				if ign, want := Ignored(abs, false, Options{}), !slices.Contains(c.want, name); ign != want {
					t.Errorf("Ignored(%s) = %v, want %v", name, ign, want)
				}
			}
			if gitErr == nil {
				out := git(t, root, "ls-files", "-z", "--others", "--exclude-standard")
				var fromGit []string
				for _, f := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
					if f != "" {
						fromGit = append(fromGit, f)
					}
				}
				slices.Sort(fromGit)
				if !slices.Equal(fromGit, c.want) {
					t.Errorf("git ls-files lists\n\t%q\nthe case wants\n\t%q", fromGit, c.want)
				}
			}
		})
	}
}

func TestParsePattern(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
		want pattern
	}{
		{line: "", ok: false},
		{line: "# x", ok: false},
		{line: "   ", ok: false},
		{line: "!", ok: false},
		{line: "/", ok: false},
		{line: "foo", ok: true, want: pattern{text: "foo", kind: kindExact, lit: "foo"}},
		{line: "*.go", ok: true, want: pattern{text: "*.go", kind: kindSuffix, lit: ".go"}},
		{line: "!a/", ok: true, want: pattern{text: "a", negate: true, dirOnly: true, kind: kindExact, lit: "a"}},
		{line: "/a/b", ok: true, want: pattern{text: "a/b", anchored: true, kind: kindExact, lit: "a/b"}},
		{line: "a/**", ok: true, want: pattern{text: "a/**", anchored: true}},
		{line: `\#x`, ok: true, want: pattern{text: `\#x`}},
		{line: `a\ `, ok: true, want: pattern{text: `a\ `}},
		{line: "a  ", ok: true, want: pattern{text: "a", kind: kindExact, lit: "a"}},
		{line: "a\r", ok: true, want: pattern{text: "a", kind: kindExact, lit: "a"}},
	} {
		got, ok := parsePattern(c.line)
		if ok != c.ok || got != c.want {
			t.Errorf("parsePattern(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

func TestLoadDir(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".git/HEAD":           "",
		".gitignore":          "out/\n*.tmp\n",
		"src/.gitignore":      "gen/\n",
		"src/a.go":            "",
		"src/x.tmp":           "",
		"src/gen/g.go":        "",
		"out/deep/file":       "",
		"src/notes/.keep":     "",
		"src/notes/gen/inner": "",
	})
	for _, c := range []struct {
		dir         string
		dirIgnored  bool
		name        string
		isDir       bool
		wantIgnored bool
	}{
		{dir: "src", name: "a.go", wantIgnored: false},
		{dir: "src", name: "x.tmp", wantIgnored: true},
		{dir: "src", name: "gen", isDir: true, wantIgnored: true},
		{dir: "src", name: "gen", isDir: false, wantIgnored: false},
		{dir: "src/notes", name: "gen", isDir: true, wantIgnored: true},
		{dir: "out/deep", dirIgnored: true, name: "file", wantIgnored: false},
		{dir: ".", name: "out", isDir: true, wantIgnored: true},
	} {
		d := LoadDir(filepath.Join(root, c.dir), Options{})
		if d.Ignored() != c.dirIgnored {
			t.Errorf("LoadDir(%s).Ignored() = %v, want %v", c.dir, d.Ignored(), c.dirIgnored)
		}
		if got := d.IgnoredEntry(c.name, c.isDir); got != c.wantIgnored {
			t.Errorf("LoadDir(%s).IgnoredEntry(%s, %v) = %v, want %v", c.dir, c.name, c.isDir, got, c.wantIgnored)
		}
	}
	if !Ignored(filepath.Join(root, "out/deep/file"), false, Options{}) {
		t.Error("a file in an ignored directory is not Ignored")
	}
	if !Ignored(filepath.Join(root, ".git/HEAD"), false, Options{}) {
		t.Error("a file in .git is not Ignored")
	}
	var zero Dir
	if zero.Ignored() || zero.IgnoredEntry("x", false) {
		t.Error("the zero Dir ignores something")
	}
}

// writeFiles creates files (slash-separated path → content) below root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// walkAll walks root and returns the sorted relative paths it reports.
func walkAll(t *testing.T, root string, opts Options) []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	err := Walk(context.Background(), root, opts, func(e Entry) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, e.Rel())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

// git runs git in dir, isolated from the user's configuration, and
// returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"HOME="+dir, "XDG_CONFIG_HOME="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
