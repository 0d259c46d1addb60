package gitdir

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDirs(t *testing.T) {
	root := t.TempDir()
	for _, tt := range []struct {
		name  string
		setup func(dir string)
		want  []string // relative to dir
	}{
		{"none", func(string) {}, []string{".git"}},
		{"directory", func(dir string) { write(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n") }, []string{".git"}},
		{"gitdir file", func(dir string) {
			write(t, filepath.Join(dir, ".git"), "gitdir: ../main/.git/worktrees/wt\n")
			write(t, filepath.Join(dir, "..", "main", ".git", "worktrees", "wt", "commondir"), "../..\n")
		}, []string{"../main/.git/worktrees/wt", "../main/.git"}},
		{"absolute gitdir", func(dir string) {
			write(t, filepath.Join(dir, ".git"), "gitdir: "+filepath.Join(dir, "..", "abs", "g")+"\r\n")
		}, []string{"../abs/g"}},
		{"commondir in .git", func(dir string) { write(t, filepath.Join(dir, ".git", "commondir"), "../fake\n") }, []string{".git", "fake"}},
		{"not a pointer", func(dir string) { write(t, filepath.Join(dir, ".git"), "hello\n") }, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(root, tt.name, "w")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(dir)
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.Join(dir, w))
			}
			if got := Dirs(dir); !slices.Equal(got, want) {
				t.Errorf("Dirs = %v, want %v", got, want)
			}
		})
	}
}

// A repository as git makes it, with a submodule and a linked work tree:
// Control lists what git takes configuration and hooks from, and nothing
// of the history.
func TestControlOfARealRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base := t.TempDir()
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "protocol.file.allow=always", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	lib := filepath.Join(base, "lib")
	ws := filepath.Join(base, "ws")
	for _, d := range []string{lib, ws} {
		run(base, "init", "-q", d)
		write(t, filepath.Join(d, "a.txt"), "a\n")
		run(d, "add", "a.txt")
		run(d, "commit", "-qm", "first")
	}
	run(ws, "submodule", "add", "-q", lib, "deps/lib")
	run(ws, "commit", "-qm", "sub")
	run(ws, "worktree", "add", "-q", filepath.Join(base, "wt"))
	write(t, filepath.Join(ws, ".git", "info", "attributes"), "*.bin filter=x\n")

	got := Control(filepath.Join(ws, ".git"))
	rel := map[string]bool{}
	for _, p := range got {
		r, _ := filepath.Rel(filepath.Join(ws, ".git"), p)
		rel[filepath.ToSlash(r)] = true
	}
	for _, want := range []string{"config", "hooks", "info/attributes", "modules/deps/lib/config", "modules/deps/lib/hooks", "worktrees/wt/commondir"} {
		if !rel[want] {
			t.Errorf("Control lacks %s: %v", want, got)
		}
	}
	for r := range rel {
		for _, h := range history {
			if strings.Contains("/"+r+"/", "/"+h+"/") {
				t.Errorf("Control went into %s: %s", h, r)
			}
		}
		if strings.HasPrefix(r, "hooks/") {
			t.Errorf("Control lists a hook rather than the hooks directory: %s", r)
		}
	}

	// The linked work tree and the submodule's checkout point to them.
	if got := Dirs(filepath.Join(base, "wt")); len(got) != 2 || got[1] != filepath.Join(ws, ".git") {
		t.Errorf("Dirs(worktree) = %v", got)
	}
	if got := Dirs(filepath.Join(ws, "deps", "lib")); len(got) != 1 || got[0] != filepath.Join(ws, ".git", "modules", "deps", "lib") {
		t.Errorf("Dirs(submodule) = %v", got)
	}

	// Walk goes below the hooks directory, without following links.
	if err := os.Symlink("/etc", filepath.Join(ws, ".git", "hooks", "etc")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, ".git", "hooks", "pre-commit"), "#!/bin/sh\n")
	write(t, filepath.Join(ws, ".git", "hooks", "lib", "common.sh"), "\n")
	var hooks []string
	_ = Walk(filepath.Join(ws, ".git"), func(p string, d fs.DirEntry) error {
		if strings.HasPrefix(p, filepath.Join(ws, ".git", "hooks")+string(filepath.Separator)) {
			hooks = append(hooks, filepath.Base(p))
		}
		return nil
	})
	for _, want := range []string{"common.sh", "etc", "lib", "pre-commit", "pre-push.sample"} {
		if !slices.Contains(hooks, want) {
			t.Errorf("hooks walked: %v, no %s", hooks, want)
		}
	}
	if slices.Contains(hooks, "passwd") {
		t.Errorf("hooks walked through a link: %v", hooks)
	}
}

// On a case-insensitive file system git finds COMMONDIR as commondir:
// Walk matches the names without regard to case.
func TestWalkIgnoresCase(t *testing.T) {
	g := t.TempDir()
	for _, name := range []string{"COMMONDIR", "Config", "HOOKS/post-checkout", "Info/Attributes", "Info/exclude", "Objects/ab/config"} {
		write(t, filepath.Join(g, filepath.FromSlash(name)), "x\n")
	}
	var got []string
	_ = Walk(g, func(p string, _ fs.DirEntry) error {
		r, _ := filepath.Rel(g, p)
		got = append(got, filepath.ToSlash(r))
		return nil
	})
	slices.Sort(got)
	// Objects is not git's objects on a case-sensitive system: walked.
	want := []string{"COMMONDIR", "Config", "HOOKS", "HOOKS/post-checkout", "Info/Attributes", "Objects/ab/config"}
	if !slices.Equal(got, want) {
		t.Errorf("Walk = %v, want %v", got, want)
	}
}

// A pointer to a directory git would not use sends no one walking it,
// and a walk over a huge directory stops.
func TestRepoAndWalkBounds(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a", ".git"), "gitdir: /\n")
	if pointer, dirs := Repo(filepath.Join(dir, "a", ".git")); pointer == "" || len(dirs) != 0 {
		t.Errorf("Repo(gitdir: /) = %q, %v", pointer, dirs)
	}
	write(t, filepath.Join(dir, "b", ".git"), "gitdir: ../g\n")
	write(t, filepath.Join(dir, "g", "HEAD"), "ref: refs/heads/main\n")
	if _, dirs := Repo(filepath.Join(dir, "b", ".git")); !slices.Equal(dirs, []string{filepath.Join(dir, "g")}) {
		t.Errorf("Repo(gitdir: ../g) = %v", dirs)
	}
	big := filepath.Join(dir, "big")
	for i := range 3 {
		d := filepath.Join(big, fmt.Sprint(i))
		for j := range 10 {
			write(t, filepath.Join(d, fmt.Sprint(j)), "")
		}
		write(t, filepath.Join(d, "config"), "")
	}
	var n int
	_ = walker{visit: func(string, fs.DirEntry) error { n++; return nil }, limit: 20}.walk(big)
	if n == 0 || n == 3 {
		t.Errorf("%d control entries: the walk did not stop past its bound", n)
	}
}
