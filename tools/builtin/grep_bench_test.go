package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// BenchmarkGrepVsRipgrep searches Go's own source tree with the grep tool
// and with ripgrep, alternately in each iteration, and reports the ratio
// of their wall times as x-ripgrep (lower is better; 1 means as fast).
//
//	go test ./tools/builtin -run '^$' -bench GrepVsRipgrep -benchtime 5x
//
// ripgrep runs with the flags that make it search the same files as the
// tool: hidden files included, .gitignore files honoured although GOROOT
// is not a git repository, and no .ignore or global ignore files. (GOROOT
// has no .git, .hg or .svn directory, which the tool always skips.)
func BenchmarkGrepVsRipgrep(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg is not on PATH")
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no go command:", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	env := &tools.Env{Root: src, FS: tools.DiskFS{}}
	rgFlags := []string{"--no-config", "--hidden", "--no-require-git", "--no-ignore-dot", "--no-ignore-global"}

	for _, c := range []struct{ name, pattern string }{
		{"literal", "func NewRequest"},
		{"regex", `func \(\w+ \*Server\) \w+\(`},
	} {
		b.Run(c.name, func(b *testing.B) {
			// The two must agree before their times mean anything.
			ours := grepBenchCount(b, env, c.pattern)
			theirs := ripgrepCount(b, rg, append(rgFlags, "--count", c.pattern, src))
			if ours != theirs {
				b.Fatalf("grep found %d matching lines, ripgrep %d", ours, theirs)
			}
			b.Logf("%d matching lines for %s", ours, grepQuote(c.pattern))

			args, _ := json.Marshal(map[string]any{"pattern": c.pattern})
			rgArgs := append(rgFlags, "-n", c.pattern, src)
			benchAgainst(b, grepTool{}, env, args, rg, rgArgs, "x-ripgrep", "grep-ms/op")
		})
	}
}

// grepBenchCount runs the tool in count mode and returns the total number
// of matching lines.
func grepBenchCount(b *testing.B, env *tools.Env, pattern string) int {
	args, _ := json.Marshal(map[string]any{"pattern": pattern, "output_mode": "count"})
	res, err := (grepTool{}).Execute(context.Background(), env, args)
	if err != nil || res.IsError {
		b.Fatalf("grep: %v %s", err, res.Content)
	}
	n, _ := strconv.Atoi(strings.Fields(res.Summary)[0])
	return n
}

// ripgrepCount runs rg --count and sums its per-file counts.
func ripgrepCount(b *testing.B, rg string, args []string) int {
	out, err := exec.Command(rg, args...).Output()
	if err != nil {
		b.Fatalf("rg: %v", err)
	}
	total := 0
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		i := bytes.LastIndexByte(line, ':')
		n, err := strconv.Atoi(string(line[i+1:]))
		if err != nil {
			b.Fatalf("rg output %q", line)
		}
		total += n
	}
	return total
}

// benchAgainst runs the tool's call and rg with rgArgs alternately in
// each iteration, and reports the ratio of their wall times as ratio
// (lower is better; 1 means as fast) and the tool's time per call as
// perOp, beside rg's as rg-ms/op. rg's output goes to the null device.
func benchAgainst(b *testing.B, t tools.Tool, env *tools.Env, args json.RawMessage, rg string, rgArgs []string, ratio, perOp string) {
	var oursTime, rgTime time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		if _, err := t.Execute(context.Background(), env, args); err != nil {
			b.Fatal(err)
		}
		oursTime += time.Since(start)

		start = time.Now()
		if err := exec.Command(rg, rgArgs...).Run(); err != nil {
			b.Fatal(err)
		}
		rgTime += time.Since(start)
		n++
	}
	b.ReportMetric(float64(oursTime)/float64(rgTime), ratio)
	b.ReportMetric(oursTime.Seconds()*1000/float64(n), perOp)
	b.ReportMetric(rgTime.Seconds()*1000/float64(n), "rg-ms/op")
}
