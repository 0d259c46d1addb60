package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/sandbox"
)

func TestLs(t *testing.T) {
	files := map[string]string{
		".git/HEAD":        "ref: refs/heads/main\n",
		".gitignore":       "dist/\n*.log\n",
		"b.go":             strings.Repeat("x", 2048),
		"a.txt":            "hello",
		".env":             "KEY=1\n",
		"app.log":          "",
		"dist/bundle.js":   "",
		"src/main.go":      "",
		"Zeta/readme":      "",
		"secret/key":       "",
		"empty/.gitignore": "*\n",
		"big/f":            "",
	}
	for _, c := range []struct {
		name    string
		path    string
		links   map[string]string // name → target, made before listing
		want    []string
		summary string
		isError bool
		contain string
	}{
		{
			name: "directories first, then files, with sizes and tags",
			links: map[string]string{
				"link-dir":  "src",
				"link-file": "a.txt",
				"dangling":  "missing",
			},
			want: []string{
				".git/  [version control]",
				"Zeta/",
				"big/",
				"dist/  [ignored]",
				"empty/",
				"link-dir/ -> src",
				"secret/  [read forbidden]",
				"src/",
				".env  6 B",
				".gitignore  12 B",
				"a.txt  5 B",
				"app.log  0 B  [ignored]",
				"b.go  2.0 KB",
				"dangling -> missing (broken link)",
				"link-file -> a.txt",
			},
			summary: "8 directories, 7 files",
		},
		{
			name:    "subdirectory",
			path:    "src",
			want:    []string{"main.go  0 B"},
			summary: "0 directories, 1 file",
		},
		{
			name:    "an ignored directory is listed with a note",
			path:    "dist",
			want:    []string{"(dist is itself ignored by .gitignore: grep and glob search it only when given it as path.)", "bundle.js  0 B"},
			summary: "0 directories, 1 file",
		},
		{
			name:    "a file is refused",
			path:    "a.txt",
			isError: true,
			contain: "a.txt is a file (5 B), not a directory; use read_file",
		},
		{
			name:    "a missing directory",
			path:    "srcs",
			isError: true,
			contain: `srcs does not exist; did you mean "src"?`,
		},
		{
			name:    "forbidden",
			path:    "secret",
			isError: true,
			contain: "forbidden",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t, files)
			env.Guard = sandbox.New([]string{env.Root}, []string{filepath.Join(env.Root, "secret")})
			for name, target := range c.links {
				if err := os.Symlink(target, filepath.Join(env.Root, name)); err != nil {
					t.Skip("no symlinks:", err)
				}
			}
			res := call(t, env, "ls", map[string]any{"path": c.path})
			if res.IsError != c.isError {
				t.Fatalf("IsError = %v; content:\n%s", res.IsError, res.Content)
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

func TestLsEmptyAndCap(t *testing.T) {
	files := map[string]string{}
	for i := range lsMaxEntries + 5 {
		files[fmt.Sprintf("many/f%04d", i)] = ""
	}
	files["many/zdir/x"] = ""
	env := testEnv(t, files)
	if err := os.Mkdir(filepath.Join(env.Root, "void"), 0o755); err != nil {
		t.Fatal(err)
	}

	res := call(t, env, "ls", map[string]any{"path": "void"})
	if res.IsError || res.Content != "void is empty.\n" {
		t.Errorf("empty directory: %+v", res)
	}

	res = call(t, env, "ls", map[string]any{"path": "many"})
	got := outputLines(res.Content)
	if len(got) != lsMaxEntries || got[0] != "zdir/" || got[1] != "f0000  0 B" {
		t.Errorf("%d lines starting %q", len(got), got[:2])
	}
	if !strings.Contains(res.Content, "(6 more entries not shown.") {
		t.Errorf("no note of the rest:\n%s", res.Content[len(res.Content)-200:])
	}
	if res.Summary != "1 directory, 1005 files" {
		t.Errorf("summary %q", res.Summary)
	}
}

func TestLsSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 1536: "1.5 KB", 5 << 20: "5.0 MB", 3 << 30: "3.0 GB"} {
		if got := lsSize(n); got != want {
			t.Errorf("lsSize(%d) = %q, want %q", n, got, want)
		}
	}
}
