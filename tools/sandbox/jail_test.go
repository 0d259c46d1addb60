package sandbox

import (
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
	t.Setenv("GOMODCACHE", "relative/is/ignored")
	dirs := ScratchDirs()
	for _, want := range []string{resolve(os.TempDir()), resolve(os.Getenv("GOCACHE"))} {
		if !slices.Contains(dirs, want) {
			t.Errorf("%v lacks %s", dirs, want)
		}
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			t.Errorf("relative scratch directory %q", d)
		}
	}
}
