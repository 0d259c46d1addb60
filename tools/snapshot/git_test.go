package snapshot

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A gitStage is a repository whose configuration makes git run programs
// that leave markers.
type gitStage struct {
	t     *testing.T
	marks string // where the planted programs leave their markers
}

// newGitStage isolates git from the machine's and the user's
// configuration: what runs is what the test planted.
func newGitStage(t *testing.T) *gitStage {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", t.TempDir())
	for _, v := range unsafeVars {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	return &gitStage{t: t, marks: t.TempDir()}
}

// mark returns a shell command that leaves the marker name and passes
// its input through, as a filter must.
func (s *gitStage) mark(name string) string {
	return "touch " + filepath.Join(s.marks, name) + "; cat >/dev/null <&- 2>&-; :"
}

// markThrough is mark for a filter: it passes its input through.
func (s *gitStage) markThrough(name string) string {
	return "touch " + filepath.Join(s.marks, name) + "; cat"
}

// script writes an executable that leaves the marker name.
func (s *gitStage) script(dir, name string) string {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\ntouch "+filepath.Join(s.marks, name)+"\n"), 0o755); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// ran returns the markers left since the last call, and clears them.
func (s *gitStage) ran() []string {
	ents, _ := os.ReadDir(s.marks)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
		os.Remove(filepath.Join(s.marks, e.Name()))
	}
	slices.Sort(out)
	return out
}

// git runs the user's own git, as it would run in a terminal.
func (s *gitStage) git(dir, stdin string, args ...string) string {
	s.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "protocol.file.allow=always", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// repo makes a repository at dir with a.txt and b.dat committed.
func (s *gitStage) repo(dir string) {
	s.t.Helper()
	s.git(filepath.Dir(dir), "", "init", "-q", dir)
	for name, text := range map[string]string{"a.txt": "alpha\n", "b.dat": "beta\n", "e.txt": "epsilon\n", ".gitattributes": "*.txt filter=evil diff=evil\n*.dat filter=a=b\n*.bin filter=evilp\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	s.git(dir, "", "add", ".")
	if out := s.git(dir, "", "commit", "-qm", "first"); strings.Contains(out, "fatal") {
		s.t.Fatalf("commit: %s", out)
	}
}

// superproject makes a repository below base with a submodule, sub,
// whose configuration is planted, and returns the superproject.
func (s *gitStage) superproject(base string) string {
	s.t.Helper()
	lib := filepath.Join(base, "lib")
	s.repo(lib)
	ws := filepath.Join(base, "ws")
	s.repo(ws)
	s.git(ws, "", "submodule", "add", "-q", lib, "sub")
	s.git(ws, "", "commit", "-qm", "sub")
	s.plant(filepath.Join(ws, ".git", "modules", "sub", "config"))
	return ws
}

// plant sets, in the configuration file cfg (a repository's, its common
// directory's, a submodule's), everything that makes git run a program.
func (s *gitStage) plant(cfg string) {
	s.t.Helper()
	hooks := filepath.Join(filepath.Dir(cfg), "evil-hooks")
	for _, h := range []string{"post-index-change", "post-checkout"} {
		s.script(hooks, "hook-"+h)
		if err := os.Rename(filepath.Join(hooks, "hook-"+h), filepath.Join(hooks, h)); err != nil {
			s.t.Fatal(err)
		}
		// The script leaves its marker under its first name.
		os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\ntouch "+filepath.Join(s.marks, "hook-"+h)+"\n"), 0o755)
	}
	for _, kv := range [][2]string{
		{"core.fsmonitor", s.mark("fsmonitor")},
		{"core.hooksPath", hooks},
		{"filter.evil.clean", s.markThrough("filter-clean")},
		{"filter.evil.smudge", s.markThrough("filter-smudge")},
		{"filter.a=b.clean", s.markThrough("filter-odd-name")},
		{"filter.evilp.process", s.mark("filter-process")},
		{"diff.evil.textconv", s.markThrough("textconv")},
		{"diff.external", s.mark("external-diff")},
		{"core.sshCommand", s.mark("ssh")},
		{"remote.origin.url", "ssh://git@example.invalid/x.git"},
		{"credential.helper", "!" + s.mark("credential-helper")},
		{"core.askPass", s.script(filepath.Join(filepath.Dir(cfg), "bin"), "askpass")},
		{"core.pager", s.mark("pager")},
	} {
		if out := s.git(filepath.Dir(cfg), "", "config", "--file", cfg, kv[0], kv[1]); out != "" {
			s.t.Fatalf("git config %s: %s", kv[0], out)
		}
	}
}

// dirty leaves the work tree so that git must run the planted programs
// to tell what changed: a.txt and b.dat touched (same size, new time, so
// only their filtered content tells), e.txt changed (for a diff, and a
// checkout to bring it back), a new c.bin.
func (s *gitStage) dirty(dir string) {
	s.t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{"a.txt", "b.dat"} {
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			s.t.Fatal(err)
		}
	}
	for name, text := range map[string]string{"e.txt": "epsilon two\n", "c.bin": "gamma\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
}

// triggers are git commands, each of which runs some of the planted
// programs in the user's git, with their standard input.
var triggers = []struct {
	stdin string
	args  []string
}{
	{"", []string{"status", "--porcelain"}},
	{"", []string{"add", "c.bin"}},
	{"", []string{"update-index", "--refresh"}},
	{"", []string{"diff", "HEAD"}},
	{"", []string{"diff", "--no-ext-diff", "HEAD"}},
	{"", []string{"checkout", "--", "e.txt"}},
	{"", []string{"fetch", "origin"}},
	{"protocol=https\nhost=example.invalid\n\n", []string{"credential", "fill"}},
}

// TestGitRunsNothingTheRepositoryChose: a repository whose configuration
// — its own, the one its commondir names, a submodule's — makes git run
// programs (core.fsmonitor, hooks, filter drivers picked by attributes,
// textconv, an external diff, an ssh command, a credential helper, an
// askpass program) runs them in the user's git, and none of them in
// Reasonix's: neither on the Keeper's paths nor on any other command
// through the same runner.
func TestGitRunsNothingTheRepositoryChose(t *testing.T) {
	for _, tt := range []struct {
		name string
		// setup makes the repository below base, plants, and returns
		// the work tree Reasonix works in.
		setup func(s *gitStage, base string) string
		// some: the user's git runs only some of the planted programs
		// there (a superproject's commands reach into a submodule for
		// its status alone).
		some []string
	}{
		{"its own config", func(s *gitStage, base string) string {
			ws := filepath.Join(base, "ws")
			s.repo(ws)
			s.plant(filepath.Join(ws, ".git", "config"))
			return ws
		}, nil},
		{"the config its commondir names", func(s *gitStage, base string) string {
			ws := filepath.Join(base, "ws")
			s.repo(ws)
			fake := filepath.Join(base, "fake")
			if out, err := exec.Command("cp", "-r", filepath.Join(ws, ".git"), fake).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v: %s", err, out)
			}
			s.plant(filepath.Join(fake, "config"))
			if err := os.WriteFile(filepath.Join(ws, ".git", "commondir"), []byte("../../fake\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return ws
		}, nil},
		{"a submodule's config, from the submodule", func(s *gitStage, base string) string {
			return filepath.Join(s.superproject(base), "sub")
		}, nil},
		{"a submodule's config, from the superproject", func(s *gitStage, base string) string {
			ws := s.superproject(base)
			s.dirty(filepath.Join(ws, "sub"))
			return ws
		}, []string{"filter-clean", "filter-odd-name", "fsmonitor", "hook-post-index-change"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newGitStage(t)
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			ws := tt.setup(s, base)
			if _, err := os.Stat(filepath.Join(ws, ".gitattributes")); err != nil {
				t.Fatal(err)
			}
			s.ran() // what setting up ran

			// The stage is real: the user's git runs the programs.
			s.dirty(ws)
			var plain []string
			for _, tr := range triggers {
				s.git(ws, tr.stdin, tr.args...)
				plain = append(plain, s.ran()...)
			}
			slices.Sort(plain)
			plain = slices.Compact(plain)
			want := []string{"askpass", "credential-helper", "external-diff", "filter-clean", "filter-odd-name", "filter-process",
				"filter-smudge", "fsmonitor", "hook-post-checkout", "hook-post-index-change", "ssh", "textconv"}
			if tt.some != nil {
				want = tt.some
			}
			if !slices.Equal(plain, want) {
				t.Fatalf("the user's git ran %v, want %v", plain, want)
			}

			// Reasonix's runs none, on the Keeper's paths...
			ctx := t.Context()
			s.git(ws, "", "reset", "-q")
			s.dirty(ws)
			s.ran()
			snap, err := Take(ctx, ws, Options{})
			if err != nil {
				t.Fatal(err)
			}
			k := NewKeeper(ctx, snap, KeepOptions{})
			a := filepath.Join(ws, ".gitattributes")
			if _, read := k.texts[a]; k.index == nil || read {
				t.Fatalf("git was not used: index %v, .gitattributes read at once: %v", k.index, read)
			}
			os.WriteFile(a, []byte("changed\n"), 0o644)
			if text, existed, known := k.Before(ctx, a); !existed || !known || !strings.HasPrefix(string(text), "*.txt") {
				t.Errorf("Before(.gitattributes) = %q, %v, %v", text, existed, known)
			}
			if got := s.ran(); len(got) > 0 {
				t.Errorf("Reasonix's git ran %v on the Keeper's paths", got)
			}
			// ...nor on any other command.
			g, err := newGit(ctx, ws)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range triggers {
				cmd := exec.CommandContext(ctx, "git", append([]string{"--no-pager"}, tr.args...)...)
				cmd.Dir, cmd.Env, cmd.Stdin = ws, g.env, strings.NewReader(tr.stdin)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				_ = cmd.Run()
				if got := s.ran(); len(got) > 0 {
					t.Errorf("Reasonix's git %v ran %v:\n%s", tr.args, got, out.String())
				}
			}
		})
	}
}

func TestFilterSettings(t *testing.T) {
	out := []byte("filter.lfs.clean\ngit-lfs clean -- %f\x00filter.lfs.smudge\ngit-lfs smudge\x00filter.a=b.c.clean\nx\x00diff.Evil.textconv\ny\x00diff.external\nz\x00")
	got := filterSettings(out)
	want := [][2]string{
		{"filter.lfs.clean", ""}, {"filter.lfs.smudge", ""}, {"filter.lfs.process", ""}, {"filter.lfs.required", "false"},
		{"filter.a=b.c.clean", ""}, {"filter.a=b.c.smudge", ""}, {"filter.a=b.c.process", ""}, {"filter.a=b.c.required", "false"},
		{"diff.Evil.textconv", ""}, {"diff.Evil.command", ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("filterSettings = %v\nwant %v", got, want)
	}
}
