package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedactFile: a saved output is redacted in place wherever a secret
// falls, across the chunks it is read in too, and one without a secret
// is left as it was.
func TestRedactFile(t *testing.T) {
	const key = "sk-0123456789abcdef"
	r := newRedactor([]Secret{{Name: "KEY", Value: key}, {Name: "SHORT", Value: "tiny"}})
	dir := t.TempDir()
	for _, at := range []int{0, 1, 256<<10 - 5, 256 << 10, 256<<10 + 3, 3 << 20} {
		body := strings.Repeat("x", at) + key + strings.Repeat("y", 100) + key
		p := filepath.Join(dir, "out.txt")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := r.file(p); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(p)
		want := strings.Repeat("x", at) + "[redacted KEY]" + strings.Repeat("y", 100) + "[redacted KEY]"
		if string(got) != want {
			t.Errorf("key at %d: %d bytes, holds the key: %v", at, len(got), strings.Contains(string(got), key))
		}
	}
	clean := filepath.Join(dir, "clean.txt")
	os.WriteFile(clean, []byte("nothing here"), 0o600)
	before, _ := os.Stat(clean)
	if err := r.file(clean); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(clean)
	if !os.SameFile(before, after) {
		t.Error("a file without a secret was rewritten")
	}
	if err := r.file(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("a missing file: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("temporary files left: %v", ents)
	}
}
