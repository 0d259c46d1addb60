package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// numbered returns n bytes of numbered lines.
func numbered(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d of a long output\n", i)
	}
	return b.String()[:n]
}

// TestOutputSaverKeepsTheEdges: an output that fits SavedHeadBytes and
// SavedTailBytes is saved whole; a longer one as its first
// SavedHeadBytes, a line saying what was dropped, and its last
// SavedTailBytes, however it was cut into writes.
func TestOutputSaverKeepsTheEdges(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  string
	}{
		{"short", numbered(1000)},
		{"head and tail exactly", numbered(SavedHeadBytes + SavedTailBytes)},
		{"a byte more", numbered(SavedHeadBytes + SavedTailBytes + 1)},
		{"much more", numbered(SavedHeadBytes + 3*SavedTailBytes + 12345)},
		{"one long line", strings.Repeat("x", SavedHeadBytes+2*SavedTailBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out", "call.txt")
			s, err := NewOutputSaver(path)
			if err != nil {
				t.Fatal(err)
			}
			for i, n := 0, 1; i < len(tc.out); i, n = i+n, n*3%65521+1 {
				s.Write([]byte(tc.out[i:min(i+n, len(tc.out))]))
			}
			saved, err := s.Close()
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			file := string(b)
			if saved.Lines != int64(strings.Count(file, "\n")) {
				t.Errorf("Lines %d, the file has %d", saved.Lines, strings.Count(file, "\n"))
			}
			if len(tc.out) <= SavedHeadBytes+SavedTailBytes {
				if file != tc.out || saved.Dropped != 0 {
					t.Fatalf("saved %d bytes of %d, dropped %d", len(file), len(tc.out), saved.Dropped)
				}
				return
			}
			dropped := len(tc.out) - SavedHeadBytes - SavedTailBytes
			head, tail := tc.out[:SavedHeadBytes], tc.out[len(tc.out)-SavedTailBytes:]
			marker := fmt.Sprintf("[... %d bytes (%d line breaks) dropped here", dropped, strings.Count(tc.out[SavedHeadBytes:len(tc.out)-SavedTailBytes], "\n"))
			mid, ok := strings.CutPrefix(file, head)
			mid, ok2 := strings.CutSuffix(mid, tail)
			if !ok || !ok2 || saved.Dropped != int64(dropped) || !strings.Contains(mid, marker) || len(mid) > 200 {
				t.Fatalf("saved %d bytes, dropped %d; between the edges: %.200q", len(file), saved.Dropped, mid)
			}
		})
	}
}

// TestCapResultSavesTheEdgesOfAHugeResult: a result longer than an
// OutputSaver keeps is saved as its edges, and the note's read_file call
// shows the saved file's lines between what the result kept.
func TestCapResultSavesTheEdgesOfAHugeResult(t *testing.T) {
	content := numbered(SavedHeadBytes + 2*SavedTailBytes)
	path := filepath.Join(t.TempDir(), "call.txt")
	got := CapResult(content, path)
	head, rest, _ := strings.Cut(got, "[... ")
	note, tail, _ := strings.Cut(rest, "\n")
	m := regexp.MustCompile(`read_file (\{.*?\}) shows what was kept`).FindStringSubmatch(note)
	if m == nil || !strings.Contains(note, fmt.Sprintf("saved but for %d bytes", SavedTailBytes)) {
		t.Fatalf("the note: %q", note)
	}
	var call struct {
		Path          string
		Offset, Limit int
	}
	json.Unmarshal([]byte(m[1]), &call)
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if call.Path != path || head+linesOf(string(saved), call.Offset, call.Limit)+tail != string(saved) {
		t.Fatalf("read_file %s does not show what the result left out of the saved file", m[1])
	}
}
