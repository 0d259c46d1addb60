package agent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonix/reasonix/tools"
)

// BenchmarkCheckpoint measures what recording one turn's checkpoint
// costs when the turn ends: 10 files of 10 KB, and 1 file of 1 MB, each
// changed (a text before and a text after, both new to the store). It
// reports the bytes written per turn.
func BenchmarkCheckpoint(b *testing.B) {
	for _, c := range []struct {
		name        string
		files, size int
	}{{"10x10KB", 10, 10 << 10}, {"1x1MB", 1, 1 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			root := b.TempDir()
			a := &Agent{Env: &tools.Env{Root: root, FS: tools.DiskFS{}}}
			st := &Store{Dir: b.TempDir()}
			log := &changeLog{}
			for i := range c.files {
				p := filepath.Join(root, fmt.Sprintf("f%d.go", i))
				before := bytes.Repeat([]byte(fmt.Sprintf("// line of file %d before\n", i)), c.size/26)
				after := bytes.Repeat([]byte(fmt.Sprintf("// line of file %d after \n", i)), c.size/26)
				if err := os.WriteFile(p, after, 0o644); err != nil {
					b.Fatal(err)
				}
				log.remember(p, original{text: before, existed: true, known: true, source: SourceTool, last: SourceTool})
			}
			written, turns := 0, 0
			for b.Loop() {
				i := turns
				turns++
				// A session of its own each time: nothing is
				// deduplicated against an earlier turn.
				s := &Session{checkpoints: &checkpointLog{st: diskCheckpoints{st.Checkpoints(fmt.Sprint(i))}}}
				n, err := a.recordCheckpoint(s, 1, "change them", log)
				if err != nil {
					b.Fatal(err)
				}
				written += n
			}
			b.ReportMetric(float64(written)/float64(turns), "written-B/op")
		})
	}
}
