package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/provider/openai"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/tools"
	_ "github.com/reasonix/reasonix/tools/builtin"
	"github.com/reasonix/reasonix/tools/permission"
)

// session20 scripts a 20-request session that reads, searches, edits and
// runs commands in a small project, the way a real task goes.
func session20() string {
	var b strings.Builder
	steps := []string{
		`call ls {}`,
		`call read_file {"path": "main.go"}` + "\n" + `call read_file {"path": "util.go"}`,
		`call grep {"pattern": "func "}`,
		`call glob {"pattern": "**/*.go"}`,
		`call bash {"command": "echo building; echo ok"}`,
	}
	for i := range 19 {
		if i > 0 {
			b.WriteString("---\n")
		}
		fmt.Fprintf(&b, "reasoning Step %d: continue the investigation.\n", i+1)
		if i%6 == 5 {
			fmt.Fprintf(&b, "call edit_file {\"path\": \"util.go\", \"old_string\": \"// marker %d\", \"new_string\": \"// marker %d\"}\n", i, i+1)
		} else {
			b.WriteString(steps[i%len(steps)] + "\n")
		}
	}
	b.WriteString("---\ntext Done: the project builds and the markers are updated.\n")
	return b.String()
}

// newScriptedAgent returns an agent wired to a fresh scripted server
// playing script, in a workspace holding a small Go project.
func newScriptedAgent(tb testing.TB, script string) (*agent.Agent, *scripted.Server) {
	return newScriptedAgentWith(tb, script, scripted.Options{})
}

// newScriptedAgentWith is newScriptedAgent with the server's options.
func newScriptedAgentWith(tb testing.TB, script string, opts scripted.Options) (*agent.Agent, *scripted.Server) {
	tb.Helper()
	srv, url := agenttest.Serve(tb, script, opts)
	prov, err := openai.New(provider.Config{Name: "scripted", BaseURL: url, Model: "deepseek-flash"})
	if err != nil {
		tb.Fatal(err)
	}
	root := tb.TempDir()
	var util strings.Builder
	util.WriteString("package main\n\n")
	for i := range 40 {
		fmt.Fprintf(&util, "// marker %d\nfunc helper%d() int { return %d }\n\n", i, i, i)
	}
	for name, body := range map[string]string{
		"go.mod":  "module example.com/p\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(helper1())\n}\n",
		"util.go": util.String(),
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	reg, err := tools.DefaultRegistry(nil)
	if err != nil {
		tb.Fatal(err)
	}
	a := &agent.Agent{
		Provider:    prov,
		Model:       "deepseek-flash",
		ModelRef:    "scripted/deepseek-flash",
		Tools:       reg,
		Env:         &tools.Env{Root: root, FS: tools.DiskFS{}, BashTimeout: time.Minute},
		Gate:        &permission.Checker{},
		ParallelMax: 3,
		Store:       &agent.Store{Dir: filepath.Join(tb.TempDir(), "sessions")},
	}
	return a, srv
}

// rawField returns one top-level field of a JSON object exactly as sent.
func rawField(tb testing.TB, body, field string) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		tb.Fatal(err)
	}
	return m[field]
}

// TestPromptExtendsByteForByte checks the cache-first invariant on the
// wire: over a 20-request session, every request's messages array begins
// with the previous request's messages byte for byte, and the tools array
// never changes.
func TestPromptExtendsByteForByte(t *testing.T) {
	a, srv := newScriptedAgent(t, session20())
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), s, "update the markers and check the build")
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 20 || res.Steps != 20 {
		t.Fatalf("%d requests, %d steps", len(reqs), res.Steps)
	}
	for i := 1; i < len(reqs); i++ {
		prev := rawField(t, reqs[i-1].Body, "messages")
		cur := rawField(t, reqs[i].Body, "messages")
		open := bytes.TrimSuffix(prev, []byte("]"))
		if !bytes.HasPrefix(cur, open) {
			t.Fatalf("request %d does not extend request %d byte for byte", i+1, i)
		}
		if !bytes.Equal(rawField(t, reqs[i-1].Body, "tools"), rawField(t, reqs[i].Body, "tools")) {
			t.Fatalf("tools changed between requests %d and %d", i, i+1)
		}
	}
	if ratio := hitRatio(reqs[1:]); ratio < 0.95 {
		t.Errorf("cache hit ratio after the first request = %.3f, want ≥ 0.95", ratio)
	}
}

// hitRatio is the DeepSeek-style cache hit ratio over requests.
func hitRatio(reqs []scripted.Request) float64 {
	var hit, prompt int
	for _, r := range reqs {
		if r.Usage != nil {
			hit += r.Usage.PromptCacheHitTokens
			prompt += r.Usage.PromptTokens
		}
	}
	if prompt == 0 {
		return 0
	}
	return float64(hit) / float64(prompt)
}

// BenchmarkPromptCache reports the prompt-cache hit ratio of the scripted
// 20-request session, as DeepSeek's prefix cache would count it.
func BenchmarkPromptCache(b *testing.B) {
	var ratio float64
	for b.Loop() {
		a, srv := newScriptedAgent(b, session20())
		s, err := a.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Run(context.Background(), s, "update the markers and check the build"); err != nil {
			b.Fatal(err)
		}
		ratio = hitRatio(srv.Requests()[1:])
		s.Close()
	}
	b.ReportMetric(100*ratio, "%hit-after-first")
}

// timedProvider measures the time spent inside the provider, so the
// harness's own cost can be told apart from the model's.
type timedProvider struct {
	provider.Provider
	spent time.Duration
}

func (p *timedProvider) Stream(ctx context.Context, req provider.Request, emit func(provider.Chunk)) (provider.Response, error) {
	start := time.Now()
	defer func() { p.spent += time.Since(start) }()
	return p.Provider.Stream(ctx, req, emit)
}

// BenchmarkRoundTrip measures one tool round trip: a model request that
// calls read_file, the call, and the result appended for the next request.
// harness-ms/op excludes the time inside the provider (HTTP, the scripted
// server and stream parsing), which stands in for the model's time.
func BenchmarkRoundTrip(b *testing.B) {
	const perTurn = 10
	var script strings.Builder
	turns := b.N/perTurn + 1
	for i := range turns {
		for j := range perTurn {
			if i+j > 0 {
				script.WriteString("---\n")
			}
			if j == perTurn-1 {
				script.WriteString("text done\n")
			} else {
				script.WriteString(`call read_file {"path": "main.go"}` + "\n")
			}
		}
	}
	a, _ := newScriptedAgent(b, script.String())
	tp := &timedProvider{Provider: a.Provider}
	a.Provider = tp
	b.ResetTimer()
	start := time.Now()
	steps := 0
	for range turns {
		s, err := a.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		res, err := a.Run(context.Background(), s, "read main.go a few times")
		if err != nil {
			b.Fatal(err)
		}
		steps += res.Steps
		s.Close()
	}
	total := time.Since(start)
	b.ReportMetric(float64(total.Microseconds())/1000/float64(steps), "ms/roundtrip")
	b.ReportMetric(float64((total-tp.spent).Microseconds())/1000/float64(steps), "harness-ms/roundtrip")
}
