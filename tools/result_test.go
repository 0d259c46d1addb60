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

// readCall finds the read_file call in a capped result's note.
var readCall = regexp.MustCompile(`read_file (\{.*?\}) shows them`)

// linesOf returns lines [offset, offset+limit) of s, 1-based, each with
// its line break.
func linesOf(s string, offset, limit int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[offset-1:min(offset-1+limit, len(lines))], "")
}

func TestCapResult(t *testing.T) {
	var b strings.Builder
	for i := 1; b.Len() < 200_000; i++ {
		fmt.Fprintf(&b, "line %d of a long result, with some text to make it wider\n", i)
	}
	content := b.String()
	if CapResult("short", "") != "short" {
		t.Fatal("a short result was changed")
	}
	path := filepath.Join(t.TempDir(), "out", "call.txt")
	got := CapResult(content, path)
	if len(got) > MaxResultBytes+512 {
		t.Fatalf("capped result is %d bytes", len(got))
	}
	head, rest, _ := strings.Cut(got, "[... ")
	_, tail, _ := strings.Cut(rest, "\n")
	if !strings.HasPrefix(content, head) || !strings.HasSuffix(content, tail) || len(head) < ResultEdgeBytes-edgeSlack || len(tail) < ResultEdgeBytes-edgeSlack {
		t.Fatalf("head %d and tail %d bytes are not the content's", len(head), len(tail))
	}
	saved, err := os.ReadFile(path)
	if err != nil || string(saved) != content {
		t.Fatalf("saved %d bytes, %v", len(saved), err)
	}
	m := readCall.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no read_file call in %q", rest[:200])
	}
	var call struct {
		Path          string
		Offset, Limit int
	}
	json.Unmarshal([]byte(m[1]), &call)
	// The call shows exactly what was left out.
	if call.Path != path || head+linesOf(content, call.Offset, call.Limit)+tail != content {
		t.Fatalf("read_file %s does not show what was left out", m[1])
	}
	// Without a file the note only counts.
	if got := CapResult(content, ""); strings.Contains(got, "read_file") || !strings.Contains(got, " bytes omitted ...]") {
		t.Fatalf("without a file: %q", got[len(head)-20:len(head)+100])
	}
}
