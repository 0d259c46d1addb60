package builtin

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/sandbox"
)

// TestFileToolAttacks: paths that try to reach outside the workspace or
// into forbidden directories, through every file tool.
func TestFileToolAttacks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses /proc/self/root")
	}
	home := t.TempDir()
	outside := t.TempDir()
	secret := filepath.Join(home, ".ssh", "id_rsa")
	os.MkdirAll(filepath.Dir(secret), 0o700)
	os.WriteFile(secret, []byte("PRIVATE"), 0o600)
	os.WriteFile(filepath.Join(outside, "target.txt"), []byte("outside"), 0o644)

	env := testEnv(t, map[string]string{"ok.txt": "fine\n"})
	env.Guard = sandbox.New([]string{env.Root}, sandbox.HomeDefaults(home))
	root := env.Root
	os.Symlink(outside, filepath.Join(root, "outdir"))
	os.Symlink(filepath.Join(outside, "target.txt"), filepath.Join(root, "outfile.txt"))
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(root, "keys"))
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
		{"read_file", map[string]any{"path": secret}, "forbid_read"},
		{"read_file", map[string]any{"path": "keys/id_rsa"}, "forbid_read"},
		{"read_file", map[string]any{"path": "/proc/self/root" + secret}, "forbid_read"},
		{"read_file", map[string]any{"path": "~/.ssh/id_rsa"}, "forbid_read"},
		{"grep", map[string]any{"pattern": "PRIVATE", "path": filepath.Join(home, ".ssh")}, "forbid"},
		{"ls", map[string]any{"path": filepath.Join(home, ".ssh")}, "forbid"},
	}
	t.Setenv("HOME", home)
	for _, tt := range refused {
		res := call(t, env, tt.tool, tt.args)
		if !res.IsError || !strings.Contains(res.Content, tt.want) || strings.Contains(res.Content, "PRIVATE") {
			t.Errorf("%s %v: %s", tt.tool, tt.args, res.Content)
		}
	}
	// Walks over the home never show the secret.
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"grep", map[string]any{"pattern": "PRIVATE", "path": home}},
		{"glob", map[string]any{"pattern": "**/id_rsa", "path": home}},
	} {
		res := call(t, env, tt.tool, tt.args)
		if strings.Contains(res.Content, ":1:PRIVATE") || strings.Contains(res.Content, ".ssh/id_rsa") {
			t.Errorf("%s over the home reached the secret: %s", tt.tool, res.Content)
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
