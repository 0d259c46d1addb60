package snapshot

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools/permission"
)

func isControl(rel string) bool {
	_, ok := permission.ControlRoot(rel)
	return ok
}

// sh runs a shell command in dir, as the bash tool would.
func sh(t *testing.T, dir, command string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
}

// syncNames syncs tr and renders what it found as diffNames does, with
// "*path" for a new repository.
func syncNames(t *testing.T, tr *Tracker) ([]string, Changes) {
	t.Helper()
	c, err := tr.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := diffNames(tr.root, c.Diffs)
	for _, r := range c.NewRepos {
		rel, _ := filepath.Rel(tr.root, r)
		got = append(got, "*"+filepath.ToSlash(rel))
	}
	slices.Sort(got)
	return got, c
}

// sameAsTake checks that what the Tracker holds is what a snapshot taken
// now lists: the files, their metadata and the control paths.
func sameAsTake(t *testing.T, tr *Tracker) {
	t.Helper()
	want, err := Take(t.Context(), tr.root, tr.opts)
	if err != nil {
		t.Fatal(err)
	}
	got := snapshotOf(tr)
	if d := diffNames(tr.root, Diff(want, got)); len(d) > 0 {
		t.Errorf("the tracker differs from a snapshot: %q", d)
	}
	if g, w := tr.Control(), want.Control(); !slices.Equal(g, w) {
		t.Errorf("control paths %q, want %q", g, w)
	}
	if g, w := slices.Sorted(maps.Keys(got.repos)), slices.Sorted(maps.Keys(want.repos)); !slices.Equal(g, w) {
		t.Errorf("repositories %q, want %q", g, w)
	}
}

// TestTracker: commands in turn, each reported alone, with the ignore
// files, the skip rule and the control names holding as in a snapshot.
func TestTracker(t *testing.T) {
	for _, repo := range []bool{false, true} {
		t.Run(fmt.Sprintf("repo=%v", repo), func(t *testing.T) { testTracker(t, repo) })
	}
}

func testTracker(t *testing.T, repo bool) {
	root := t.TempDir()
	if repo {
		sh(t, root, "git init -q")
	}
	write(t, root, map[string]string{
		"a.txt": "a", "sub/b.txt": "b", "sub/deep/c.txt": "c",
		".gitignore": "build/\n*.log\n.vscode/\n", "build/out.bin": "x",
		"secret/key": "k", ".vscode/settings.json": "{}",
	})
	secret := filepath.Join(root, "secret")
	if real, err := filepath.EvalSymlinks(secret); err == nil {
		secret = real
	}
	opts := Options{Control: isControl, Skip: func(p string, _ bool) bool { return p == secret }}
	tr := NewTracker(root, opts)
	defer tr.Close()
	if got, c := syncNames(t, tr); len(got) > 0 || c.Notice != "" {
		t.Fatalf("the first listing reported %q, %q", got, c.Notice)
	}
	sameAsTake(t, tr)
	k := tr.Keeper(t.Context(), KeepOptions{})
	for _, step := range []struct {
		command string
		want    []string
	}{
		{"echo more >> sub/deep/c.txt", []string{"~sub/deep/c.txt"}},
		{"true", nil},
		{"ln -s sub/b.txt link && mkfifo fifo", []string{"+fifo", "+link"}},
		{"rm a.txt && echo n > new.txt && echo l > x.log", []string{"+new.txt", "-a.txt"}},
		{"mkdir -p n1/n2 && echo d > n1/n2/d.txt", []string{"+n1/n2/d.txt"}},
		{"mv sub moved", []string{"+moved/b.txt", "+moved/deep/c.txt", "-sub/b.txt", "-sub/deep/c.txt"}},
		{"echo y > moved/deep/y.txt", []string{"+moved/deep/y.txt"}},
		{"rm -r n1", []string{"-n1/n2/d.txt"}},
		{"echo z > build/z && echo s > secret/s", nil},
		// Control paths are listed though the ignore files leave them
		// out; a nested repository's .git is reported.
		{"echo '{\"x\":1}' > .vscode/settings.json && mkdir -p pkg && echo t > pkg/reasonix.toml", []string{"+pkg/reasonix.toml", "~.vscode/settings.json"}},
		// Below a directory kept for its name, no ignore rule holds.
		{"echo l > .vscode/x.log && mkdir .vscode/sub && echo m > .vscode/sub/m.log", []string{"+.vscode/sub/m.log", "+.vscode/x.log"}},
		{"mkdir -p repo/.git && echo r > repo/r.txt", []string{"*repo/.git", "+repo/r.txt"}},
		// A changed ignore file shows what it no longer leaves out.
		// .vscode is no longer kept, so *.log holds in it too.
		{"echo '*.log' > .gitignore", []string{"+build/out.bin", "+build/z", "-.vscode/sub/m.log", "-.vscode/x.log", "~.gitignore"}},
		{"echo q > moved/deep/q.log", nil},
		{"rm .gitignore", []string{"+.vscode/sub/m.log", "+.vscode/x.log", "+moved/deep/q.log", "+x.log", "-.gitignore"}},
	} {
		sh(t, root, step.command)
		got, c := syncNames(t, tr)
		if !slices.Equal(got, step.want) {
			t.Errorf("%s: got %q, want %q", step.command, got, step.want)
		}
		if c.Notice != "" {
			t.Errorf("%s: notice %q", step.command, c.Notice)
		}
		sameAsTake(t, tr)
	}
	// The Keeper holds the texts from before the first command.
	for name, want := range map[string]string{"sub/deep/c.txt": "c", "a.txt": "a"} {
		if text, _, known := k.Before(t.Context(), filepath.Join(root, name)); !known || string(text) != want {
			t.Errorf("Before(%s) = %q, %v; want %q", name, text, known, want)
		}
	}
}

