package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A forbidden path that shares its parent with the temporary directory or
// the workspace (a home under /tmp in a container; a workspace holding a
// forbidden directory) costs nothing to the entries created beside it
// later: a command can make a directory there and write and read files
// in it, as go test does with its work directory. The forbidden paths
// stay unreadable, and the command cannot take them out of hiding.
func TestHostForbiddenBesideNewEntries(t *testing.T) {
	needLandlock(t)
	root := realTempDir(t)
	home := filepath.Join(root, "home")
	ws := filepath.Join(root, "ws")
	tmp := filepath.Join(root, "tmp")
	secrets := map[string]string{
		filepath.Join(home, ".ssh", "id_ed25519"): "home key",
		filepath.Join(home, ".netrc"):             "netrc password",
		filepath.Join(ws, "keys", "prod.pem"):     "workspace key",
	}
	for p, content := range secrets {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	forbid := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".netrc"), filepath.Join(ws, "keys")}
	// The home and the temporary directory share root, which is
	// writable as a whole, as /tmp is.
	h := NewHost(&Jail{Policy: New([]string{ws}, forbid), Scratch: []string{root}})
	t.Cleanup(func() { h.Close() })
	// Until a command ran hidden, the model is told what splitting costs.
	if note, _ := h.Jail.Explain("Permission denied"); !strings.Contains(note, "cannot be read back") {
		t.Errorf("before any command: %s", note)
	}

	for _, dir := range []string{root, home, ws, tmp} {
		command := `set -e
mkdir -p new/sub
echo built > new/sub/_testmain.go
cat new/sub/_testmain.go
echo top > top.txt
cat top.txt >> new/sub/_testmain.go
cp -r new copied
cat copied/sub/_testmain.go
rm -r new copied top.txt`
		out, st := hostRun(t, h, dir, command, true)
		namespaced(t, h, st)
		if st.Code != 0 || out != "built\nbuilt\ntop\n" {
			t.Errorf("in %s: exit %d: %q", dir, st.Code, out)
		}
	}
	if note, _ := h.Jail.Explain("Permission denied"); strings.Contains(note, "cannot be read back") {
		t.Errorf("with the forbidden paths hidden: %s", note)
	}
	// A go-build-like directory made at the top of the scratch directory
	// by a program told TMPDIR is root.
	out, st := hostRun(t, h, ws, `d=$(TMPDIR=`+root+` mktemp -d) && echo ok > "$d/f" && cat "$d/f" && rm -r "$d"`, true)
	if st.Code != 0 || out != "ok\n" {
		t.Errorf("mktemp -d in the scratch directory: exit %d: %q", st.Code, out)
	}

	for p, content := range secrets {
		for i, command := range []string{
			"cat " + p,
			"cat /proc/self/root" + p,
			"cd " + filepath.Dir(p) + " && cat " + filepath.Base(p),
			// The copy of a hidden file is an empty device at most.
			"cp -r " + filepath.Dir(p) + " " + filepath.Join(tmp, "copy") + " && cat " + filepath.Join(tmp, "copy", filepath.Base(p)),
		} {
			out, st := hostRun(t, h, ws, command, true)
			// Refused, so that the command and the model know why,
			// for root (who may look into a directory of mode 0) too.
			if i < 3 && (st.Code == 0 || !strings.Contains(out, "Permission denied")) || strings.Contains(out, content) {
				t.Errorf("%s: exit %d: %q", command, st.Code, out)
			}
			os.RemoveAll(filepath.Join(tmp, "copy"))
		}
	}
	// A command started inside a forbidden directory cannot read it
	// through its working directory either.
	out, st = hostRun(t, h, filepath.Join(ws, "keys"), "cat prod.pem; cat ./prod.pem", true)
	if st.Code == 0 || strings.Contains(out, "workspace key") {
		t.Errorf("from inside: exit %d: %q", st.Code, out)
	}
	// The forbidden paths cannot be moved, removed, replaced or unhidden.
	for _, command := range []string{
		"mv " + filepath.Join(home, ".ssh") + " " + filepath.Join(home, "ssh") + "; cat " + filepath.Join(home, "ssh", "id_ed25519") + "; mv " + filepath.Join(home, "ssh") + " " + filepath.Join(home, ".ssh"),
		"mv " + filepath.Join(home, ".netrc") + " " + filepath.Join(home, "netrc") + "; cat " + filepath.Join(home, "netrc") + "; mv " + filepath.Join(home, "netrc") + " " + filepath.Join(home, ".netrc"),
		"rm -rf " + filepath.Join(ws, "keys") + " " + filepath.Join(home, ".netrc"),
		"mv " + home + " " + filepath.Join(root, "h2") + "; cat " + filepath.Join(root, "h2", ".netrc") + "; mv " + filepath.Join(root, "h2") + " " + home,
		"umount " + filepath.Join(home, ".ssh") + " && cat " + filepath.Join(home, ".ssh", "id_ed25519"),
		"umount -l " + filepath.Join(ws, "keys") + "; cat " + filepath.Join(ws, "keys", "prod.pem"),
		"unshare -Urm sh -c 'umount -l " + filepath.Join(home, ".netrc") + "; cat " + filepath.Join(home, ".netrc") + "'",
		"chmod 755 " + filepath.Join(ws, "keys") + "; cat " + filepath.Join(ws, "keys", "prod.pem"),
	} {
		out, _ := hostRun(t, h, ws, command, true)
		for _, content := range secrets {
			if strings.Contains(out, content) {
				t.Errorf("%s: %q", command, out)
			}
		}
	}
	for p, content := range secrets {
		if b, err := os.ReadFile(p); err != nil || string(b) != content {
			t.Errorf("%s is now %q, %v", p, b, err)
		}
	}
}

// BenchmarkHostStartForbidden measures what hiding forbidden paths adds
// to starting a confined command: compare none with the defaults, and
// with directories of many files (which a command run as root mirrors).
func BenchmarkHostStartForbidden(b *testing.B) {
	if _, err := landlockABI(); err != nil {
		b.Skip(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("bash not in PATH")
	}
	for _, files := range []int{-1, 0, 50} {
		name := "none"
		if files >= 0 {
			name = fmt.Sprintf("defaults,%d-files-each", files)
		}
		b.Run(name, func(b *testing.B) {
			root := b.TempDir()
			var forbid []string
			if files >= 0 {
				forbid = HomeDefaults(root)
				for _, f := range forbid {
					if err := os.MkdirAll(f, 0o755); err != nil {
						b.Fatal(err)
					}
					for i := range files {
						if err := os.WriteFile(filepath.Join(f, fmt.Sprint(i)), nil, 0o600); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			h := NewHost(&Jail{Policy: New([]string{root}, forbid)})
			defer h.Close()
			for b.Loop() {
				cmd := exec.Command(bash, "-c", "true")
				cmd.Dir = root
				p, err := h.Start(cmd, true)
				if err != nil {
					b.Fatal(err)
				}
				if st := p.Wait(); st.Code != 0 {
					b.Fatalf("exit %d", st.Code)
				}
			}
		})
	}
}
