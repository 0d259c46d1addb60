package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realTempDir is t.TempDir with symbolic links resolved, as the Policy
// stores its roots.
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestExplain(t *testing.T) {
	j := &Jail{Policy: &Policy{WriteRoots: []string{"/work"}, ForbidRead: []string{"/home/u/.ssh"}}, Scratch: []string{"/tmp"}}
	tests := []struct {
		name, output string
		network      bool
		blocked      bool
		evidence     string
	}{
		{"shell redirect", "bash: line 1: /etc/x: Permission denied\n", false, true, "bash: line 1: /etc/x: Permission denied"},
		{"python", "Traceback\nPermissionError: [Errno 13] Permission denied: '/x'\n", false, true, "PermissionError: [Errno 13] Permission denied: '/x'"},
		{"node", "Error: EACCES: open '/x'\n", false, true, "Error: EACCES: open '/x'"},
		{"signal", "bash: kill: (1) - Operation not permitted\n", false, true, "bash: kill: (1) - Operation not permitted"},
		{"link", "ln: failed to create hard link 'x': Invalid cross-device link\n", false, true, "ln: failed to create hard link 'x': Invalid cross-device link"},
		{"curl without the network", "curl: (7) Failed to connect to example.com port 443 after 0 ms: Couldn't connect to server\n", false, true, "curl: (7) Failed to connect to example.com port 443 after 0 ms: Couldn't connect to server"},
		{"curl with the network", "curl: (7) Failed to connect to example.com port 443 after 0 ms: Couldn't connect to server\n", true, false, ""},
		{"a plain failure", "FAIL: TestX\nexit status 1\n", false, false, ""},
		{"a word that only contains EPERM", "EPERMANENT\n", false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j.Network = tt.network
			note, reason := j.Explain(tt.output)
			if (note != "") != tt.blocked || (reason != "") != tt.blocked {
				t.Fatalf("Explain = %q, %q; want blocked=%v", note, reason, tt.blocked)
			}
			if tt.blocked && reason != "the shell sandbox may have blocked it: "+tt.evidence {
				t.Errorf("reason %q", reason)
			}
		})
	}
}

