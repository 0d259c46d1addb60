package graph

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// BenchmarkReferencesStd compares a warm find_references against the
// gopls command line, on Go's own source tree: the references of
// net/http.Get, asked by the position of its name in net/http/client.go.
// Each iteration asks both once: the Manager's gopls, started before the
// timing and kept warm, and `gopls references file:line:col` as a fresh
// process. It reports both in ms/op and their ratio, the cold start (the
// first question, including the server's start and the workspace load),
// the server's resident memory, and the number of references, which must
// be the same from both.
//
//	go test -run '^$' -bench ReferencesStd -benchtime 5x ./graph/
func BenchmarkReferencesStd(b *testing.B) {
	gopls := requireServer(b, "gopls")
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	file := filepath.Join(root, "net", "http", "client.go")
	line, col := findDecl(b, file, "func Get(")
	ctx := context.Background()

	m := newManager(b, root, nil, nil, gopls)
	q := tools.GraphQuery{Action: "find_references", Path: file, Line: line, Column: col}
	start := time.Now()
	first := references(b, ctx, m, q)
	cold := time.Since(start)

	cli := func() int {
		cmd := exec.Command(gopls.Command[0], "references", fmt.Sprintf("%s:%d:%d", file, line, col))
		cmd.Dir = root // the command's workspace is its working directory
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("gopls references: %v", err)
		}
		return bytes.Count(bytes.TrimSpace(out), []byte("\n")) + 1
	}

	var ours, theirs time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		n := references(b, ctx, m, q)
		ours += time.Since(start)

		start = time.Now()
		want := cli()
		theirs += time.Since(start)
		if n != want || n != first {
			b.Fatalf("references of net/http.Get: %d from the graph (%d cold), %d from the gopls command", n, first, want)
		}
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(ours), "graph-ms/op")
	b.ReportMetric(per(theirs), "cli-ms/op")
	b.ReportMetric(float64(theirs)/float64(ours), "x-faster")
	b.ReportMetric(float64(cold.Milliseconds()), "cold-ms")
	b.ReportMetric(float64(first), "refs")
	b.ReportMetric(float64(rss(b, onlyServerB(b, m).cmd.Process.Pid))/1024, "gopls-rss-MB")
}

// references runs a find_references question and returns its total.
func references(b *testing.B, ctx context.Context, m *Manager, q tools.GraphQuery) int {
	out, err := m.Query(ctx, q)
	if err != nil {
		b.Fatal(err)
	}
	var res struct{ Total int }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		b.Fatal(err)
	}
	return res.Total
}

// findDecl returns the 1-based line and column of the name declared by
// the first line starting with prefix.
func findDecl(b *testing.B, file, prefix string) (line, col int) {
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1, len("func ") + 1
		}
	}
	b.Fatalf("no %q in %s", prefix, file)
	return 0, 0
}

// rss returns a process's resident memory in KiB, from /proc.
func rss(b *testing.B, pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Logf("no resident memory: %v", err)
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}

func onlyServerB(b *testing.B, m *Manager) *server {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, sv := range m.sups {
		if s := sv.running(); s != nil {
			return s
		}
	}
	b.Fatal("no server running")
	return nil
}
