package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// BenchmarkLongSession plays the same 200-turn scripted session twice:
// in a 32k window, compacting as it goes, and with no window at all. It
// reports, side by side, the prompt tokens sent, the cache-hit ratio
// (overall and outside the compaction requests), the cost at DeepSeek's
// list price for deepseek-flash, the compactions, and the process's
// memory: the largest resident set seen after a turn and the live heap
// at the end.
func BenchmarkLongSession(b *testing.B) {
	const turns = 200
	price, _ := config.Defaults().Providers[0].PriceOf("deepseek-flash")
	for _, window := range []int{32_000, 0} {
		name := "window=" + strconv.Itoa(window/1000) + "k"
		if window == 0 {
			name = "window=unlimited"
		}
		b.Run(name, func(b *testing.B) {
			var m longSessionMetrics
			for b.Loop() {
				m = playLongSession(b, turns, window, price)
			}
			b.ReportMetric(float64(m.total.PromptTokens)/1e6, "Mtok-prompt")
			b.ReportMetric(100*m.total.HitRatio(), "%hit")
			b.ReportMetric(100*m.outside().HitRatio(), "%hit-outside-compactions")
			b.ReportMetric(m.cost, "$")
			b.ReportMetric(float64(m.compactions), "compactions")
			b.ReportMetric(float64(m.maxPrompt), "max-prompt-tok")
			b.ReportMetric(m.maxRSS, "max-RSS-MB")
			b.ReportMetric(m.heap, "live-heap-MB")
		})
	}
}

type longSessionMetrics struct {
	total, compaction provider.Usage
	cost              float64
	compactions       int
	maxPrompt         int
	maxRSS, heap      float64
}

func (m longSessionMetrics) outside() provider.Usage {
	u := m.total
	u.PromptTokens -= m.compaction.PromptTokens
	u.CacheHitTokens -= m.compaction.CacheHitTokens
	u.CacheMissTokens -= m.compaction.CacheMissTokens
	return u
}

func playLongSession(b *testing.B, turns, window int, price config.Price) longSessionMetrics {
	a, _, _ := windowedAgentWith(b, agenttest.Script(turns, 30), window, scripted.Options{ContextWindow: window, NoBodies: true})
	a.Price = &price
	var (
		mu sync.Mutex // guards m
		m  longSessionMetrics
	)
	a.Sink = func(e agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case agent.EventUsage:
			m.maxPrompt = max(m.maxPrompt, e.Usage.Request.PromptTokens)
			m.total, m.cost = e.Usage.Session, e.Usage.SessionCost
		case agent.EventCompaction:
			m.compactions++
			m.compaction.Add(e.Compaction.Usage)
		}
	}
	s, err := a.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	for n := 1; n <= turns; n++ {
		if _, err := a.Run(context.Background(), s, agenttest.Prompt(n)); err != nil {
			b.Fatalf("turn %d: %v", n, err)
		}
		m.maxRSS = max(m.maxRSS, agenttest.ResidentMB(os.Getpid()))
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.heap = float64(ms.HeapAlloc) / (1 << 20)
	s.Close()
	return m
}

// BenchmarkResume measures how long a resumed session takes to reach the
// model — from Resume to the first request arriving at the server — for
// sessions of 1k, 10k and 100k messages (about 400 bytes each, as real
// sessions average):
//
//   - full: never compacted, resumed with no context window: the whole
//     file is read and sent, as before compaction existed;
//   - first-compaction: never compacted, resumed against a 128k window:
//     the first request is the first piece of its summary;
//   - compacted: after that compaction, resumed again: only the
//     compacted view is read and sent, whatever the session's length.
func BenchmarkResume(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		full := sessionFixture(b, n)
		compacted := compactFixture(b, full, 128_000)
		for _, v := range []struct {
			name   string
			files  map[string][]byte
			window int
		}{
			{"full", full, 0},
			{"first-compaction", full, 128_000},
			{"compacted", compacted, 128_000},
		} {
			b.Run(fmt.Sprintf("%s/messages=%dk", v.name, n/1000), func(b *testing.B) {
				var lat []float64
				for b.Loop() {
					lat = append(lat, timeToModel(b, v.files, v.window))
				}
				sort.Float64s(lat)
				b.ReportMetric(lat[len(lat)/2], "ms-to-model")
				b.ReportMetric(float64(len(v.files[fixtureID+".jsonl"]))/1e6, "MB-read")
			})
		}
	}
}

