package agent_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// costTurns is the length of the scripted coding session of
// BenchmarkCostVsNaive, in user turns.
const costTurns = 30

// codingSession scripts turns user turns of coding work: each reads the
// file it is about, searches, edits it and runs a command before
// answering, five model requests a turn.
func codingSession(turns int) string {
	var b strings.Builder
	for i := range turns {
		if i > 0 {
			b.WriteString("---\n")
		}
		fmt.Fprintf(&b, "reasoning Turn %d: look at the code first.\n", i+1)
		b.WriteString(`call read_file {"path": "util.go"}` + "\n---\n")
		fmt.Fprintf(&b, "reasoning Find the callers of helper%d.\ncall grep {\"pattern\": \"helper%d\"}\n---\n", i, i)
		fmt.Fprintf(&b, "reasoning Update the marker.\ncall edit_file {\"path\": \"util.go\", \"old_string\": \"// marker %d\\n\", \"new_string\": \"// marker %d, reviewed\\n\"}\n---\n", i, i)
		fmt.Fprintf(&b, "call bash {\"command\": \"echo checked %d\"}\n---\n", i)
		fmt.Fprintf(&b, "text Turn %d done: marker %d is reviewed and helper%d has its callers.\n", i+1, i, i)
	}
	return b.String()
}

// naiveProvider sends each request the way a naive loop builds it: the
// current time in the system prompt and the tools in a new order every
// request (rotated by one, so an order comes back every len(tools)
// requests and its prefix of tool schemas can hit again). The
// conversation is the same one; only what defeats the provider's prefix
// cache differs.
type naiveProvider struct {
	provider.Provider
	n int
}

func (p *naiveProvider) Stream(ctx context.Context, req provider.Request, emit func(provider.Chunk)) (provider.Response, error) {
	p.n++
	msgs := append([]provider.Message(nil), req.Messages...)
	if len(msgs) > 0 && msgs[0].Role == provider.RoleSystem {
		msgs[0].Content = "Current time: " + time.Now().Format(time.RFC3339Nano) + "\n\n" + msgs[0].Content
	}
	req.Messages = msgs
	tools := make([]provider.ToolSchema, len(req.Tools))
	for i := range req.Tools {
		tools[i] = req.Tools[(i+p.n)%len(req.Tools)]
	}
	req.Tools = tools
	return p.Provider.Stream(ctx, req, emit)
}

// costRun is what one loop's session cost.
type costRun struct {
	requests                int
	prompt, hit, completion int
	cost                    float64
}

func (r costRun) hitRatio() float64 { return float64(r.hit) / float64(max(r.prompt, 1)) }

// runCostSession plays the coding session through the loop, sent the
// naive way when naive is set, and totals what the server reported.
func runCostSession(b *testing.B, naive bool, price config.Price) costRun {
	a, srv := newScriptedAgent(b, codingSession(costTurns))
	if naive {
		a.Provider = &naiveProvider{Provider: a.Provider}
	}
	s, err := a.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := range costTurns {
		if _, err := a.Run(context.Background(), s, fmt.Sprintf("review marker %d in util.go and check its callers", i)); err != nil {
			b.Fatal(err)
		}
	}
	return totals(b, srv.Requests(), price)
}

func totals(b *testing.B, reqs []scripted.Request, price config.Price) costRun {
	var r costRun
	for _, q := range reqs {
		if q.Usage == nil {
			b.Fatalf("request %d has no usage (status %d)", r.requests+1, q.Status)
		}
		r.requests++
		r.prompt += q.Usage.PromptTokens
		r.hit += q.Usage.PromptCacheHitTokens
		r.completion += q.Usage.CompletionTokens
	}
	r.cost = price.Cost(r.hit, r.prompt-r.hit, r.completion)
	return r
}

// BenchmarkCostVsNaive plays a scripted 30-turn coding session (150
// model requests) through the loop, and the same session the way a
// naive loop sends it (naiveProvider), and prints side by side the
// prompt tokens, the cache hits as DeepSeek's prefix cache counts them
// (the scripted server's longest shared prefix in 64-token blocks) and
// the cost at deepseek-flash's list price.
func BenchmarkCostVsNaive(b *testing.B) {
	price, ok := config.Defaults().Providers[0].PriceOf("deepseek-flash")
	if !ok {
		b.Fatal("no price for deepseek-flash")
	}
	var ours, naive costRun
	for b.Loop() {
		ours = runCostSession(b, false, price)
		naive = runCostSession(b, true, price)
	}
	if ours.requests != naive.requests {
		b.Fatalf("%d requests against %d: the sessions differ", ours.requests, naive.requests)
	}
	ratio := naive.cost / ours.cost
	b.ReportMetric(100*ours.hitRatio(), "%hit-ours")
	b.ReportMetric(100*naive.hitRatio(), "%hit-naive")
	b.ReportMetric(ratio, "x-cheaper")
	w := os.Stdout
	fmt.Fprintf(w, "\n%d-turn coding session, %d requests, deepseek-flash at $%g hit / $%g miss / $%g output per Mtok\n",
		costTurns, ours.requests, price.InputCacheHit, price.InputCacheMiss, price.Output)
	fmt.Fprintf(w, "%-16s %14s %14s %10s\n", "", "reasonix", "naive loop", "ratio")
	fmt.Fprintf(w, "%-16s %14d %14d %9.2fx\n", "prompt tokens", ours.prompt, naive.prompt, float64(naive.prompt)/float64(ours.prompt))
	fmt.Fprintf(w, "%-16s %13.1f%% %13.1f%%\n", "cache hit", 100*ours.hitRatio(), 100*naive.hitRatio())
	fmt.Fprintf(w, "%-16s %14d %14d\n", "output tokens", ours.completion, naive.completion)
	fmt.Fprintf(w, "%-16s %14s %14s %9.2fx\n\n", "cost", fmt.Sprintf("$%.4f", ours.cost), fmt.Sprintf("$%.4f", naive.cost), ratio)
}
