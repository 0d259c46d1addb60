package walk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestWalkSkipsVCSDirsAndLinks(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".git/config": "", ".hg/store": "", ".svn/entries": "", "sub/.git/HEAD": "",
		".gitkeep": "", ".hgignore": "", "target/t.txt": "", "a.txt": "",
	})
	if err := os.Symlink(filepath.Join(root, "target"), filepath.Join(root, "dirlink")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Symlink(filepath.Join(root, "a.txt"), filepath.Join(root, "filelink")); err != nil {
		t.Fatal(err)
	}
	types := map[string]fs.FileMode{}
	var mu sync.Mutex
	err := Walk(t.Context(), root, Options{}, func(e Entry) error {
		mu.Lock()
		defer mu.Unlock()
		types[e.Rel()] = e.Type
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{
		".gitkeep": 0, ".hgignore": 0, "a.txt": 0, "target/t.txt": 0,
		"dirlink": fs.ModeSymlink, "filelink": fs.ModeSymlink,
	}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Errorf("walk found %v, want %v", types, want)
	}
}

func TestWalkOptions(t *testing.T) {
	files := map[string]string{
		".gitignore":       "*.log\n",
		"a.go":             "",
		"a.log":            "",
		"secret/key":       "",
		"secret/sub/more":  "",
		"pkg/b.go":         "",
		"pkg/vendor/c.go":  "",
		"pkg/vendor/d.log": "",
	}
	for _, c := range []struct {
		name string
		opts func(root string, skipped *[]string) Options
		want []string
	}{
		{
			name: "defaults",
			opts: func(string, *[]string) Options { return Options{} },
			want: []string{".gitignore", "a.go", "pkg/b.go", "pkg/vendor/c.go", "secret/key", "secret/sub/more"},
		},
		{
			name: "no ignore",
			opts: func(string, *[]string) Options { return Options{NoIgnore: true} },
			want: []string{".gitignore", "a.go", "a.log", "pkg/b.go", "pkg/vendor/c.go", "pkg/vendor/d.log", "secret/key", "secret/sub/more"},
		},
		{
			name: "skip prunes a directory without reading it",
			opts: func(root string, skipped *[]string) Options {
				var mu sync.Mutex
				return Options{Skip: func(p string, isDir bool) bool {
					mu.Lock()
					defer mu.Unlock()
					*skipped = append(*skipped, p)
					return p == filepath.Join(root, "secret") && isDir
				}}
			},
			want: []string{".gitignore", "a.go", "pkg/b.go", "pkg/vendor/c.go"},
		},
		{
			name: "one worker",
			opts: func(string, *[]string) Options { return Options{Workers: 1} },
			want: []string{".gitignore", "a.go", "pkg/b.go", "pkg/vendor/c.go", "secret/key", "secret/sub/more"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, files)
			var asked []string
			got := walkAll(t, root, c.opts(root, &asked))
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
			for _, p := range asked {
				if strings.HasPrefix(p, filepath.Join(root, "secret")+string(filepath.Separator)) {
					t.Errorf("Skip was asked about %s, inside a skipped directory", p)
				}
			}
		})
	}
}

