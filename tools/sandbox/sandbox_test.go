package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

func TestCheckWrite(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	os.Symlink(outside, filepath.Join(root, "escape"))
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	p := New([]string{root}, nil)
	tests := []struct {
		path string
		ok   bool
	}{
		{filepath.Join(root, "a.txt"), true},
		{filepath.Join(root, "sub", "new", "deep.txt"), true},
		{filepath.Join(root, "sub", "..", "..", "x"), false},
		{filepath.Join(root, "escape", "x.txt"), false},
		{filepath.Join(outside, "x.txt"), false},
		{root + "-sibling/x", false},
	}
	for _, tt := range tests {
		got, err := p.CheckWrite(tt.path)
		if (err == nil) != tt.ok {
			t.Errorf("CheckWrite(%s) = %q, %v; want ok=%v", tt.path, got, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrOutsideRoots) {
			t.Errorf("CheckWrite(%s): %v does not wrap ErrOutsideRoots", tt.path, err)
		}
	}
}

func TestCheckRead(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	work, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(work, "keys"))
	p := New(nil, HomeDefaults(home))
	cases := map[string]bool{
		filepath.Join(home, ".ssh", "id_ed25519"):                      true,
		filepath.Join(home, ".aws"):                                    true,
		filepath.Join(home, ".npmrc"):                                  true,
		filepath.Join(home, ".config", "git", "credentials"):           true,
		filepath.Join(home, ".azure", "msal_token_cache.json"):         true,
		filepath.Join(home, ".local", "share", "fish", "fish_history"): true,
		filepath.Join(home, ".bash_history"):                           true,
		filepath.Join(home, ".m2", "settings.xml"):                     false, // Maven cannot build without it
		filepath.Join(work, "keys", "id_rsa"):                          true,  // through a link
		filepath.Join(home, ".sshx"):                                   false,
		filepath.Join(work, "main.go"):                                 false,
	}
	if runtime.GOOS == "linux" {
		// Through /proc's magic links to the root.
		cases["/proc/self/root"+filepath.Join(home, ".ssh", "id_rsa")] = true
		cases["/proc/thread-self/root"+filepath.Join(home, ".ssh")] = true
		cases["/proc/self/root"+filepath.Join(work, "keys")] = true
		cases["/proc/self/root"+filepath.Join(work, "main.go")] = false
	}
	for path, forbidden := range cases {
		err := p.CheckRead(path)
		if (err != nil) != forbidden {
			t.Errorf("CheckRead(%s) = %v, want forbidden=%v", path, err, forbidden)
		}
		if err != nil && !errors.Is(err, ErrForbidden) {
			t.Errorf("CheckRead(%s): %v does not wrap ErrForbidden", path, err)
		}
	}
	if !p.Forbidden(filepath.Join(home, ".gnupg", "x")) || p.Forbidden(work) {
		t.Error("Forbidden disagrees with the defaults")
	}
}

func TestControlOf(t *testing.T) {
	root := realTempDir(t)
	p := New([]string{root}, nil)
	p.Protect(filepath.Join(root, "reasonix.toml"), filepath.Join(root, ".git", "hooks"), "")
	// A linked work tree's repository, outside the write roots, and the
	// fake one a commondir could name.
	elsewhere := realTempDir(t)
	p.ProtectGit(filepath.Join(elsewhere, "main.git"), "")
	if err := os.Symlink(filepath.Join(root, ".git"), filepath.Join(root, "g")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, "e")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"reasonix.toml", true},
		{".git/hooks", true},
		{".git/hooks/pre-commit", true},
		{"g/hooks/pre-commit", true}, // through a link
		{".git/config.bak", true},    // all of .git, to the file tools
		{".git/commondir", true},
		{"reasonix.toml.bak", false},
		{"src/reasonix.toml", true}, // by its name, at any depth
		{"src/.claude/skills/x/SKILL.md", true},
		{"vendor/x/.git/modules/y/config", true},
		{"e/main.git/config", true}, // a git directory named as one
		{"e/main.git/objects/ab/cd", true},
		{"e/other/config", false},
		{"src/main.go", false},
		{".", false},
	} {
		if _, got := p.ControlOf(filepath.Join(root, tt.path)); got != tt.want {
			t.Errorf("ControlOf(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestCheckReadProcessFiles(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc")
	}
	p := New(nil, nil)
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{"/proc/self/environ", false},
		{"/proc/thread-self/environ", false},
		{"/proc/1/environ", false},
		{"/proc/self/fd", false},
		{"/proc/" + strconv.Itoa(os.Getppid()) + "/cmdline", false},
		{"/proc/self", false},
		{"/proc/cpuinfo", true},
		{"/proc/self/root/etc/hostname", true},
		{"/proc/self/cwd", true},
	} {
		err := p.CheckRead(tt.path)
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrProcessFiles) {
			t.Errorf("CheckRead(%s) = %v, want ok=%v", tt.path, err, tt.ok)
		}
	}
	if !p.Forbidden("/proc/42/environ") || p.Forbidden("/proc/meminfo") {
		t.Error("Forbidden does not keep walks out of the processes' directories")
	}
}
