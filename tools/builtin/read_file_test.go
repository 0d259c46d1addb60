package builtin

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reasonix/reasonix/tools"
)

// lineSource is an endless text source, one numbered line after another;
// it counts what was read from it.
type lineSource struct {
	n    int
	read int64
	buf  []byte
	part []byte
	stop int // lines to give; 0 for no end
}

func (s *lineSource) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(s.part) == 0 {
			if s.stop > 0 && s.n == s.stop {
				break
			}
			s.n++
			s.buf = append(strconv.AppendInt(append(s.buf[:0], "line "...), int64(s.n), 10), " of a long log\n"...)
			s.part = s.buf
		}
		c := copy(p[n:], s.part)
		s.part = s.part[c:]
		n += c
	}
	atomic.AddInt64(&s.read, int64(n))
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// TestReadFileStreams: a file is read through, not held: a window deep
// in a 4-million-line file comes back with the file's line count, while
// what is kept stays a small fraction of the file.
func TestReadFileStreams(t *testing.T) {
	src := &lineSource{stop: 4_000_000}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := numberLines(context.Background(), src, 1<<40, "big.log", 3_999_990, 5)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content, "3999994\tline 3999994 of a long log\n") ||
		!strings.Contains(res.Content, "Showing lines 3999990-3999994 of 4000000") {
		t.Fatalf("content:\n%s", res.Content)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(atomic.LoadInt64(&src.read)/8) {
		t.Fatalf("reading %d MB allocated %d MB", atomic.LoadInt64(&src.read)>>20, alloc>>20)
	}
}

// TestReadFileStopsWhenCancelled: counting the lines of a file without
// end stops when the call is cancelled.
func TestReadFileStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	src := &lineSource{}
	go func() {
		for {
			if atomic.LoadInt64(&src.read) > 64<<20 {
				cancel()
				return
			}
			runtime.Gosched()
		}
	}()
	if _, err := numberLines(ctx, src, 1<<40, "endless", 1, 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// TestReadFileLongLines: lines longer than the read buffer are cut for
// showing and counted as one line each.
func TestReadFileLongLines(t *testing.T) {
	huge := strings.Repeat("x", 300_000)
	data := "first\n" + huge + "\r\nthird\r\n" + huge
	res, err := numberLines(context.Background(), strings.NewReader(data), int64(len(data)), "wide", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "1\tfirst\n2\t" + strings.Repeat("x", readMaxLineLen) + "… [line cut]\n3\tthird\n4\t"
	if !strings.HasPrefix(res.Content, want) || !strings.Contains(res.Content, "(2 long lines were cut") {
		t.Fatalf("content:\n%.300s", res.Content)
	}
}

// TestEditRefusesHugeFiles: the tools that change a file read it whole,
// so a file too large for that is refused with what to do instead, and
// left as it was.
func TestEditRefusesHugeFiles(t *testing.T) {
	env := testEnv(t, map[string]string{"huge.log": ""})
	path := filepath.Join(env.Root, "huge.log")
	// Sparse: the size is there without the disk space.
	if err := os.Truncate(path, tools.MaxEditBytes+1); err != nil {
		t.Fatal(err)
	}
	res := call(t, env, "edit_file", map[string]any{"path": "huge.log", "old_string": "a", "new_string": "b"})
	if !res.IsError || !strings.Contains(res.Content, "file too large") || !strings.Contains(res.Content, "with a command") {
		t.Fatalf("edit_file: %+v", res)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != tools.MaxEditBytes+1 {
		t.Fatalf("the file changed: %v, %v", fi, err)
	}
}
