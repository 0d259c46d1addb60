package builtin

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// TestFileToolAttacks: paths that try to make the file tools write
// outside the workspace. TestReadToolAttacks covers reads.
func TestFileToolAttacks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses /proc/self/root")
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "target.txt"), []byte("outside"), 0o644)

	env := testEnv(t, map[string]string{"ok.txt": "fine\n"})
	env.Guard = sandbox.New([]string{env.Root}, nil)
	root := env.Root
	os.Symlink(outside, filepath.Join(root, "outdir"))
	os.Symlink(filepath.Join(outside, "target.txt"), filepath.Join(root, "outfile.txt"))
	// A hard link made before Reasonix ran: writes replace the directory
	// entry, never the shared inode, so the outside file keeps its text.
	hard := filepath.Join(root, "hard.txt")
	if err := os.Link(filepath.Join(outside, "target.txt"), hard); err != nil {
		t.Skipf("no hard links across these directories: %v", err)
	}

	refused := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"write_file", map[string]any{"path": "../" + filepath.Base(outside) + "/x.txt", "content": "x"}, "outside"},
		{"write_file", map[string]any{"path": filepath.Join(outside, "x.txt"), "content": "x"}, "outside"},
		{"write_file", map[string]any{"path": "/proc/self/root" + outside + "/x.txt", "content": "x"}, "outside"},
		{"write_file", map[string]any{"path": "/proc/self/root/etc/reasonix-attack", "content": "x"}, "outside"},
		{"write_file", map[string]any{"path": "outdir/x.txt", "content": "x"}, "outside"},
		{"write_file", map[string]any{"path": "outfile.txt", "content": "x"}, "outside"},
		{"write_file", map[string]any{"path": "ok.txt/../../" + filepath.Base(outside) + "/x.txt", "content": "x"}, "outside"},
		{"edit_file", map[string]any{"path": "outfile.txt", "old_string": "outside", "new_string": "pwned"}, "outside"},
		{"move_file", map[string]any{"source": "ok.txt", "destination": "outdir/ok.txt"}, "outside"},
		{"move_file", map[string]any{"source": "outfile.txt", "destination": "moved.txt"}, "outside"},
		{"apply_patch", map[string]any{"patch": "--- /dev/null\n+++ b/outdir/p.txt\n@@ -0,0 +1 @@\n+x\n"}, "outside"},
	}
	for _, tt := range refused {
		res := call(t, env, tt.tool, tt.args)
		if !res.IsError || !strings.Contains(res.Content, tt.want) || strings.Contains(res.Content, "PRIVATE") {
			t.Errorf("%s %v: %s", tt.tool, tt.args, res.Content)
		}
	}
	// The hard link: writing it replaces the link, not the outside file.
	if res := call(t, env, "write_file", map[string]any{"path": "hard.txt", "content": "new"}); res.IsError {
		t.Fatal(res.Content)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "target.txt")); string(b) != "outside" {
		t.Errorf("the write went through the hard link: %q", b)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside now holds %d entries", len(entries))
	}
	if _, err := os.Stat("/etc/reasonix-attack"); err == nil {
		t.Error("/etc/reasonix-attack was written")
	}
}

// The fake secrets hold secretText. No read tool may ever show secretMark,
// or list a name only the secret directories hold. Searches look for
// "PRIVATE", which a harmless file beside them holds too, so a walk that
// fails outright cannot pass for one that kept out of the secrets.
const (
	secretText = "PRIVATE KEY s3cr3t-payload\n"
	secretMark = "s3cr3t-payload"
)