func TestDenialNote(t *testing.T) {
	j := &Jail{Policy: &Policy{WriteRoots: []string{"/work", "/home/u/.reasonix"}, ForbidRead: []string{"/home/u/.ssh"}}, Scratch: []string{"/tmp", "/work"}}
	want := "Sandbox: this command ran in Reasonix's shell sandbox, which may have blocked it. " +
		"It may write only under: /work, /home/u/.reasonix, /tmp. " +
		"Blocked: reading under [sandbox] forbid_read (/home/u/.ssh); network access (TCP connect and listen, localhost included). " +
		"Work inside the writable directories if you can; otherwise ask the user to allow it: a directory added to [sandbox] allow_write becomes writable, " +
		`[sandbox] network = true allows the network, and [sandbox] bash = "off" turns the shell sandbox off.`
	if got := j.denialNote(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	j.Network = true
	j.Policy.ForbidRead = nil
	if got := j.denialNote(); strings.Contains(got, "Blocked") || strings.Contains(got, "network = true") {
		t.Errorf("with nothing blocked: %s", got)
	}
	j.Caches = []Cache{{"/home/u/go/pkg/mod", "GOMODCACHE"}}
	j.Layers = "/home/u/.reasonix/layers"
	if got := j.denialNote(); !strings.Contains(got, "The shared caches (/home/u/go/pkg/mod) never change: a command writes to a private copy") {
		t.Errorf("with a cache: %s", got)
	}
}

func TestSplitDirs(t *testing.T) {
	ws := realTempDir(t)
	if err := os.MkdirAll(filepath.Join(ws, "config", "keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	forbid := []string{filepath.Join(ws, "config", "keys"), filepath.Join(ws, "missing"), "/elsewhere"}
	got := splitDirs([]string{ws, "/tmp/other"}, forbid)
	want := []string{filepath.Join(ws, "config"), ws}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestScratchDirs(t *testing.T) {
	t.Setenv("GOCACHE", filepath.Join(t.TempDir(), "gocache"))
	dirs := ScratchDirs()
	if !slices.Contains(dirs, resolve(os.TempDir())) {
		t.Errorf("%v lacks %s", dirs, os.TempDir())
	}
	// The caches are not scratch: commands write them through a layer.
	if slices.Contains(dirs, resolve(os.Getenv("GOCACHE"))) {
		t.Errorf("%v holds GOCACHE", dirs)
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			t.Errorf("relative scratch directory %q", d)
		}
	}
}

func TestSharedCaches(t *testing.T) {
	home := realTempDir(t)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("npm_config_cache", "")
	tests := []struct {
		name                string
		gocache, gomodcache string
		gopath              string
		want                []Cache
	}{
		{"defaults", "", "", "", []Cache{
			{filepath.Join(home, ".cache"), "XDG_CACHE_HOME"},
			{filepath.Join(home, ".cache", "go-build"), "GOCACHE"},
			{filepath.Join(home, "go", "pkg", "mod"), "GOMODCACHE"},
			{filepath.Join(home, ".npm"), "npm_config_cache"},
		}},
		{"variables", "/var/gocache", "/var/mod", "/ignored", []Cache{
			{filepath.Join(home, ".cache"), "XDG_CACHE_HOME"},
			{"/var/gocache", "GOCACHE"},
			{"/var/mod", "GOMODCACHE"},
			{filepath.Join(home, ".npm"), "npm_config_cache"},
		}},
		{"GOPATH, relative and off", "off", "relative/is/ignored", "/gp:/other", []Cache{
			{filepath.Join(home, ".cache"), "XDG_CACHE_HOME"},
			{filepath.Join(home, ".cache", "go-build"), "GOCACHE"},
			{filepath.Join(home, ".npm"), "npm_config_cache"},
		}},
		{"GOPATH", "", "", "/gp:/other", []Cache{
			{filepath.Join(home, ".cache"), "XDG_CACHE_HOME"},
			{filepath.Join(home, ".cache", "go-build"), "GOCACHE"},
			{"/gp/pkg/mod", "GOMODCACHE"},
			{filepath.Join(home, ".npm"), "npm_config_cache"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOCACHE", tt.gocache)
			t.Setenv("GOMODCACHE", tt.gomodcache)
			t.Setenv("GOPATH", tt.gopath)
			if got := SharedCaches(); !slices.Equal(got, tt.want) {
				t.Errorf("SharedCaches() = %v, want %v", got, tt.want)
			}
		})
	}
}

// The jail keeps a cache from change unless it holds a directory the
// command may write anyway, or lies in a forbidden one; parents first.
func TestJailCaches(t *testing.T) {
	j := &Jail{Caches: []Cache{
		{"/h/.cache/go-build", "GOCACHE"},
		{"/h/.cache", "XDG_CACHE_HOME"},
		{"/h/go/pkg/mod", "GOMODCACHE"},
		{"/h/.npm", "npm_config_cache"},
		{"/h/secret/cache", "X"},
	}}
	got := j.caches([]string{"/h/go/pkg/mod/example.com/m@v1", "/tmp"}, []string{"/h/secret"})
	want := []Cache{{"/h/.npm", "npm_config_cache"}, {"/h/.cache", "XDG_CACHE_HOME"}, {"/h/.cache/go-build", "GOCACHE"}}
	if !slices.Equal(got, want) {
		t.Errorf("caches = %v, want %v", got, want)
	}
}

// TestReadOnlyIsBounded: a repository of many submodules does not make
// every command start with a mount per control file of each: past
// maxReadOnly the control watch alone keeps them, and the root's control
// paths are always among those mounted.
func TestReadOnlyIsBounded(t *testing.T) {
	root := t.TempDir()
	git := filepath.Join(root, ".git")
	for i := range maxReadOnly {
		mod := filepath.Join(git, "modules", fmt.Sprintf("m%d", i))
		if err := os.MkdirAll(filepath.Join(mod, "hooks"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, "config"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := New([]string{root}, nil)
	control := filepath.Join(root, "reasonix.toml")
	p.Protect(control)
	p.ProtectGit(git)
	j := &Jail{Policy: p}
	got := j.readOnly(nil)
	if len(got) != maxReadOnly || got[0] != control {
		t.Errorf("%d read-only paths, the first %q; want %d, the first %s", len(got), got[0], maxReadOnly, control)
	}
}
