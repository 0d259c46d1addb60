package snapshot

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reasonix/reasonix/tools/permission"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// diffNames renders a diff as "+path", "-path", "~path", sorted.
func diffNames(root string, d []Difference) []string {
	var out []string
	for _, x := range d {
		rel, _ := filepath.Rel(root, x.Path)
		switch {
		case x.Created:
			rel = "+" + rel
		case x.Deleted:
			rel = "-" + rel
		default:
			rel = "~" + rel
		}
		out = append(out, filepath.ToSlash(rel))
	}
	slices.Sort(out)
	return out
}

// TestDiffAndKeeper: outside a repository, a diff finds created, changed
// and deleted files, ignored ones left out, and the Keeper gives the
// texts they had.
func TestDiffAndKeeper(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"a.txt": "alpha\n", "b.txt": "beta\n", "sub/c.txt": "gamma\n",
		".gitignore": "build/\n", "build/out.bin": "x",
	})
	before, err := Take(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if before.Len() != 4 {
		t.Errorf("listed %d files, want 4 (build/ is ignored)", before.Len())
	}
	k := NewKeeper(t.Context(), before, KeepOptions{})
	write(t, root, map[string]string{"a.txt": "alpha two\n", "new.txt": "n", "build/out.bin": "yy"})
	os.Remove(filepath.Join(root, "sub/c.txt"))
	after, err := Take(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := diffNames(root, Diff(before, after))
	if want := []string{"+new.txt", "-sub/c.txt", "~a.txt"}; !slices.Equal(got, want) {
		t.Errorf("diff %q, want %q", got, want)
	}
	for name, want := range map[string]string{"a.txt": "alpha\n", "sub/c.txt": "gamma\n"} {
		text, existed, known := k.Before(t.Context(), filepath.Join(root, name))
		if !existed || !known || string(text) != want {
			t.Errorf("Before(%s) = %q, %v, %v; want %q", name, text, existed, known, want)
		}
	}
	if _, existed, known := k.Before(t.Context(), filepath.Join(root, "new.txt")); existed || !known {
		t.Errorf("Before(new.txt): existed %v, known %v; want a file that did not exist", existed, known)
	}
}

// TestKeeperBudget: files past the size bound or the budget are listed
// but their text is unknown.
func TestKeeperBudget(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"small.txt": "12345", "mid.txt": "1234567890", "big.txt": "123456789012345678901234567890"})
	snap, err := Take(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := NewKeeper(t.Context(), snap, KeepOptions{MaxKeep: 20, Budget: 12})
	for name, wantKnown := range map[string]bool{"small.txt": true, "mid.txt": false, "big.txt": false} {
		if _, existed, known := k.Before(t.Context(), filepath.Join(root, name)); !existed || known != wantKnown {
			t.Errorf("Before(%s): existed %v, known %v; want known %v", name, existed, known, wantKnown)
		}
	}
}

// TestKeeperGit: in a repository, a file git holds unchanged is read
// from git when asked, and a file changed before the Keeper was made is
// read at once, so both come back as they were.
func TestKeeperGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	write(t, root, map[string]string{"clean.go": "package a\n", "dirty.go": "package a // v1\n"})
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write(t, root, map[string]string{"dirty.go": "package a // v2\n", "untracked.txt": "u\n"})
	snap, err := Take(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := NewKeeper(t.Context(), snap, KeepOptions{})
	if k.index == nil || k.dirty[filepath.Join(root, "clean.go")] {
		t.Errorf("clean.go is not taken from git: index %v, dirty %v", k.index, k.dirty)
	}
	if _, ok := k.texts[filepath.Join(root, "clean.go")]; ok {
		t.Error("clean.go was read although git holds it")
	}
	write(t, root, map[string]string{"clean.go": "package b\n", "dirty.go": "package a // v3\n", "untracked.txt": "v\n"})
	for name, want := range map[string]string{"clean.go": "package a\n", "dirty.go": "package a // v2\n", "untracked.txt": "u\n"} {
		text, existed, known := k.Before(t.Context(), filepath.Join(root, name))
		if !existed || !known || string(text) != want {
			t.Errorf("Before(%s) = %q, %v, %v; want %q", name, text, existed, known, want)
		}
	}
}

// TestTooManyFiles: a tree past MaxFiles is refused, not listed in part.
func TestTooManyFiles(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"a": "", "b": "", "c": ""})
	if _, err := Take(t.Context(), root, Options{MaxFiles: 2}); err == nil {
		t.Error("Take listed 3 files with MaxFiles 2")
	}
}

// With Options.Control, a snapshot lists the control files it finds, even
// those the ignore files leave out, and the repositories, and tells the
// repositories made between two snapshots.
func TestSnapshotControl(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		".gitignore": ".vscode/\n", "pkg/reasonix.toml": "", "pkg/.vscode/tasks.json": "",
		"a.go": "", "lib/.git/HEAD": "",
	})
	control := func(rel string) bool {
		_, ok := permission.ControlRoot(rel)
		return ok
	}
	rels := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	before, err := Take(t.Context(), root, Options{Control: control})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rels(before.Control()), []string{"lib/.git", "pkg/.vscode/tasks.json", "pkg/reasonix.toml"}; !slices.Equal(got, want) {
		t.Errorf("Control = %v, want %v", got, want)
	}
	write(t, root, map[string]string{"new/.git/HEAD": "", "pkg/.vscode/settings.json": ""})
	after, err := Take(t.Context(), root, Options{Control: control})
	if err != nil {
		t.Fatal(err)
	}
	if got := rels(NewRepos(before, after)); !slices.Equal(got, []string{"new/.git"}) {
		t.Errorf("NewRepos = %v", got)
	}
	if got := diffNames(root, Diff(before, after)); !slices.Equal(got, []string{"+pkg/.vscode/settings.json"}) {
		t.Errorf("Diff = %v", got)
	}
	// Without it, nothing changes from a plain listing.
	plain, err := Take(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Len() != 3 || len(plain.Control()) != 0 {
		t.Errorf("plain: %d files, control %v", plain.Len(), plain.Control())
	}
}
