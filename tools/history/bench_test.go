package history

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// generateStore writes about size bytes of sessions to dir: 400 sessions
// of messages drawn from a 20,000-word vocabulary with Zipf frequencies,
// half of them in one workspace.
func generateStore(b *testing.B, dir string, size int64) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := vocabulary()
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, uint64(len(vocab)-1))
	const sessions = 400
	per := size / sessions
	roles := []string{"user", "assistant", "tool"}
	for s := range sessions {
		root := "/work/a"
		if s%2 == 1 {
			root = fmt.Sprintf("/work/other%d", s%7)
		}
		var msgs []string
		var n int64
		for n < per {
			var sb strings.Builder
			sb.WriteString(roles[r.IntN(len(roles))] + ": ")
			for range 50 + r.IntN(250) {
				sb.WriteString(vocab[zipf.Uint64()])
				sb.WriteByte(' ')
			}
			msgs = append(msgs, sb.String())
			n += int64(sb.Len()) + 60
		}
		writeSession(b, dir, fmt.Sprintf("20261101-%06d-abcdef", s), root, msgs...)
	}
}

// vocabulary is the generated store's words, commonest first.
func vocabulary() []string {
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x", i*2654435761%1000003)
	}
	return vocab
}

var benchStore string

// BenchmarkHistorySearch searches about 100 MB of sessions. cold-project
// is a new index's first project-scope search; project and global are
// warm: the index is built before the timer starts, and its build time
// and size are reported beside the search time.
func BenchmarkHistorySearch(b *testing.B) {
	if benchStore == "" {
		dir, err := os.MkdirTemp("", "reasonix-history-bench-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
		generateStore(b, dir, 100<<20)
		benchStore = dir
	}
	var bytes int64
	entries, _ := os.ReadDir(benchStore)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			bytes += fi.Size()
		}
	}
	x := New(benchStore, nil)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	start := time.Now()
	if _, err := x.sessions(nil); err != nil {
		b.Fatal(err)
	}
	build := time.Since(start)
	// What the index keeps on the heap once built.
	index := heap() - before
	// A common and a rare word, three middling ones, one rare one.
	v := vocabulary()
	queries := []string{v[3] + " " + v[9000], v[200] + " " + v[700] + " " + v[1500], v[15000]}
	// A new process's first project-scope search: no index yet.
	b.Run("cold-project", func(b *testing.B) {
		for b.Loop() {
			x := New(benchStore, nil)
			if _, err := x.Search(b.Context(), tools.HistoryQuery{Query: queries[0], Root: "/work/a"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, scope := range []bool{false, true} {
		name := "project"
		if scope {
			name = "global"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := x.Search(b.Context(), tools.HistoryQuery{Query: queries[i%len(queries)], Root: "/work/a", Global: scope}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(bytes)/(1<<20), "store-MB")
			b.ReportMetric(build.Seconds()*1000, "build-ms")
			b.ReportMetric(float64(index)/(1<<20), "index-MB")
		})
	}
}
