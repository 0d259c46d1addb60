package walk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// realTempDir returns a fresh directory by its real path.
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestWalkSkipSeesRealPaths: a root named through symbolic links is
// judged, with everything below it, by its real path, while the entries
// keep the path the caller gave.
func TestWalkSkipSeesRealPaths(t *testing.T) {
	base := realTempDir(t)
	real := filepath.Join(base, "real")
	writeFiles(t, real, map[string]string{"a.txt": "", "sub/b.txt": "", "secret/key": ""})
	if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
		t.Skip("no symlinks:", err)
	}
	roots := []string{filepath.Join(base, "link"), filepath.Join(base, "link", "..", "link")}
	if runtime.GOOS == "linux" {
		roots = append(roots, "/proc/self/root"+real, "/proc/self/root"+filepath.Join(base, "link"))
	}
	for _, root := range roots {
		var mu sync.Mutex
		var asked, got []string
		err := Walk(t.Context(), root, Options{Skip: func(p string, isDir bool) bool {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, p)
			return p == filepath.Join(real, "secret")
		}}, func(e Entry) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, e.Path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(asked)
		slices.Sort(got)
		wantAsked := []string{real, filepath.Join(real, "a.txt"), filepath.Join(real, "secret"), filepath.Join(real, "sub"), filepath.Join(real, "sub", "b.txt")}
		if !slices.Equal(asked, wantAsked) {
			t.Errorf("walking %s, Skip was asked about\n\t%s\nwant\n\t%s", root, strings.Join(asked, "\n\t"), strings.Join(wantAsked, "\n\t"))
		}
		shown := filepath.Clean(root)
		if want := []string{filepath.Join(shown, "a.txt"), filepath.Join(shown, "sub", "b.txt")}; !slices.Equal(got, want) {
			t.Errorf("walking %s found %q, want %q", root, got, want)
		}
	}
}

func TestWalkSkippedRoot(t *testing.T) {
	base := realTempDir(t)
	writeFiles(t, base, map[string]string{"secret/key": ""})
	if err := os.Symlink("secret", filepath.Join(base, "link")); err != nil {
		t.Skip("no symlinks:", err)
	}
	secret := filepath.Join(base, "secret")
	err := Walk(t.Context(), filepath.Join(base, "link"), Options{Skip: func(p string, _ bool) bool { return p == secret }},
		func(e Entry) error { t.Errorf("visited %s", e.Path); return nil })
	var pe *fs.PathError
	if !errors.Is(err, ErrSkipped) || !errors.As(err, &pe) || pe.Path != secret {
		t.Errorf("Walk returned %v, want ErrSkipped for %s", err, secret)
	}
}

// TestWalkDoesNotFollowSwaps: a directory or a file replaced by a
// symbolic link after the walk listed it is not followed. The visit
// function makes the swap itself, so the order is certain.
func TestWalkDoesNotFollowSwaps(t *testing.T) {
	base := realTempDir(t)
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	writeFiles(t, root, map[string]string{"sub/a.txt": "inside", "f.txt": "inside"})
	writeFiles(t, outside, map[string]string{"a.txt": "OUTSIDE", "more/b.txt": "OUTSIDE"})
	swap := func(path, target string) {
		t.Helper()
		if err := os.Rename(path, path+".aside"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	var got []string
	err := Walk(t.Context(), root, Options{Dirs: true, Workers: 1}, func(e Entry) error {
		got = append(got, e.Rel())
		switch e.Rel() {
		case "sub":
			swap(e.Path, outside)
		case "f.txt":
			swap(e.Path, filepath.Join(outside, "a.txt"))
			if data, err := e.ReadFile(nil, 0); err == nil {
				t.Errorf("reading f.txt after the swap gave %q", data)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"f.txt", "sub"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// TestWalkIgnoreFileLinks: an ignore file that is a symbolic link is not
// followed, as git does not follow one, so a link to a file Skip forbids
// cannot lend it its content as patterns.
func TestWalkIgnoreFileLinks(t *testing.T) {
	base := realTempDir(t)
	root := filepath.Join(base, "root")
	writeFiles(t, base, map[string]string{"secret/patterns": "*.go\n"})
	writeFiles(t, root, map[string]string{"a.go": "", "sub/b.go": ""})
	for _, dir := range []string{root, filepath.Join(root, "sub")} {
		if err := os.Symlink(filepath.Join(base, "secret", "patterns"), filepath.Join(dir, ".gitignore")); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	secret := filepath.Join(base, "secret")
	opts := Options{Skip: func(p string, _ bool) bool { return strings.HasPrefix(p, secret) }}
	if got, want := walkAll(t, root, opts), []string{".gitignore", "a.go", "sub/.gitignore", "sub/b.go"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestWalkClosesDirectories: a walk leaves no descriptor open, however it
// ends.
func TestWalkClosesDirectories(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	root := t.TempDir()
	files := map[string]string{}
	for i := range 300 {
		files[filepath.Join("d"+string(rune('a'+i%7)), "e"+string(rune('a'+i%11)), "f"+string(rune('a'+i%26))+string(rune('a'+i/26)))] = "x"
	}
	writeFiles(t, root, files)
	open := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := open()
	boom := errors.New("boom")
	for _, stop := range []error{nil, boom, SkipAll, SkipDir} {
		for _, workers := range []int{1, 4} {
			n := 0
			var mu sync.Mutex
			err := Walk(t.Context(), root, Options{Workers: workers, Dirs: stop == SkipDir}, func(e Entry) error {
				mu.Lock()
				defer mu.Unlock()
				if n++; n == 40 {
					return stop
				}
				if e.Type.IsDir() {
					return nil
				}
				_, err := e.ReadFile(nil, 0)
				return err
			})
			if err != nil && err != boom {
				t.Fatal(err)
			}
			if after := open(); after != before {
				t.Errorf("stopping with %v on %d workers: %d descriptors open before the walk, %d after", stop, workers, before, after)
			}
		}
	}
}
