// Package pytesttest gives tests a python3 with pytest on PATH.
package pytesttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Require puts a python3 that has pytest first on PATH for the rest of
// tb: the one on PATH, or the system's (where Debian's python3-pytest
// installs it). Without one it skips tb, or fails it when
// REASONIX_REQUIRE_PEERS=1.
func Require(tb testing.TB) {
	tb.Helper()
	var candidates []string
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, "/usr/bin/python3")
	for i, p := range candidates {
		if exec.Command(p, "-m", "pytest", "--version").Run() != nil {
			continue
		}
		if i > 0 {
			bin := tb.TempDir()
			if err := os.Symlink(p, filepath.Join(bin, "python3")); err != nil {
				tb.Fatal(err)
			}
			tb.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
		return
	}
	if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
		tb.Fatal("no python3 with pytest; REASONIX_REQUIRE_PEERS=1 requires it (make peers installs python3-pytest)")
	}
	tb.Skip("no python3 with pytest (make peers installs python3-pytest)")
}
