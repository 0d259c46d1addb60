package walk

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenRemovedFile: a file removed between its open and the look at
// its real path is refused rather than judged by a path that no longer
// names it.
func TestOpenRemovedFile(t *testing.T) {
	dir := realTempDir(t)
	name := filepath.Join(dir, "gone")
	writeFiles(t, dir, map[string]string{"gone": "x"})
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p, err := fdPath(int(f.Fd()), name); err != nil || p != name {
		t.Fatalf("fdPath = %q, %v; want %q", p, err, name)
	}
	os.Remove(name)
	if p, err := fdPath(int(f.Fd()), name); err == nil {
		t.Errorf("fdPath of a removed file = %q, want an error", p)
	}
}
