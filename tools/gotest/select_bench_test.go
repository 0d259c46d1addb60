package gotest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkSelectTests measures the choice of tests alone (parsing and
// the walk through importers of importers) on this repository, for a
// change to a function of a package most others import (tools) and of
// one fewer do (graph). Listing, done once, is not counted: it is the
// same whatever is chosen.
func BenchmarkSelectTests(b *testing.B) {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	overlay := filepath.Join(b.TempDir(), "overlay.json")
	if err := os.WriteFile(overlay, []byte(`{"Replace": {}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	pkgs, err := list(context.Background(), Options{Root: root}, overlay)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ dir, name string }{
		{"tools", "WithoutVars"},
		{"graph", "Impacts"},
	} {
		b.Run(c.dir+"."+c.name, func(b *testing.B) {
			changed := map[string][]string{filepath.Join(root, c.dir): {c.name}}
			var n int
			for b.Loop() {
				n = len(selectTests(pkgs, changed, nil))
			}
			b.ReportMetric(float64(len(pkgs)), "packages")
			b.ReportMetric(float64(n), "tests")
		})
	}
}
