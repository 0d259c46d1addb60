package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/sandbox/sandboxtest"
)

// cacheStage is a workspace, Reasonix's directory (a control path, which
// holds the private layers) and two shared caches, one holding a file
// and a read-only module directory as Go leaves them.
type cacheStage struct {
	ws, home, layers string
	mod, build       string // the caches
	src              string // a module's source in mod
}

func newCacheStage(t *testing.T) *cacheStage {
	t.Helper()
	root := realTempDir(t)
	s := &cacheStage{
		ws:    filepath.Join(root, "ws"),
		home:  filepath.Join(root, "reasonix"),
		mod:   filepath.Join(root, "home", "go", "pkg", "mod"),
		build: filepath.Join(root, "home", ".cache", "go-build"),
	}
	s.layers = filepath.Join(s.home, "layers")
	s.src = filepath.Join(s.mod, "example.com", "dep@v1.0.0", "dep.go")
	for _, d := range []string{s.ws, s.home, filepath.Dir(s.src), filepath.Join(s.mod, "cache", "download"), s.build} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(s.src, []byte("package dep\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.build, "trim.txt"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(s.src), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Dir(s.src), 0o755) })
	return s
}

// host returns a host whose jail keeps s's caches.
func (s *cacheStage) host(t *testing.T) *Host {
	t.Helper()
	policy := New([]string{s.ws, s.home}, nil)
	policy.Protect(s.home)
	h := NewHost(&Jail{
		Policy: policy,
		Caches: []Cache{{Path: s.mod, Var: "GOMODCACHE"}, {Path: s.build, Var: "GOCACHE"}},
		Layers: s.layers,
	})
	t.Cleanup(func() { h.Close() })
	return h
}

// unchanged fails t unless the caches hold what newCacheStage put there.
func (s *cacheStage) unchanged(t *testing.T) {
	t.Helper()
	for p, want := range map[string]string{s.src: "package dep\n", filepath.Join(s.build, "trim.txt"): "1\n"} {
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("%s is now %q, %v", p, b, err)
		}
	}
	for _, d := range []string{s.mod, s.build} {
		ents, _ := os.ReadDir(d)
		if len(ents) != 2 && d == s.mod || len(ents) != 1 && d == s.build {
			t.Errorf("%s holds %v", d, ents)
		}
	}
}

// The commands of a session write to private layers over the caches:
// they see their own changes from one command to the next, the real
// caches never change, a command that starts while another still runs
// gets a layer of its own, and the layers are gone when the session ends.
func TestHostCacheLayers(t *testing.T) {
	needLandlock(t)
	s := newCacheStage(t)
	h := s.host(t)
	poison := `chmod u+w ` + filepath.Dir(s.src) + ` ` + s.src + ` && echo 'func init() { panic(1) }' >> ` + s.src + ` && echo forged > ` + s.build + `/trim.txt && mkdir ` + s.build + `/ab && echo x > ` + s.build + `/ab/new-d && cat ` + s.src
	out, st := hostRun(t, h, s.ws, poison, true)
	namespaced(t, h, st)
	if st.Code != 0 || !strings.Contains(out, "panic(1)") {
		t.Fatalf("writing through the layer: exit %d: %q %v", st.Code, out, st.Notes)
	}
	s.unchanged(t)
	// The next command sees what the first wrote, and cannot take the
	// layer away.
	for _, command := range []string{
		"grep -q panic " + s.src + " && cat " + s.build + "/trim.txt " + s.build + "/ab/new-d",
		"umount " + s.mod + " 2>/dev/null || umount -l " + s.build + " 2>/dev/null || mv " + s.mod + " " + s.mod + ".old 2>/dev/null || echo kept",
	} {
		out, st = hostRun(t, h, s.ws, command, true)
		if st.Code != 0 || out != "forged\nx\n" && out != "kept\n" {
			t.Errorf("%s: exit %d: %q", command, st.Code, out)
		}
	}
	// A command left running holds its layer; one started meanwhile
	// gets another, without the first's changes.
	bash, _ := exec.LookPath("bash")
	background := exec.Command(bash, "-c", "sleep "+sandboxtest.Tag()+" >/dev/null 2>&1 &")
	background.Dir = s.ws
	p, err := h.Start(background, true)
	if err != nil {
		t.Fatal(err)
	}
	if st := p.Wait(); st.Code != 0 {
		t.Fatalf("background: %+v", st)
	}
	out, st = hostRun(t, h, s.ws, "cat "+s.src+" && echo second > "+s.build+"/second", true)
	if st.Code != 0 || out != "package dep\n" {
		t.Errorf("beside a running command: exit %d: %q", st.Code, out)
	}
	s.unchanged(t)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(s.layers); err != nil || len(ents) != 0 {
		t.Errorf("after the session the layers hold %v (%v)", ents, err)
	}
	s.unchanged(t)
}

// Where the unit has no mount namespace, a command finds the caches
// read-only and gets private ones through their variables, the module
// cache's downloads served to go as a proxy; the model is told once.
func TestHostCachesWithoutNamespaces(t *testing.T) {
	needLandlock(t)
	s := newCacheStage(t)
	h := s.host(t)
	h.linux.nsOff.Store(true)
	command := `exec 2>/dev/null; echo x >> ` + s.src + ` || echo refused; echo y > ` + s.build + `/y || echo refused; ` +
		`mkdir -p "$GOCACHE/ab" && echo z > "$GOCACHE/ab/z" && cat "$GOCACHE/ab/z"; echo "$GOMODCACHE $GOPROXY"`
	out, st := hostRun(t, h, s.ws, command, true)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if st.Code != 0 || len(lines) != 4 || lines[0] != "refused" || lines[1] != "refused" || lines[2] != "z" {
		t.Fatalf("exit %d: %q", st.Code, out)
	}
	if vars := strings.Fields(lines[3]); len(vars) != 2 || !within(vars[0], s.layers) || !strings.HasPrefix(vars[1], "file://"+s.mod+"/cache/download,") {
		t.Errorf("GOMODCACHE and GOPROXY: %q", lines[3])
	}
	if len(st.Notes) == 0 || !strings.Contains(strings.Join(st.Notes, " "), "read-only") {
		t.Errorf("notes: %q", st.Notes)
	}
	// The private cache lasts the session.
	if out, _ := hostRun(t, h, s.ws, `cat "$GOCACHE/ab/z"`, true); out != "z\n" {
		t.Errorf("the second command: %q", out)
	}
	s.unchanged(t)
}

// Where no overlay can be mounted over a cache, the command finds it
// mounted read-only, and a private cache in its variable. Here the
// command starts inside the cache, which an overlay would leave it below.
func TestHostCachesOverlayRefused(t *testing.T) {
	needLandlock(t)
	s := newCacheStage(t)
	h := s.host(t)
	out, st := hostRun(t, h, s.build, `exec 2>/dev/null; echo y > `+s.build+`/y || echo refused; echo y > y || echo refused; echo z > "$GOCACHE/z" && cat "$GOCACHE/z"`, true)
	namespaced(t, h, st)
	if st.Code != 0 || out != "refused\nrefused\nz\n" {
		t.Errorf("exit %d: %q", st.Code, out)
	}
	if !strings.Contains(strings.Join(st.Notes, " "), "no private layer") {
		t.Errorf("notes: %q", st.Notes)
	}
	// The module cache, where the command did not start, has its
	// overlay.
	if out, _ := hostRun(t, h, s.build, `echo x > `+s.mod+`/x && cat `+s.mod+`/x`, true); out != "x\n" {
		t.Errorf("the other cache: %q", out)
	}
	s.unchanged(t)
}

// A store removes what sessions that died left behind, and nothing of a
// live session's, whatever modes the layers' directories were left with.
func TestLayerStoreSweeps(t *testing.T) {
	parent := realTempDir(t)
	caches := []Cache{{Path: "/nonexistent/cache", Var: "GOCACHE"}}
	var live, dead layerStore
	liveSlot, _, err := live.take(parent, caches)
	if err != nil {
		t.Fatal(err)
	}
	deadSlot, layers, err := dead.take(parent, caches)
	if err != nil {
		t.Fatal(err)
	}
	// What a command and the kernel leave: a read-only module
	// directory, an overlay work directory of mode 0.
	ro := filepath.Join(layers[0].Upper, "m")
	if err := os.MkdirAll(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ro, "f"), []byte("x"), 0o444)
	os.Chmod(ro, 0o555)
	os.Chmod(layers[0].Work, 0)
	// The dead session's process ended: its lock is free.
	dead.lock.Close()
	var next layerStore
	if _, _, err := next.take(parent, caches); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(deadSlot); err == nil {
		t.Errorf("%s outlived its session", deadSlot)
	}
	if _, err := os.Stat(liveSlot); err != nil {
		t.Errorf("a live session's layers were removed: %v", err)
	}
	for _, s := range []*layerStore{&live, &next} {
		if err := s.close(); err != nil {
			t.Error(err)
		}
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("left: %v", ents)
	}
}