func TestWalkDirsAndSkipDir(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a/x": "", "a/b/y": "", "c/z": "", "top": ""})
	var mu sync.Mutex
	var got []string
	err := Walk(t.Context(), root, Options{Dirs: true}, func(e Entry) error {
		mu.Lock()
		got = append(got, e.Rel())
		mu.Unlock()
		if e.Type.IsDir() && e.Name() == "b" {
			return SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"a", "a/b", "a/x", "c", "c/z", "top"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWalkStops(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 200 {
		files[fmt.Sprintf("d%d/f%d", i%10, i)] = ""
	}
	writeFiles(t, root, files)
	boom := errors.New("boom")

	var n atomic.Int64
	err := Walk(t.Context(), root, Options{}, func(Entry) error {
		if n.Add(1) == 5 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("visit error: Walk returned %v", err)
	}

	n.Store(0)
	err = Walk(t.Context(), root, Options{Workers: 1}, func(Entry) error {
		if n.Add(1) == 5 {
			return SkipAll
		}
		return nil
	})
	if err != nil || n.Load() != 5 {
		t.Errorf("SkipAll: Walk returned %v after %d visits, want nil after 5", err, n.Load())
	}

	ctx, cancel := context.WithCancel(t.Context())
	n.Store(0)
	err = Walk(ctx, root, Options{}, func(Entry) error {
		if n.Add(1) == 1 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: Walk returned %v", err)
	}
}

func TestWalkRootErrors(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"f": ""})
	err := Walk(t.Context(), filepath.Join(root, "missing"), Options{}, func(Entry) error { return nil })
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing root: %v", err)
	}
	if err := Walk(t.Context(), filepath.Join(root, "f"), Options{}, func(Entry) error { return nil }); err == nil {
		t.Error("a file as root: no error")
	}
}

// TestWalkVisitsEachFileOnce spreads many files over many directories so
// that workers share directories and batches; run it with -race.
func TestWalkVisitsEachFileOnce(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	var want []string
	for i := range 1500 {
		name := fmt.Sprintf("d%d/e%d/f%04d", i%7, i%13, i)
		if i%3 == 0 {
			name = fmt.Sprintf("big/f%04d", i) // one directory of 500 files
		}
		files[name] = ""
		want = append(want, name)
	}
	writeFiles(t, root, files)
	slices.Sort(want)
	for _, workers := range []int{1, 2, 8} {
		got := walkAll(t, root, Options{Workers: workers})
		if !slices.Equal(got, want) {
			t.Errorf("%d workers: got %d files, want %d", workers, len(got), len(want))
		}
	}
}

func TestWalkAncestorRules(t *testing.T) {
	files := map[string]string{
		".gitignore":          "*.gen\nskipme/\n",
		"sub/a.go":            "",
		"sub/b.gen":           "",
		"sub/.gitignore":      "*.tmp\n",
		"sub/deep/c.tmp":      "",
		"sub/deep/d.go":       "",
		"sub/skipme/e.go":     "",
		"sub/inner/.git/HEAD": "",
		"sub/inner/f.gen":     "",
		"sub/inner/g.tmp":     "",
	}
	for _, c := range []struct {
		name    string
		repo    bool
		ceiling bool
		walk    string
		want    []string
	}{
		{
			name: "repository rules apply to a walk of a subdirectory",
			repo: true, walk: "sub",
			want: []string{".gitignore", "a.go", "deep/d.go", "inner/f.gen", "inner/g.tmp"},
		},
		{
			name:    "outside a repository the ceiling's rules apply",
			ceiling: true, walk: "sub",
			want: []string{".gitignore", "a.go", "deep/d.go", "inner/f.gen", "inner/g.tmp"},
		},
		{
			name: "outside a repository and without a ceiling only the root's rules apply",
			walk: "sub",
			want: []string{".gitignore", "a.go", "b.gen", "deep/d.go", "inner/f.gen", "inner/g.tmp", "skipme/e.go"},
		},
		{
			name: "an ignored directory given as the root is walked",
			repo: true, walk: "sub/skipme",
			want: []string{"e.go"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, files)
			if c.repo {
				writeFiles(t, root, map[string]string{".git/HEAD": ""})
			}
			opts := Options{}
			if c.ceiling {
				opts.Ceiling = root
			}
			got := walkAll(t, filepath.Join(root, c.walk), opts)
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestReadAll(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("0123456789", 20000)
	writeFiles(t, root, map[string]string{"small": "hello", "big": big, "empty": ""})
	cases := []struct {
		name, want string
		limit      int
		err        error
	}{
		{name: "small", want: "hello"},
		{name: "big", want: big},
		{name: "empty", want: ""},
		{name: "big", limit: 1000, err: ErrTooLarge},
		{name: "big", limit: len(big), want: big},
		{name: "big", limit: len(big) - 1, err: ErrTooLarge},
		{name: "missing", err: fs.ErrNotExist},
	}
	check := func(how, name string, data []byte, err error, want string, wantErr error) {
		t.Helper()
		if wantErr != nil {
			if !errors.Is(err, wantErr) {
				t.Errorf("%s(%s): error %v, want %v", how, name, err, wantErr)
			}
			return
		}
		if err != nil || string(data) != want {
			t.Errorf("%s(%s) = %d bytes, %v; want %d bytes", how, name, len(data), err, len(want))
		}
	}
	// Through Open and ReadAll.
	var buf []byte
	for _, c := range cases {
		f, err := Open(filepath.Join(root, c.name), nil)
		var data []byte
		if err == nil {
			data, err = ReadAll(f, buf, c.limit)
			f.Close()
			buf = data[:0]
		}
		check("ReadAll", c.name, data, err, c.want, c.err)
	}
	// Through a walk's Entry.ReadFile, which reuses the same buffer.
	for _, c := range cases {
		if c.name == "missing" {
			continue
		}
		err := Walk(t.Context(), root, Options{Workers: 1}, func(e Entry) error {
			if e.Name() != c.name {
				return nil
			}
			data, err := e.ReadFile(buf, c.limit)
			check("Entry.ReadFile", c.name, data, err, c.want, c.err)
			buf = data[:0]
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestWalkWithhold: Withhold is asked about what Skip and the ignore
// rules let through, and only that, with real paths; a directory it
// withholds is not read, and a withheld root fails the walk.
func TestWalkWithhold(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".gitignore":     "*.log\n",
		"a.go":           "",
		"a.log":          "",
		"private/k":      "",
		"private/sub/m":  "",
		"private/x.log":  "",
		"pkg/.gitignore": "",
		"pkg/b.go":       "",
		"pkg/c.pem":      "",
	})
	var mu sync.Mutex
	var asked []string
	opts := Options{
		Skip: func(p string, _ bool) bool { return p == filepath.Join(root, "pkg", ".gitignore") },
		Withhold: func(p string, isDir bool) bool {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, p)
			return p == filepath.Join(root, "private") && isDir || strings.HasSuffix(p, ".pem")
		},
	}
	got := walkAll(t, root, opts)
	if want := []string{".gitignore", "a.go", "pkg/b.go"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	slices.Sort(asked)
	want := []string{root}
	for _, p := range []string{".gitignore", "a.go", "pkg", "pkg/b.go", "pkg/c.pem", "private"} {
		want = append(want, filepath.Join(root, p))
	}
	slices.Sort(want)
	if !slices.Equal(asked, want) {
		t.Errorf("Withhold was asked about %q, want %q", asked, want)
	}

	err := Walk(t.Context(), filepath.Join(root, "private"), opts, func(Entry) error {
		t.Error("a withheld root was walked")
		return nil
	})
	var pe *fs.PathError
	if !errors.Is(err, ErrSkipped) || !errors.As(err, &pe) || pe.Path != filepath.Join(root, "private") {
		t.Errorf("walking a withheld root: %v", err)
	}
}

// Keep shows entries the ignore files leave out, by name, and what is
// below them; Repo reports each .git directory without going into it.
func TestWalkKeepAndRepo(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".gitignore":                   ".vscode/\n*.toml\nbuild/\n",
		"sub/.gitignore":               "*\n",
		".vscode/settings.json":        "",
		"pkg/.vscode/tasks.json":       "",
		"pkg/reasonix.toml":            "",
		"pkg/other.toml":               "",
		"build/x/reasonix.toml":        "", // below an ignored directory: not seen
		"sub/reasonix.toml":            "",
		"sub/deeper/a.txt":             "",
		"lib/.git/HEAD":                "",
		".git/HEAD":                    "",
		".vscode/nested/.gitignore":    "*\n",
		".vscode/nested/launch.json":   "",
		"pkg/.vscode/.git/config":      "",
		"pkg/.vscode/inner/.gitignore": "*.json\n",
		"pkg/.vscode/inner/x.json":     "",
	})
	keep := func(name string, isDir bool) bool {
		return name == ".vscode" || name == "reasonix.toml" || name == ".gitignore"
	}
	var mu sync.Mutex
	var repos []string
	seen := walkAll(t, root, Options{Keep: keep, Repo: func(p string) {
		mu.Lock()
		defer mu.Unlock()
		r, _ := filepath.Rel(root, p)
		repos = append(repos, filepath.ToSlash(r))
	}})
	slices.Sort(repos)
	want := []string{".gitignore", ".vscode/nested/.gitignore", ".vscode/nested/launch.json", ".vscode/settings.json",
		"pkg/.vscode/inner/.gitignore", "pkg/.vscode/inner/x.json", "pkg/.vscode/tasks.json", "pkg/reasonix.toml",
		"sub/.gitignore", "sub/reasonix.toml"}
	if !slices.Equal(seen, want) {
		t.Errorf("walk found %v\nwant %v", seen, want)
	}
	if want := []string{".git", "lib/.git", "pkg/.vscode/.git"}; !slices.Equal(repos, want) {
		t.Errorf("repositories %v, want %v", repos, want)
	}
}
