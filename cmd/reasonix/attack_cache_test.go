package main

import (
	"archive/zip"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/sandbox/sandboxtest"
)

// The shared caches: a jailed command must not change what the user's
// other projects later run unjailed. Each attack writes through the real
// binary into a cache of the fake home — a module's source in GOMODCACHE,
// a build output under an action id already in GOCACHE, npm's cache, the
// user's cache directory — and after the run every cache is as it was,
// byte for byte.

// goCaches stages the fake home's caches as a user's would be after
// building the workspace once: a module example.com/dep in GOMODCACHE,
// fetched from a file proxy the test makes (no network), which the
// workspace imports; GOCACHE holding its build; npm's cache and the user
// cache directory holding a file each. The variables point the test's
// own go, and the reasonix it runs, at them.
func goCaches(t *testing.T, h *hostile) (modcache, gocache string) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not in PATH")
	}
	modcache = filepath.Join(h.home, "go", "pkg", "mod")
	gocache = filepath.Join(h.home, ".cache", "go-build")
	proxy := filepath.Join(h.home, "proxy")
	t.Setenv("GOPATH", filepath.Join(h.home, "go"))
	t.Setenv("GOMODCACHE", modcache)
	t.Setenv("GOCACHE", gocache)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(h.home, ".cache"))
	t.Setenv("npm_config_cache", filepath.Join(h.home, ".npm"))
	t.Setenv("GOPROXY", "file://"+proxy)
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOTOOLCHAIN", "local")

	// The module as a proxy serves it.
	v := filepath.Join(proxy, "example.com", "dep", "@v")
	mustWrite(t, filepath.Join(v, "list"), "v1.0.0\n")
	mustWrite(t, filepath.Join(v, "v1.0.0.info"), `{"Version":"v1.0.0"}`)
	mod := "module example.com/dep\n\ngo 1.21\n"
	mustWrite(t, filepath.Join(v, "v1.0.0.mod"), mod)
	f, err := os.Create(filepath.Join(v, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range map[string]string{
		"go.mod": mod,
		"dep.go": "package dep\n\nfunc Dep() int { return 1 }\n",
	} {
		w, err := zw.Create("example.com/dep@v1.0.0/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	mustWrite(t, filepath.Join(h.work, "go.mod"), "module example.com/w\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n")
	mustWrite(t, filepath.Join(h.work, "w.go"), "package w\n\nimport \"example.com/dep\"\n\nfunc W() int { return dep.Dep() }\n")
	for _, args := range [][]string{{"mod", "download", "example.com/dep"}, {"mod", "tidy"}, {"build", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = h.work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	mustWrite(t, filepath.Join(h.home, ".npm", "_cacache", "index-v5", "4f", "1a", "entry"), "npm index entry\n")
	mustWrite(t, filepath.Join(h.home, ".cache", "pre-commit", "hook.py"), "print('hook')\n")
	return modcache, gocache
}

// anOutput returns the path of a build output in gocache: a file whose
// name is an output id, which the cache's index entries name.
func anOutput(t *testing.T, gocache string) string {
	t.Helper()
	var out string
	filepath.WalkDir(gocache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && out == "" && strings.HasSuffix(p, "-d") {
			out = p
		}
		return nil
	})
	if out == "" {
		t.Fatal("no build output in the cache")
	}
	return out
}

// cacheAttacks are the jailed commands that go after the caches.
func cacheAttacks(t *testing.T, h *hostile, modcache, gocache string) []attackCall {
	src := filepath.Join(modcache, "example.com", "dep@v1.0.0", "dep.go")
	output := anOutput(t, gocache)
	return []attackCall{
		// The module's source, as the user's other projects compile it:
		// the command sees its own change.
		bash(`chmod -R u+w ` + filepath.Dir(src) + ` && echo 'func init() { println("POISON") }' >> ` + src + ` && cat ` + src),
		// A build output under an action id the cache already holds,
		// and a new one.
		bash(`chmod u+w ` + output + `; echo forged > ` + output + `; echo forged > ` + filepath.Join(filepath.Dir(output), "ffff-d") + `; cat ` + output),
		// The download cache, which go checks modules against, by a
		// relative path.
		bash(`cd ` + filepath.Join(modcache, "cache") + ` && chmod -R u+w download && echo v9.9.9 >> download/example.com/dep/@v/list`),
		// npm's cache and the user cache directory.
		bash(`echo evil > ~/.npm/_cacache/index-v5/4f/1a/entry; mkdir -p ~/.npm/x && echo evil > ~/.npm/x/y; echo 'import os' > ~/.cache/pre-commit/hook.py; cat ~/.cache/pre-commit/hook.py`),
		// Out of the way, or gone.
		bash(`mv ` + modcache + ` ` + modcache + `.old; mv ~/.npm ~/.npm.old; rm -f ` + filepath.Join(modcache, "cache", "download", "example.com", "dep", "@v", "v1.0.0.zip") + `; rm -rf ~/.cache/pre-commit`),
		// A build in the session still works.
		bash(`go build ./... && echo built`),
	}
}

// attackCaches runs the cache attacks as h is set up and checks that the
// caches did not change and that the session left no private layer
// behind.
func attackCaches(t *testing.T, h *hostile, modcache, gocache string) {
	t.Helper()
	// GOCACHE lies in the user cache directory.
	caches := []string{modcache, filepath.Join(h.home, ".npm"), filepath.Join(h.home, ".cache")}
	before := snapshotCaches(t, caches)
	calls := cacheAttacks(t, h, modcache, gocache)
	results := h.attack(t, "", []string{"--approval", "auto"}, calls)
	after := snapshotCaches(t, caches)
	unchanged(t, "", before, after)
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was added", p)
		}
	}
	for _, c := range []string{modcache, filepath.Join(h.home, ".npm")} {
		if _, err := os.Stat(c + ".old"); err == nil {
			t.Errorf("%s was moved", c)
		}
	}
	// The commands wrote a private layer, and saw their own changes,
	// unless the system allowed none (then they were refused).
	private := !strings.Contains(strings.Join(results, "\n"), "no private layer")
	if private && (!strings.Contains(results[0], "POISON") || !strings.Contains(results[1], "forged") || !strings.Contains(results[3], "import os")) {
		t.Errorf("the commands did not see their own changes:\n%s\n%s\n%s", results[0], results[1], results[3])
	}
	if !strings.Contains(results[len(results)-1], "built") {
		t.Errorf("go build in the jail: %s", results[len(results)-1])
	}
	ents, _ := os.ReadDir(filepath.Join(h.rhome, "layers"))
	for _, e := range ents {
		t.Errorf("the session left %s in its layers", e.Name())
	}
}

// snapshotCaches maps every path below the caches to its content and
// mode (see snapshotTree).
func snapshotCaches(t *testing.T, caches []string) map[string]string {
	out := map[string]string{}
	for _, c := range caches {
		for rel, v := range snapshotTree(t, c) {
			out[filepath.Join(c, rel)] = v
		}
	}
	return out
}

// TestAttackSharedCaches: jailed commands write into the shared caches;
// the real ones are unchanged after the run.
func TestAttackSharedCaches(t *testing.T) {
	h := newHostile(t)
	modcache, gocache := goCaches(t, h)
	attackCaches(t, h, modcache, gocache)
}

// TestAttackSharedCachesAsAUser: the same with Reasonix running as an
// unprivileged user, whose commands get their namespaces, and their
// overlays, inside a user namespace.
func TestAttackSharedCachesAsAUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run reasonix as another user")
	}
	h := newHostile(t)
	modcache, gocache := goCaches(t, h)
	h.asNobody(t)
	attackCaches(t, h, modcache, gocache)
}