// fixtureID is the id of the benchmark's sessions.
const fixtureID = "20260101-000000-bench0"

// sessionFixture writes a session of n messages, as turns of a user
// message, a tool call, its result and an answer, and returns its files.
func sessionFixture(b *testing.B, n int) map[string][]byte {
	var buf []byte
	line := func(v any) {
		data, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		buf = append(append(buf, data...), '\n')
	}
	line(map[string]any{"type": "meta", "meta": agent.Meta{ID: fixtureID, Created: time.Now(), Model: "scripted/deepseek-flash"}})
	line(map[string]any{"type": "message", "message": provider.Message{Role: provider.RoleSystem, Content: "You are a coding agent. " + strings.Repeat("Be careful. ", 200)}})
	result := strings.Repeat("func helper() int { return 42 } // a line of the file that was read\n", 15)
	for i, turn := 0, 1; i < n-1; turn++ {
		for _, m := range []provider.Message{
			{Role: provider.RoleUser, Content: fmt.Sprintf("Turn %d: please look at helper %d and tell me what it returns.", turn, turn)},
			{Role: provider.RoleAssistant, Reasoning: "I should read the file first.", ToolCalls: []provider.ToolCall{{ID: fmt.Sprintf("call_%d", turn), Name: "read_file", Arguments: `{"path": "util.go"}`}}},
			{Role: provider.RoleTool, ToolCallID: fmt.Sprintf("call_%d", turn), Name: "read_file", Content: result},
			{Role: provider.RoleAssistant, Content: fmt.Sprintf("helper %d returns 42, like the others; nothing to change.", turn)},
		} {
			if i == n-1 {
				break
			}
			line(map[string]any{"type": "message", "message": m})
			i++
		}
		line(map[string]any{"type": "usage", "turn": turn, "usage": provider.Usage{PromptTokens: 1000, CacheHitTokens: 900, CacheMissTokens: 100}})
	}
	return map[string][]byte{fixtureID + ".jsonl": buf}
}

// compactFixture resumes the session of files against a model of window
// tokens, which compacts it, and returns the files it leaves.
func compactFixture(b *testing.B, files map[string][]byte, window int) map[string][]byte {
	a, _ := resumeAgent(b, files, window)
	s, err := a.Resume(fixtureID)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := a.Run(context.Background(), s, "go on"); err != nil {
		b.Fatal(err)
	}
	s.Close()
	out := map[string][]byte{}
	for _, name := range []string{fixtureID + ".jsonl", fixtureID + ".archive.jsonl"} {
		data, err := os.ReadFile(filepath.Join(a.Store.Dir, name))
		if err != nil {
			b.Fatal(err)
		}
		out[name] = data
	}
	return out
}

// resumeAgent is an agent whose store holds files, with a model that
// answers every request "ok".
func resumeAgent(b *testing.B, files map[string][]byte, window int) (*agent.Agent, *scripted.Server) {
	a, srv := newScriptedAgentWith(b, "text ok\n", scripted.Options{Fallback: "ok", NoBodies: true})
	a.ContextWindow = window
	if err := os.MkdirAll(a.Store.Dir, 0o700); err != nil {
		b.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(a.Store.Dir, name), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return a, srv
}

// timeToModel resumes the session of files and returns how many
// milliseconds its first request took to reach the server. It stops the
// turn there.
func timeToModel(b *testing.B, files map[string][]byte, window int) float64 {
	b.StopTimer()
	a, srv := resumeAgent(b, files, window)
	ctx, cancel := context.WithCancel(context.Background())
	a.Provider = &firstRequest{Provider: a.Provider, done: cancel}
	runtime.GC()
	b.StartTimer()
	defer b.StartTimer() // b.Loop wants it running
	start := time.Now()
	s, err := a.Resume(fixtureID)
	if err != nil {
		b.Fatal(err)
	}
	a.Run(ctx, s, "go on")
	s.Close()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		b.Fatal("no request reached the server")
	}
	return float64(reqs[0].Time.Sub(start).Microseconds()) / 1000
}

// firstRequest lets one request through, then ends the turn.
type firstRequest struct {
	provider.Provider
	done context.CancelFunc
}

func (p *firstRequest) Stream(ctx context.Context, req provider.Request, emit func(provider.Chunk)) (provider.Response, error) {
	defer p.done()
	return p.Provider.Stream(ctx, req, emit)
}