// snapshotOf returns the files the Tracker knows as a Snapshot.
func snapshotOf(t *Tracker) *Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := &Snapshot{Root: t.root, files: map[string]stat{}, repos: maps.Clone(t.repos)}
	for dir, d := range t.dirs {
		for name, st := range d.files.all() {
			s.files[filepath.Join(dir, name)] = stat{size: st.size(), mtime: time.Unix(0, st.mtime), mode: st.mode()}
		}
	}
	s.control = slices.Collect(maps.Keys(t.control))
	return s
}

// TestTrackerWindows: commands that run at once each get what changed
// while they ran, though the other synced meanwhile.
func TestTrackerWindows(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"a.txt": "a"})
	tr := NewTracker(root, Options{})
	defer tr.Close()
	begin := func() *Window {
		w, _, err := tr.Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	end := func(w *Window) []string {
		c, err := tr.End(t.Context(), w)
		if err != nil {
			t.Fatal(err)
		}
		return diffNames(root, c.Diffs)
	}
	wa := begin()
	sh(t, root, "echo b > b.txt")
	wb := begin()
	sh(t, root, "echo c > c.txt && echo more >> a.txt")
	if got, want := end(wb), []string{"+c.txt", "~a.txt"}; !slices.Equal(got, want) {
		t.Errorf("the second window: %q, want %q", got, want)
	}
	sh(t, root, "echo again >> a.txt")
	if got, want := end(wa), []string{"+b.txt", "+c.txt", "~a.txt"}; !slices.Equal(got, want) {
		t.Errorf("the first window: %q, want %q", got, want)
	}
	// Closed, it still finds the changes, by listing everything.
	tr.Close()
	wc := begin()
	sh(t, root, "rm b.txt")
	if got, want := end(wc), []string{"-b.txt"}; !slices.Equal(got, want) {
		t.Errorf("after Close: %q, want %q", got, want)
	}
}

// bigTree makes n empty files below root, 1,000 to a directory two
// levels down, and returns the path of one deep inside.
func bigTree(t testing.TB, root string, n int) string {
	t.Helper()
	var last string
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", i/10_000), fmt.Sprintf("e%02d", i/1_000%10))
		if i%1_000 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		last = filepath.Join(dir, fmt.Sprintf("f%d", i))
		if err := os.WriteFile(last, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return last
}

// TestTrackerKeepers: a later Keeper reads again only what the Tracker
// saw change, and an earlier Keeper keeps the texts it had.
func TestTrackerKeepers(t *testing.T) {
	for _, repo := range []bool{false, true} {
		t.Run(fmt.Sprintf("repo=%v", repo), func(t *testing.T) {
			root := t.TempDir()
			write(t, root, map[string]string{"a.txt": "a", "b.txt": "b", "gone.txt": "g", "big.txt": "0123456789"})
			if repo {
				sh(t, root, "git init -q && git add a.txt big.txt && git -c user.name=r -c user.email=r@r commit -q -m one")
			}
			tr := NewTracker(root, Options{})
			defer tr.Close()
			syncNames(t, tr)
			opts := KeepOptions{MaxKeep: 5}
			first := tr.Keeper(t.Context(), opts)
			sh(t, root, "echo a2 > a.txt && rm gone.txt && echo n > new.txt && echo 01234 > big.txt")
			syncNames(t, tr)
			second := tr.Keeper(t.Context(), opts)
			sh(t, root, "echo a3 > a.txt")
			syncNames(t, tr)
			other := tr.Keeper(t.Context(), KeepOptions{})
			for _, c := range []struct {
				k     *Keeper
				name  string
				want  string
				known bool
			}{
				{first, "a.txt", "a", true},
				{first, "b.txt", "b", true},
				{first, "gone.txt", "g", true},
				{first, "big.txt", "", false},
				{second, "a.txt", "a2\n", true},
				{second, "b.txt", "b", true},
				{second, "gone.txt", "", false},
				{second, "new.txt", "n\n", true},
				{second, "big.txt", "", false}, // six bytes now
				{other, "a.txt", "a3\n", true},
				{other, "big.txt", "01234\n", true},
			} {
				got, _, known := c.k.Before(t.Context(), filepath.Join(root, c.name))
				if string(got) != c.want || known != c.known {
					t.Errorf("Before(%s) = %q, %v; want %q, %v", c.name, got, known, c.want, c.known)
				}
			}
			if tr.kept == first || tr.kept != other {
				t.Errorf("the base was not read anew with other options")
			}
		})
	}
}
