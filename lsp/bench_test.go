package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/graph"
	"github.com/reasonix/reasonix/lsp/lsptest"
)

// BenchmarkInitialize starts the real `reasonix lsp` binary and measures
// the initialize round trip and the resident memory once it is idle.
func BenchmarkInitialize(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "reasonix")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/reasonix").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	home, root := b.TempDir(), b.TempDir()
	var rtt, rss []float64
	for b.Loop() {
		cmd := exec.Command(bin, "lsp")
		cmd.Env = append(os.Environ(), "REASONIX_HOME="+home)
		cmd.Dir = root
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReader(stdout)
		start := time.Now()
		writeFrame(stdin, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":{}}}`, "file://"+root))
		readFrame(b, r)
		rtt = append(rtt, float64(time.Since(start).Microseconds())/1000)
		writeFrame(stdin, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
		time.Sleep(200 * time.Millisecond) // let it settle: this measures idle memory
		rss = append(rss, agenttest.ResidentMB(cmd.Process.Pid))
		writeFrame(stdin, `{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
		writeFrame(stdin, `{"jsonrpc":"2.0","method":"exit"}`)
		go io.Copy(io.Discard, r)
		cmd.Wait()
	}
	b.ReportMetric(median(rtt), "init-ms")
	b.ReportMetric(median(rss), "idle-MB")
}

func writeFrame(w io.Writer, s string) { fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(s), s) }

func readFrame(b *testing.B, r *bufio.Reader) []byte {
	n := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	io.ReadFull(r, body)
	return body
}

func median(xs []float64) float64 { return percentile(xs, 50) }

func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

// BenchmarkCodeAction measures textDocument/codeAction on a 5,000-line
// file with 50 diagnostics, alone and while a turn streams in another
// session, and reports p50 and p99 latency.
func BenchmarkCodeAction(b *testing.B) {
	for _, busy := range []bool{false, true} {
		name := "idle"
		if busy {
			name = "during-turn"
		}
		b.Run(name, func(b *testing.B) {
			script := "delay 5ms\ntext " + strings.Repeat("streaming words ", 5000) + "\n"
			root, _ := workspace(b, script, "")
			var src strings.Builder
			src.WriteString("package calc\n\n")
			for i := 0; src.Len() < 1 || i < 4998; i++ {
				fmt.Fprintf(&src, "var v%d = %d // a line of code\n", i, i)
			}
			os.WriteFile(filepath.Join(root, "big.go"), []byte(src.String()), 0o644)
			ed := lsptest.New(b, lsptest.Options{Root: root, Events: true})
			ed.OpenFile("big.go")
			var diags []protocol.Diagnostic
			for i := range 50 {
				line := uint32(2 + i*97)
				diags = append(diags, protocol.Diagnostic{
					Range:   protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line, Character: 10}},
					Message: protocol.String(fmt.Sprintf("problem %d", i)),
				})
			}
			params := &protocol.CodeActionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: ed.URI("big.go")},
				Range:        protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 4900, Character: 5}},
				Context:      protocol.CodeActionContext{Diagnostics: diags},
			}
			if busy {
				args, _ := json.Marshal(map[string]any{"prompt": "talk for a while"})
				ed.Server().ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: "reasonix.start", Arguments: []protocol.LSPAny{args}})
				ed.Await("streaming", 10*time.Second, func(r *lsptest.Recorded) bool { return len(r.Events) > 3 })
			}
			var lat []float64
			for b.Loop() {
				start := time.Now()
				acts, err := ed.Server().CodeAction(context.Background(), params)
				lat = append(lat, float64(time.Since(start).Microseconds())/1000)
				if err != nil || len(acts) != 53 {
					b.Fatalf("%d actions, err %v", len(acts), err)
				}
			}
			b.ReportMetric(percentile(lat, 50), "p50-ms")
			b.ReportMetric(percentile(lat, 99), "p99-ms")
		})
	}
}

// BenchmarkCodeActionGraph measures textDocument/codeAction for a client
// that sends no diagnostic, so the fix comes from gopls behind the
// project graph, on the 5,000-line file's line with an error: with gopls
// warm and the file unchanged ("warm"), and right after each edit of
// that line ("after-edit", where gopls checks the new text within the
// request's bound or the fix is left for a later request). found is the
// share of requests that offered the fix.
func BenchmarkCodeActionGraph(b *testing.B) {
	if _, err := graph.LookPath("gopls"); err != nil {
		b.Skip(err)
	}
	for _, edit := range []bool{false, true} {
		name := "warm"
		if edit {
			name = "after-edit"
		}
		b.Run(name, func(b *testing.B) {
			root, _ := workspace(b, "text no turn runs here\n", "")
			var src strings.Builder
			src.WriteString("package calc\n\nvar v0 = zz0 // the error\n")
			for i := 1; i < 4998; i++ {
				fmt.Fprintf(&src, "var v%d = %d // a line of code\n", i, i)
			}
			os.WriteFile(filepath.Join(root, "big.go"), []byte(src.String()), 0o644)
			ed := lsptest.New(b, lsptest.Options{Root: root})
			ed.OpenFile("big.go")
			params := &protocol.CodeActionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: ed.URI("big.go")},
				Range:        protocol.Range{Start: protocol.Position{Line: 2, Character: 4}, End: protocol.Position{Line: 2, Character: 4}},
			}
			ask := func() int {
				acts, err := ed.Server().CodeAction(context.Background(), params)
				if err != nil {
					b.Fatal(err)
				}
				return len(acts)
			}
			for deadline := time.Now().Add(time.Minute); ask() != 1; {
				if time.Now().After(deadline) {
					b.Fatal("gopls reported nothing within a minute")
				}
			}
			var lat []float64
			found, n := 0, 0
			for b.Loop() {
				if edit {
					ed.Type("big.go", fmt.Sprintf("zz%d ", n), fmt.Sprintf("zz%d ", n+1))
				}
				n++
				start := time.Now()
				got := ask()
				lat = append(lat, float64(time.Since(start).Microseconds())/1000)
				found += got
			}
			b.ReportMetric(percentile(lat, 50), "p50-ms")
			b.ReportMetric(percentile(lat, 99), "p99-ms")
			b.ReportMetric(float64(found)/float64(n), "found")
		})
	}
}
