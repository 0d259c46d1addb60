package snapshot

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
)

// commit is a shell command that commits everything in the work tree.
const commit = "git add -A && git -c user.name=r -c user.email=r@r commit -q -m c"

// TestKeeperKeepsItsIndex: the texts a Keeper takes from git are the
// index's when the Keeper was made, whatever git writes into the index
// later; a file that differs from the index is read at once, or not
// known, never taken from the index; and the root may lie below the top
// of the work tree.
func TestKeeperKeepsItsIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	top := t.TempDir()
	write(t, top, map[string]string{"sub/clean.txt": "clean 1\n", "sub/staged.txt": "staged 1\n",
		"sub/dirty.txt": "dirty 1\n", "sub/big.txt": "big 1\n", "sub/1:odd.txt": "odd 1\n", "sub/large.txt": "larger than MaxKeep\n", "outside.txt": "o\n"})
	sh(t, top, "git init -q && "+commit)
	root := filepath.Join(top, "sub")
	// Staged and then changed again, changed, changed past the budget.
	write(t, root, map[string]string{"staged.txt": "staged 2\n", "added.txt": "added 1\n"})
	sh(t, root, "git add staged.txt added.txt")
	write(t, root, map[string]string{"staged.txt": "staged 3\n", "dirty.txt": "dirty 2\n", "big.txt": "big 2 big 2\n"})
	tr := NewTracker(root, Options{})
	defer tr.Close()
	syncNames(t, tr)
	k := tr.Keeper(t.Context(), KeepOptions{MaxKeep: 12, Budget: 17})
	if k.index == nil {
		t.Fatal("git was not used")
	}
	if _, read := k.texts[filepath.Join(root, "added.txt")]; read {
		t.Error("added.txt was read at once although the index holds its text")
	}
	// A command changes every file and commits: git writes a new index.
	write(t, root, map[string]string{"clean.txt": "clean 2\n", "staged.txt": "staged 4\n", "dirty.txt": "dirty 3\n",
		"big.txt": "big 3\n", "1:odd.txt": "odd 2\n", "large.txt": "l\n", "added.txt": "added 2\n"})
	sh(t, root, commit)
	for _, c := range []struct {
		name  string
		want  string
		known bool
	}{
		{"clean.txt", "clean 1\n", true},
		{"1:odd.txt", "odd 1\n", true},
		{"added.txt", "added 1\n", true}, // staged, not committed: the index's
		{"staged.txt", "staged 3\n", true},
		{"dirty.txt", "dirty 2\n", true},
		{"big.txt", "", false},   // differs from the index, past the budget
		{"large.txt", "", false}, // larger than MaxKeep
		{"new.txt", "", false},
		{"../outside.txt", "", false},
	} {
		got, _, known := k.Before(t.Context(), filepath.Join(root, c.name))
		if string(got) != c.want || known != c.known {
			t.Errorf("Before(%s) = %q, %v; want %q, %v", c.name, got, known, c.want, c.known)
		}
	}
}

// TestKeeperNestedRepository: the files of a repository nested in the
// workspace, which the outer one's git does not look into, are read at
// once.
func TestKeeperNestedRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	write(t, root, map[string]string{"a.txt": "a\n", "inner/b.txt": "b\n"})
	sh(t, filepath.Join(root, "inner"), "git init -q && "+commit)
	sh(t, root, "git init -q && git add a.txt && git -c user.name=r -c user.email=r@r commit -q -m c")
	tr := NewTracker(root, Options{})
	defer tr.Close()
	syncNames(t, tr)
	k := tr.Keeper(t.Context(), KeepOptions{})
	write(t, root, map[string]string{"a.txt": "a2\n", "inner/b.txt": "b2\n"})
	for name, want := range map[string]string{"a.txt": "a\n", "inner/b.txt": "b\n"} {
		if got, _, known := k.Before(t.Context(), filepath.Join(root, name)); string(got) != want || !known {
			t.Errorf("Before(%s) = %q, %v; want %q", name, got, known, want)
		}
	}
}

// TestKeeperCandidates: the files read at once are the smallest that
// fit in the budget, however many are offered.
func TestKeeperCandidates(t *testing.T) {
	for _, tt := range []struct {
		name    string
		sizes   []int64
		maxKeep int
		budget  int
		want    []int64
	}{
		{"all fit", []int64{3, 1, 2}, 10, 10, []int64{1, 2, 3}},
		{"budget", []int64{5, 1, 4, 2, 3}, 10, 6, []int64{1, 2, 3}},
		{"too large", []int64{1, 20, 2}, 10, 100, []int64{1, 2}},
		{"ties by path", []int64{1, 1, 1}, 10, 2, []int64{1, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCandidates(tt.maxKeep, tt.budget)
			for i, s := range tt.sizes {
				c.add(fmt.Sprint(i), s)
			}
			var got []int64
			for _, f := range c.sorted() {
				got = append(got, f.size)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("chosen %v, want %v", got, tt.want)
			}
		})
	}
	c := newCandidates(10, 1<<30)
	for i := range maxCandidates + 10 {
		c.add(fmt.Sprintf("f%06d", i), int64(i%3))
	}
	if got := c.sorted(); len(got) != maxCandidates || got[len(got)-1].size != 2 {
		t.Errorf("%d chosen, the last of %d bytes; want %d", len(got), got[len(got)-1].size, maxCandidates)
	}
}