// attackHome makes a fake home with secrets in two directories forbidden
// by default and a harmless project, points HOME at it, and returns an
// Env whose guard forbids those directories.
func attackHome(t *testing.T, files map[string]string) (env *tools.Env, home string) {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		".ssh/id_rsa":      secretText,
		".aws/credentials": secretText,
		"proj/notes.txt":   "PRIVATE notes, harmless\n",
	} {
		p := filepath.Join(home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	env = testEnv(t, files)
	env.Guard = sandbox.New([]string{env.Root}, sandbox.HomeDefaults(home))
	return env, home
}

// leaked reports what of the secrets a result shows. A tool may repeat
// the path it was given, and a refusal may name the file it refuses (a
// link's target, which ls shows anyway).
func leaked(res tools.Result, given string) string {
	content := strings.ReplaceAll(res.Content, given, "")
	names := !res.IsError
	switch {
	case strings.Contains(content, secretMark):
		return "the secret's content"
	case names && strings.Contains(content, "id_rsa"):
		return "the secret's name id_rsa"
	case names && strings.Contains(content, "credentials"):
		return "the secret's name credentials"
	}
	return ""
}

// TestReadToolAttacks: every read tool, given every spelling of a path
// into a secret directory or of a directory above one, shows nothing of
// the secrets. Each spelling is one a model can write: /proc's magic
// links to the root and the working directory, ".." and "//", "~/", and
// symbolic links in the workspace, absolute or relative, to the home, to
// the secret directory itself and to /proc/self/root.
func TestReadToolAttacks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses /proc")
	}
	env, home := attackHome(t, map[string]string{"ok.txt": "fine\n"})
	ssh := filepath.Join(home, ".ssh")
	relHome, _ := filepath.Rel(env.Root, home)
	relSSH, _ := filepath.Rel(env.Root, ssh)
	for name, target := range map[string]string{
		"home-abs": home, "home-rel": relHome,
		"ssh-abs": ssh, "ssh-rel": relSSH,
		"procroot": "/proc/self/root",
	} {
		if err := os.Symlink(target, filepath.Join(env.Root, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(home) // for /proc/self/cwd

	// spellings returns the ways to name target, which is home or below.
	spellings := func(target string) map[string]string {
		below, _ := filepath.Rel(home, target)
		fromRoot, _ := filepath.Rel(env.Root, target)
		s := map[string]string{
			"absolute":                target,
			"/proc/self/root":         "/proc/self/root" + target,
			"/proc/thread-self/root":  "/proc/thread-self/root" + target,
			"/proc/self/cwd":          "/proc/self/cwd/" + below,
			"..":                      fromRoot,
			"//":                      strings.ReplaceAll(target, "/", "//"),
			"~/":                      "~/" + below,
			"link to home (absolute)": "home-abs/" + below,
			"link to home (relative)": "home-rel/" + below,
			"link to /proc/self/root": "procroot" + target,
		}
		if inSSH, err := filepath.Rel(ssh, target); err == nil && !strings.HasPrefix(inSSH, "..") {
			s["link to .ssh (absolute)"] = "ssh-abs/" + inSSH
			s["link to .ssh (relative)"] = "ssh-rel/" + inSSH
		}
		return s
	}
	type attack struct {
		tool string
		args map[string]any
	}
	cases, failed := 0, 0
	check := func(how string, a attack, fail func(tools.Result) string) {
		t.Helper()
		cases++
		res := call(t, env, a.tool, a.args)
		if why := fail(res); why != "" {
			failed++
			t.Errorf("%s %v (%s, %T): %s:\n%s", a.tool, a.args, how, env.FS, why, res.Content)
		}
	}

	// The disk, and an editor's overlay that holds none of these files.
	for _, fsys := range []tools.FS{tools.DiskFS{}, overlayFS{}} {
		env.FS = fsys
		// Above the secrets: the walks find the harmless file, and neither
		// the secrets nor their names.
		for how, p := range spellings(home) {
			for _, a := range []attack{
				{"grep", map[string]any{"pattern": "PRIVATE", "path": p}},
				{"grep", map[string]any{"pattern": "PRIVATE", "path": p, "output_mode": "files_with_matches"}},
				{"glob", map[string]any{"pattern": "**/*", "path": p}},
				{"glob", map[string]any{"pattern": "**/id_*", "path": p}},
				{"ls", map[string]any{"path": p}},
			} {
				check(how, a, func(res tools.Result) string {
					if why := leaked(res, p); why != "" {
						return "shows " + why
					}
					switch {
					case res.IsError:
						return "failed"
					case a.tool == "ls" && !strings.Contains(res.Content, ".ssh/  [read forbidden]"):
						return "lists .ssh without its tag"
					case a.args["pattern"] != "**/id_*" && a.tool != "ls" && !strings.Contains(res.Content, "notes.txt"):
						return "missed the harmless file"
					}
					return ""
				})
			}
		}
		// Patterns that start inside the secrets, from above them: refused
		// or empty.
		for how, p := range spellings(home) {
			for _, a := range []attack{
				{"glob", map[string]any{"pattern": ".ssh/*", "path": p}},
				{"grep", map[string]any{"pattern": "PRIVATE", "path": p, "glob": ".ssh/*"}},
			} {
				check(how, a, func(res tools.Result) string {
					if why := leaked(res, p); why != "" {
						return "shows " + why
					}
					return ""
				})
			}
		}
		// The secret directory and the secret files themselves are refused.
		targets := map[string][]attack{
			ssh: {
				{"grep", map[string]any{"pattern": "PRIVATE"}},
				{"glob", map[string]any{"pattern": "**/*"}},
				{"ls", map[string]any{}},
			},
			filepath.Join(ssh, "id_rsa"): {
				{"read_file", map[string]any{}},
				{"grep", map[string]any{"pattern": "PRIVATE"}},
				{"grep", map[string]any{"pattern": "PRIVATE", "output_mode": "count"}},
				{"ls", map[string]any{}},
			},
			filepath.Join(home, ".aws", "credentials"): {
				{"read_file", map[string]any{}},
				{"grep", map[string]any{"pattern": "PRIVATE"}},
			},
		}
		for target, attacks := range targets {
			for how, p := range spellings(target) {
				for _, a := range attacks {
					a.args = maps.Clone(a.args)
					a.args["path"] = p
					check(how, a, func(res tools.Result) string {
						if why := leaked(res, p); why != "" {
							return "shows " + why
						}
						if !res.IsError {
							return "not refused"
						}
						return ""
					})
				}
			}
		}
	}
	t.Logf("%d attacks, %d got through", cases, failed)
}

// TestReadToolRaces: a command running in the background keeps swapping
// paths in the workspace for symbolic links to the secrets, and back,
// while the read tools run on them. A tool may catch either state, or
// fail; it never shows a secret.
func TestReadToolRaces(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("swaps symbolic links")
	}
	env, home := attackHome(t, map[string]string{
		"decoy/decoy_key":      "PRIVATE decoy\n",
		"tree/sub/decoy_key":   "PRIVATE decoy\n",
		"tree/decoy_key":       "PRIVATE decoy\n",
		"tree/other/decoy_key": "PRIVATE decoy\n",
	})
	ssh := filepath.Join(home, ".ssh")
	root := env.Root
	if err := os.Symlink("decoy", filepath.Join(root, "flip")); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() {
		// flip alternates between the decoy and the secrets; tree/sub, a
		// directory, and tree/decoy_key, a file, are moved aside and
		// replaced by links to the secrets, then put back.
		flip, tmp := filepath.Join(root, "flip"), filepath.Join(root, "flip.tmp")
		sub, subAside := filepath.Join(root, "tree", "sub"), filepath.Join(root, "sub.aside")
		key, keyAside := filepath.Join(root, "tree", "decoy_key"), filepath.Join(root, "key.aside")
		for i := 0; ctx.Err() == nil; i++ {
			target := "decoy"
			if i%2 == 1 {
				target = ssh
			}
			os.Symlink(target, tmp)
			os.Rename(tmp, flip)
			if i%2 == 0 {
				os.Rename(sub, subAside)
				os.Symlink(ssh, sub)
				os.Rename(key, keyAside)
				os.Symlink(filepath.Join(ssh, "id_rsa"), key)
			} else {
				os.Remove(sub)
				os.Rename(subAside, sub)
				os.Remove(key)
				os.Rename(keyAside, key)
			}
		}
	})

	attacks := []struct {
		tool string
		args map[string]any
	}{
		{"grep", map[string]any{"pattern": "PRIVATE", "path": "flip"}},
		{"grep", map[string]any{"pattern": "PRIVATE", "path": "tree"}},
		{"grep", map[string]any{"pattern": "PRIVATE", "path": "tree/sub"}},
		{"grep", map[string]any{"pattern": "PRIVATE", "path": "tree/decoy_key"}},
		{"grep", map[string]any{"pattern": "PRIVATE", "path": "flip/id_rsa"}},
		{"glob", map[string]any{"pattern": "**/*", "path": "flip"}},
		{"glob", map[string]any{"pattern": "**/*", "path": "tree"}},
		{"ls", map[string]any{"path": "flip"}},
		{"ls", map[string]any{"path": "tree/sub"}},
		{"read_file", map[string]any{"path": "flip/id_rsa"}},
		{"read_file", map[string]any{"path": "tree/decoy_key"}},
		{"read_file", map[string]any{"path": "tree/sub/id_rsa"}},
	}
	for range 300 {
		for _, a := range attacks {
			res := call(t, env, a.tool, a.args)
			if why := leaked(res, a.args["path"].(string)); why != "" {
				t.Fatalf("%s %v shows %s:\n%s", a.tool, a.args, why, res.Content)
			}
		}
	}
}
