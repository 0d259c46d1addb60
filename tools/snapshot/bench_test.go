package snapshot

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/reasonix/reasonix/tools/permission"
)

// The Go source tree stands for a large workspace outside a repository
// (REASONIX_BENCH_TREE names another, such as a repository's work tree):
// BenchmarkTake is the cost of the snapshot before and after every shell
// command; BenchmarkKeeper the one-off cost, per turn, of keeping texts.
func goSrc(b *testing.B) string {
	if dir := os.Getenv("REASONIX_BENCH_TREE"); dir != "" {
		return dir
	}
	return filepath.Join(runtime.GOROOT(), "src")
}

// BenchmarkTake/control is the snapshot the agent takes, which also
// finds the control paths by their names (and the ignored ones) for the
// control watch.
func BenchmarkTake(b *testing.B) {
	root := goSrc(b)
	control := func(rel string) bool {
		_, ok := permission.ControlRoot(rel)
		return ok
	}
	for _, opts := range []struct {
		name string
		opts Options
	}{{"plain", Options{}}, {"control", Options{Control: control}}} {
		b.Run(opts.name, func(b *testing.B) {
			for b.Loop() {
				s, err := Take(b.Context(), root, opts.opts)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(s.Len()), "files")
			}
		})
	}
}

func BenchmarkKeeper(b *testing.B) {
	root := goSrc(b)
	s, err := Take(b.Context(), root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		k := NewKeeper(b.Context(), s, KeepOptions{})
		b.ReportMetric(float64(len(k.texts)), "kept")
	}
}