// TestTrackerRebase: past maxStale changed files a Keeper reads only
// those, and the base read anew in the background replaces the old
// one, with what changed meanwhile still read again.
func TestTrackerRebase(t *testing.T) {
	for _, repo := range []bool{false, true} {
		t.Run(fmt.Sprintf("repo=%v", repo), func(t *testing.T) {
			root := t.TempDir()
			writeMany(t, root)
			if repo {
				sh(t, root, "git init -q && "+commit)
			}
			tr := NewTracker(root, Options{})
			defer tr.Close()
			syncNames(t, tr)
			first := tr.Keeper(t.Context(), KeepOptions{})
			sh(t, root, "for f in f*.txt; do echo 2 > $f; done")
			syncNames(t, tr)

			// The Keeper that starts the rebase; here the test runs
			// it instead, with a change in the middle.
			tr.mu.Lock()
			r := &rebase{}
			tr.rebasing = r
			tr.mu.Unlock()
			second := tr.Keeper(t.Context(), KeepOptions{})
			files2 := tr.listFiles(func() {})
			started := keeperFiles{start: func() {
				tr.mu.Lock()
				defer tr.mu.Unlock()
				r.stale, tr.stale = tr.stale, map[string]bool{}
			}, all: files2.all}
			k := newKeeper(t.Context(), tr.root, started, KeepOptions{})
			sh(t, root, "echo 3 > f0001.txt")
			syncNames(t, tr)
			// Meanwhile, the old base and every stale path.
			meanwhile := tr.Keeper(t.Context(), KeepOptions{})
			tr.mu.Lock()
			if tr.rebasing != r {
				t.Fatal("a second rebase started")
			}
			tr.rebasing, tr.kept = nil, k
			tr.mu.Unlock()
			third := tr.Keeper(t.Context(), KeepOptions{})
			checkKnown(t, root, []knownText{
				{first, "f0001.txt", "1"},
				{second, "f0001.txt", "2\n"},
				{second, "f0500.txt", "2\n"},
				{meanwhile, "f0001.txt", "3\n"},
				{meanwhile, "f0500.txt", "2\n"},
				{third, "f0001.txt", "3\n"},
				{third, "f0500.txt", "2\n"},
			})
			if len(third.over) != 1 {
				t.Errorf("the Keeper after the rebase read %d files again, want 1", len(third.over))
			}
		})
	}
}

// TestTrackerRebaseInBackground: a Keeper past maxStale starts reading
// the base anew, and whatever it has done when the next Keeper is made,
// that Keeper's texts are right.
func TestTrackerRebaseInBackground(t *testing.T) {
	root := t.TempDir()
	writeMany(t, root)
	tr := NewTracker(root, Options{})
	defer tr.Close()
	syncNames(t, tr)
	tr.Keeper(t.Context(), KeepOptions{})
	sh(t, root, "for f in f*.txt; do echo 2 > $f; done")
	syncNames(t, tr)
	second := tr.Keeper(t.Context(), KeepOptions{})
	sh(t, root, "echo 3 > f0001.txt")
	syncNames(t, tr)
	third := tr.Keeper(t.Context(), KeepOptions{})
	checkKnown(t, root, []knownText{
		{second, "f0001.txt", "2\n"},
		{third, "f0001.txt", "3\n"},
		{third, "f0002.txt", "2\n"},
	})
}

// writeMany writes more than maxStale files, f0000.txt and on, each
// holding "1".
func writeMany(t *testing.T, root string) {
	t.Helper()
	files := map[string]string{}
	for i := range maxStale + 10 {
		files[fmt.Sprintf("f%04d.txt", i)] = "1"
	}
	write(t, root, files)
}

// A knownText is the text a Keeper should give for a file below root.
type knownText struct {
	k          *Keeper
	name, want string
}

func checkKnown(t *testing.T, root string, cases []knownText) {
	t.Helper()
	for _, c := range cases {
		if got, _, known := c.k.Before(t.Context(), filepath.Join(root, c.name)); string(got) != c.want || !known {
			t.Errorf("Before(%s) = %q, %v; want %q", c.name, got, known, c.want)
		}
	}
}
