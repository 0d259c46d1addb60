package snapshot

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/walk/walktest"
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

// benchSizes are the workspace sizes the per-command benchmarks run at.
var benchSizes = []int{1, 10_000, 100_000}

// benchTree makes a tree of n empty files once per size and benchmark
// run, and returns its root and a file deep inside.
func benchTree(b *testing.B, n int) (root, deep string) {
	root = b.TempDir()
	deep = filepath.Join(root, "only")
	if n == 1 {
		if err := os.WriteFile(deep, nil, 0o644); err != nil {
			b.Fatal(err)
		}
		return root, deep
	}
	return root, bigTree(b, root, n)
}

// BenchmarkCommand is the cost of tracking one shell command that
// changes one file, at n files: a Tracker's window around it
// (tracker), and the two snapshots compared that it replaces
// (snapshots). The command itself is a write from the benchmark.
func BenchmarkCommand(b *testing.B) {
	for _, n := range benchSizes {
		root, deep := benchTree(b, n)
		opts := Options{Control: isControl, MaxFiles: 2 * n}
		b.Run(fmt.Sprintf("tracker/files=%d", n), func(b *testing.B) {
			tr := NewTracker(root, opts)
			defer tr.Close()
			if _, err := tr.Sync(b.Context()); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				w, _, err := tr.Begin(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				i++
				if err := os.WriteFile(deep, []byte(strconv.Itoa(i)), 0o644); err != nil {
					b.Fatal(err)
				}
				c, err := tr.End(b.Context(), w)
				if err != nil || len(c.Diffs) != 1 {
					b.Fatalf("%v, %v", c.Diffs, err)
				}
			}
		})
		b.Run(fmt.Sprintf("snapshots/files=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				before, err := Take(b.Context(), root, opts)
				if err != nil {
					b.Fatal(err)
				}
				i++
				if err := os.WriteFile(deep, []byte(strconv.Itoa(i)), 0o644); err != nil {
					b.Fatal(err)
				}
				after, err := Take(b.Context(), root, opts)
				if err != nil {
					b.Fatal(err)
				}
				if d := Diff(before, after); len(d) != 1 {
					b.Fatalf("%v", d)
				}
			}
		})
	}
}

// BenchmarkTrackerBaseline is the Tracker's first listing at n files,
// and the memory it takes per file: B/file is the heap it holds after
// (after a collection), peak-B/file the most heap in use seen while it
// lists (garbage not yet collected included, as the process sees it),
// alloc-B/file all it allocated. files= is benchTree's tree, of 1,000
// files a directory; repo/files= a repository's shape (walktest.Build:
// 32 files a directory, longer names), where what is kept per directory
// shows.
func BenchmarkTrackerBaseline(b *testing.B) {
	for _, n := range benchSizes[1:] {
		root, _ := benchTree(b, n)
		benchBaseline(b, fmt.Sprintf("files=%d", n), root, n)
	}
	for _, n := range benchSizes[1:] {
		root := b.TempDir()
		tree, err := walktest.Build(root, n)
		if err != nil {
			b.Fatal(err)
		}
		benchBaseline(b, fmt.Sprintf("repo/files=%d", n), root, tree.Files)
	}
}

// benchBaseline runs BenchmarkTrackerBaseline's measure on the tree at
// root, of n files.
func benchBaseline(b *testing.B, name, root string, n int) {
	b.Run(name, func(b *testing.B) {
		for b.Loop() {
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			stop := make(chan struct{})
			peak := make(chan uint64)
			go func() { peak <- peakHeap(stop) }()
			tr := NewTracker(root, Options{Control: isControl})
			_, err := tr.Sync(b.Context())
			close(stop)
			top := <-peak
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/float64(n), "B/file")
			b.ReportMetric(float64(top-min(top, m0.HeapAlloc))/float64(n), "peak-B/file")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(n), "alloc-B/file")
			tr.Close()
		}
	})
}

// peakHeap samples the bytes of heap objects (live or not yet
// collected) until stop is closed, and returns the most it saw.
func peakHeap(stop <-chan struct{}) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var top uint64
	for {
		metrics.Read(sample)
		top = max(top, sample[0].Value.Uint64())
		select {
		case <-stop:
			return top
		case <-tick.C:
		}
	}
}

// BenchmarkKeeperBase is the reading of a Tracker's Keeper base in a
// git repository of n files, all committed, 100 of them changed since
// and 100 more untracked, and the heap the base holds (MB).
// REASONIX_BENCH_KEEPER_FILES sets n (100,000 unless set).
func BenchmarkKeeperBase(b *testing.B) {
	n := 100_000
	if v := os.Getenv("REASONIX_BENCH_KEEPER_FILES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("REASONIX_BENCH_KEEPER_FILES=%q: %v", v, err)
		}
	}
	root, _ := benchTree(b, n)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=r", "-c", "user.email=r@r", "commit", "-qm", "c"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for i := range 100 {
		write := func(name string) {
			if err := os.WriteFile(filepath.Join(root, name), []byte(name), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		write(fmt.Sprintf("d000/e00/f%d", i))
		write(fmt.Sprintf("untracked%d", i))
	}
	b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			tr := NewTracker(root, Options{Control: isControl, MaxFiles: 2 * n})
			if _, err := tr.Sync(b.Context()); err != nil {
				b.Fatal(err)
			}
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			b.StartTimer()
			k := tr.Keeper(b.Context(), KeepOptions{})
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/(1<<20), "MB")
			b.ReportMetric(float64(len(k.texts)), "read")
			runtime.KeepAlive(k)
			tr.Close()
			b.StartTimer()
		}
	})
}
