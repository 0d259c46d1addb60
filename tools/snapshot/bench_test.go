package snapshot

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
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

func BenchmarkTake(b *testing.B) {
	root := goSrc(b)
	for b.Loop() {
		s, err := Take(b.Context(), root, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(s.Len()), "files")
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