// TestAttackForbiddenDefaults: the credential files and histories that
// forbid_read protects by default leak nothing to a jailed command or a
// read tool, however the path is spelled; npm still works beside its
// hidden ~/.npmrc.
func TestAttackForbiddenDefaults(t *testing.T) {
	t.Parallel()
	attackForbiddenDefaults(t, false)
}

// TestAttackForbiddenDefaultsAsAUser: the same with Reasonix running as
// an unprivileged user.
func TestAttackForbiddenDefaultsAsAUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run reasonix as another user")
	}
	attackForbiddenDefaults(t, true)
}

// attackForbiddenDefaults stages the secrets in a fake home and goes
// after them, with reasonix run as an unprivileged user when asUser.
func attackForbiddenDefaults(t *testing.T, asUser bool) {
	h := newHostile(t)
	tag := sandboxtest.Tag()
	files := []struct{ name, format string }{
		{".npmrc", "//registry.npmjs.org/:_authToken=%s"},
		{".pgpass", "db:5432:*:app:%s"},
		{".bash_history", "mysql -p%s"},
		{".config/git/credentials", "https://u:%s@example.com"},
		{".cargo/credentials.toml", "[registry]\ntoken = \"%s\""},
		{".azure/msal_token_cache.json", `{"AccessToken":"%s"}`},
		{".local/share/fish/fish_history", "- cmd: export TOKEN=%s"},
		{".terraform.d/credentials.tfrc.json", `{"token":"%s"}`},
	}
	var calls []attackCall
	for i, f := range files {
		secret := fmt.Sprintf("SECRET-%d-%s", i, tag)
		h.secrets = append(h.secrets, secret)
		mustWrite(t, filepath.Join(h.home, f.name), fmt.Sprintf(f.format, secret)+"\n")
		calls = append(calls,
			attackCall{tool: "read_file", args: map[string]any{"path": "~/" + f.name}, want: "forbid_read"},
			// Spelled so that no check before the jail sees the path.
			bash(fmt.Sprintf(`f=%s; base64 -w0 "$HOME/$f"; rev < ~/"$f"`, f.name)),
		)
	}
	if os.Geteuid() == 0 {
		// The password hashes, which root's command could read.
		if b, err := os.ReadFile("/etc/shadow"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if len(line) > 16 {
					h.secrets = append(h.secrets, line)
				}
			}
		}
	}
	calls = append(calls,
		bash(`cat ~/.npmrc ~/.pgpass ~/.bash_history`),
		bash(`grep -r SECRET ~ 2>&1 | base64 -w0; cat /etc/shadow /etc/gshadow 2>&1 | base64 -w0`),
		bash(`tar cf - -C ~ .npmrc .pgpass .bash_history .config .cargo .azure .local .terraform.d 2>&1 | base64 -w0`),
	)
	if asUser {
		h.asNobody(t)
	}
	if _, err := exec.LookPath("npm"); err == nil {
		// npm reads ~/.npmrc at every start, and goes on without it.
		calls = append(calls, attackCall{tool: "bash", args: map[string]any{"command": `npm config get fund && echo npm-ok`}, want: "npm-ok"})
	}
	h.attack(t, "", []string{"--approval", "auto"}, calls)
}
