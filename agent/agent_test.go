package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// fakeProvider answers requests from a list of responses and records what
// it was sent.
type fakeProvider struct {
	mu        sync.Mutex // guards the fields below
	responses []provider.Response
	requests  []provider.Request
	// block, when set, makes Stream wait for ctx to end after emitting
	// a first chunk.
	block bool
	// asGiven reports each response's usage as it is, none included,
	// instead of a default usage for those without.
	asGiven bool
}

func (f *fakeProvider) Name() string { return "fake" }

func (f *fakeProvider) Stream(ctx context.Context, req provider.Request, emit func(provider.Chunk)) (provider.Response, error) {
	f.mu.Lock()
	f.requests = append(f.requests, req)
	if f.block {
		f.mu.Unlock()
		emit(provider.Chunk{Kind: provider.ChunkText, Text: "thinking about it"})
		<-ctx.Done()
		return provider.Response{}, ctx.Err()
	}
	if len(f.responses) == 0 {
		f.mu.Unlock()
		return provider.Response{}, &provider.APIError{Provider: "fake", Status: 400, Message: "script exhausted"}
	}
	r := f.responses[0]
	f.responses = f.responses[1:]
	f.mu.Unlock()
	if r.Message.Content != "" {
		emit(provider.Chunk{Kind: provider.ChunkText, Text: r.Message.Content})
	}
	for i := range r.Message.ToolCalls {
		emit(provider.Chunk{Kind: provider.ChunkToolCall, ToolCall: &r.Message.ToolCalls[i]})
	}
	if r.Usage.PromptTokens == 0 && !f.asGiven {
		r.Usage = provider.Usage{PromptTokens: 100, CacheHitTokens: 64, CacheMissTokens: 36, CompletionTokens: 10}
	}
	return r, nil
}

func answer(text string) provider.Response {
	return provider.Response{Message: provider.Message{Role: provider.RoleAssistant, Content: text}, FinishReason: "stop"}
}

func calls(cs ...provider.ToolCall) provider.Response {
	return provider.Response{Message: provider.Message{Role: provider.RoleAssistant, ToolCalls: cs}, FinishReason: "tool_calls"}
}

func tc(id, name, args string) provider.ToolCall {
	return provider.ToolCall{ID: id, Name: name, Arguments: args}
}

// probeTool records concurrency: how many of its calls ran at once.
type probeTool struct {
	name     string
	readOnly bool
	running  atomic.Int32
	peak     atomic.Int32
	gate     chan struct{} // when set, calls wait on it
}

func (p *probeTool) Name() string            { return p.name }
func (p *probeTool) Description() string     { return "probe" }
func (p *probeTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (p *probeTool) ReadOnly() bool          { return p.readOnly }
func (p *probeTool) Execute(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Result, error) {
	n := p.running.Add(1)
	defer p.running.Add(-1)
	for {
		peak := p.peak.Load()
		if n <= peak || p.peak.CompareAndSwap(peak, n) {
			break
		}
	}
	if p.gate != nil {
		select {
		case <-p.gate:
		case <-ctx.Done():
			return tools.Result{}, ctx.Err()
		}
	}
	if strings.Contains(string(args), "panic") {
		panic("probe asked to panic")
	}
	return tools.Result{Content: p.name + " " + string(args)}, nil
}

type harness struct {
	a      *Agent
	prov   *fakeProvider
	mu     sync.Mutex
	events []Event
}

func newHarness(t *testing.T, responses []provider.Response, ts ...tools.Tool) *harness {
	t.Helper()
	root := t.TempDir()
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{prov: &fakeProvider{responses: responses}}
	h.a = &Agent{
		Provider:    h.prov,
		Model:       "m",
		ModelRef:    "fake/m",
		Price:       &config.Price{InputCacheHit: 1, InputCacheMiss: 10, Output: 20},
		Tools:       reg,
		Env:         &tools.Env{Root: root, FS: tools.DiskFS{}},
		Gate:        &permission.Checker{},
		ParallelMax: 3,
		Store:       &Store{Dir: filepath.Join(t.TempDir(), "sessions")},
		Sink: func(e Event) {
			h.mu.Lock()
			h.events = append(h.events, e)
			h.mu.Unlock()
		},
	}
	return h
}

// writeFiles writes files (a slash-separated path → content) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (h *harness) kinds(k EventKind) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, e := range h.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func TestRunToolsThenAnswer(t *testing.T) {
	reader := &probeTool{name: "look", readOnly: true}
	h := newHarness(t, []provider.Response{
		calls(tc("1", "look", `{"n":1}`), tc("2", "look", `{"n":2}`)),
		answer("all done"),
	}, reader)
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.a.Run(context.Background(), s, "do it")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "all done" || res.Stop != StopDone || res.Steps != 2 || res.ToolCalls != 2 {
		t.Fatalf("result = %+v", res)
	}
	if res.Usage.PromptTokens != 200 || res.Cost == 0 {
		t.Fatalf("usage %+v cost %v", res.Usage, res.Cost)
	}
	// The second request carries both results, in the order asked.
	second := h.prov.requests[1].Messages
	n := len(second)
	if second[n-2].Content != `look {"n":1}` || second[n-1].Content != `look {"n":2}` {
		t.Fatalf("tool results out of order: %+v", second[n-2:])
	}
	for _, k := range []EventKind{EventTurnStart, EventToolStart, EventToolResult, EventUsage, EventTurnDone} {
		if len(h.kinds(k)) == 0 {
			t.Errorf("no %s event", k)
		}
	}
	for _, e := range h.kinds(EventToolResult) {
		if e.SessionID != s.ID || e.Turn != 1 {
			t.Errorf("event ids: %+v", e)
		}
	}
}

func TestReadOnlyCallsRunInParallelWritersAlone(t *testing.T) {
	reader := &probeTool{name: "look", readOnly: true, gate: make(chan struct{})}
	writer := &probeTool{name: "poke"}
	var cs []provider.ToolCall
	for i := range 5 {
		cs = append(cs, tc(fmt.Sprint(i), "look", fmt.Sprintf(`{"i":%d}`, i)))
	}
	cs = append(cs, tc("w", "poke", `{}`), tc("r", "look", `{"i":9}`))
	h := newHarness(t, []provider.Response{calls(cs...), answer("ok")}, reader, writer)
	// Release the readers once three of them wait together: the batch
	// bound is three, so this proves they overlap and stay bounded.
	go func() {
		for reader.running.Load() < 3 {
			time.Sleep(time.Millisecond)
		}
		close(reader.gate)
	}()
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	if p := reader.peak.Load(); p != 3 {
		t.Fatalf("peak parallel readers = %d, want 3", p)
	}
	msgs := s.Messages()
	var got []string
	for _, m := range msgs {
		if m.Role == provider.RoleTool {
			got = append(got, m.ToolCallID)
		}
	}
	if strings.Join(got, ",") != "0,1,2,3,4,w,r" {
		t.Fatalf("result order %v", got)
	}
}

func TestBadCallsBecomeResults(t *testing.T) {
	probe := &probeTool{name: "look", readOnly: true}
	h := newHarness(t, []provider.Response{
		calls(
			tc("1", "nope", `{}`),
			tc("2", "look", `{"path": "a.go"`),
			tc("3", "look", `[1,2]`),
			tc("4", "look", `{"panic": true}`),
		),
		answer("recovered"),
	}, probe)
	s, _ := h.a.NewSession()
	res, err := h.a.Run(context.Background(), s, "go")
	if err != nil || res.Text != "recovered" {
		t.Fatalf("res %+v err %v", res, err)
	}
	msgs := s.Messages()
	results := msgs[len(msgs)-5 : len(msgs)-1]
	wants := []string{`no tool named "nope"`, "not valid JSON", "must be a JSON object", "internal error"}
	for i, w := range wants {
		if !strings.Contains(results[i].Content, w) {
			t.Errorf("result %d = %q, want %q", i, results[i].Content, w)
		}
	}
}

func TestMaxSteps(t *testing.T) {
	probe := &probeTool{name: "look", readOnly: true}
	var rs []provider.Response
	for i := range 5 {
		rs = append(rs, calls(tc(fmt.Sprint(i), "look", `{}`)))
	}
	h := newHarness(t, rs, probe)
	h.a.MaxSteps = 3
	s, _ := h.a.NewSession()
	res, err := h.a.Run(context.Background(), s, "loop")
	if !errors.Is(err, ErrMaxSteps) || res.Stop != StopMaxSteps || res.Steps != 3 {
		t.Fatalf("res %+v err %v", res, err)
	}
	if len(h.kinds(EventNotice)) != 1 || len(h.kinds(EventError)) != 0 {
		t.Fatalf("notices %v", h.kinds(EventNotice))
	}
	last := s.Messages()[len(s.Messages())-1]
	if last.Role != provider.RoleAssistant || !strings.Contains(last.Content, "max_steps") {
		t.Fatalf("log not closed: %+v", last)
	}
}

// usageOf is a response that reports prompt (all missing the cache) and
// completion tokens.
func usageOf(r provider.Response, prompt, completion int) provider.Response {
	r.Usage = provider.Usage{PromptTokens: prompt, CacheMissTokens: prompt, CompletionTokens: completion}
	return r
}

// TestCostBudget: cost_budget stops the session once its cost reaches
// it, and only when the model has a price: after the response that
// reaches it, whose calls are not run, or before a request that does not
// fit what is left.
func TestCostBudget(t *testing.T) {
	script := func() []provider.Response {
		return []provider.Response{usageOf(calls(tc("1", "look", `{}`)), 2000, 10), answer("done")}
	}
	h := newHarness(t, script(), &probeTool{name: "look", readOnly: true})
	h.a.CostBudget, h.a.Price = 1e-9, nil // no price: the budget is not counted
	s, _ := h.a.NewSession()
	if res, err := h.a.Run(context.Background(), s, "go"); err != nil || res.Stop == StopBudget {
		t.Fatalf("unpriced: res %+v err %v", res, err)
	}

	// $1 a million tokens: the first prompt fits in $0.002, its usage
	// does not.
	h = newHarness(t, script(), &probeTool{name: "look", readOnly: true})
	h.a.CostBudget = 0.002
	h.a.Price = &config.Price{InputCacheHit: 1, InputCacheMiss: 1, Output: 1}
	s, _ = h.a.NewSession()
	res, err := h.a.Run(context.Background(), s, "go")
	if !errors.Is(err, ErrBudgetExceeded) || res.Stop != StopBudget || !strings.Contains(err.Error(), "spent") {
		t.Fatalf("priced: res %+v err %v", res, err)
	}
	last := s.Messages()[len(s.Messages())-1]
	if last.Role != provider.RoleTool || !strings.Contains(last.Content, "cost budget") {
		t.Fatalf("unanswered call: %+v", last)
	}

	// Too little for the first prompt: nothing is sent.
	h = newHarness(t, script(), &probeTool{name: "look", readOnly: true})
	h.a.CostBudget = 1e-9
	h.a.Price = &config.Price{InputCacheHit: 1, InputCacheMiss: 1, Output: 1}
	s, _ = h.a.NewSession()
	res, err = h.a.Run(context.Background(), s, "go")
	if !errors.Is(err, ErrBudgetExceeded) || res.Stop != StopBudget || len(h.prov.requests) != 0 || !strings.Contains(err.Error(), "too little for the next request") {
		t.Fatalf("tiny budget: %d requests, res %+v err %v", len(h.prov.requests), res, err)
	}
}

// TestTokenBudget: token_budget stops the turn after the response that
// reaches it, leaving its calls unrun, or before a request whose prompt
// does not fit what is left.
func TestTokenBudget(t *testing.T) {
	probe := &probeTool{name: "look", readOnly: true}
	h := newHarness(t, []provider.Response{
		usageOf(calls(tc("1", "look", `{}`)), 2000, 10),
		calls(tc("2", "look", `{}`)),
		answer("never"),
	}, probe)
	h.a.TokenBudget = 2000 // the first prompt fits, its usage does not
	s, _ := h.a.NewSession()
	res, err := h.a.Run(context.Background(), s, "go")
	if !errors.Is(err, ErrBudgetExceeded) || res.Stop != StopBudget || len(h.prov.requests) != 1 {
		t.Fatalf("%d requests, res %+v err %v", len(h.prov.requests), res, err)
	}
	msgs := s.Messages()
	last := msgs[len(msgs)-1]
	if last.Role != provider.RoleTool || !strings.Contains(last.Content, "token budget") {
		t.Fatalf("unanswered call: %+v", last)
	}

	h = newHarness(t, []provider.Response{answer("never")})
	h.a.TokenBudget = 200
	s, _ = h.a.NewSession()
	res, err = h.a.Run(context.Background(), s, "go")
	if !errors.Is(err, ErrBudgetExceeded) || res.Stop != StopBudget || len(h.prov.requests) != 0 {
		t.Fatalf("a budget below the first prompt: %d requests, res %+v err %v", len(h.prov.requests), res, err)
	}
	last = s.Messages()[len(s.Messages())-1]
	if last.Role != provider.RoleAssistant || !strings.Contains(last.Content, "0 of 200 tokens used, too few for the next request") {
		t.Fatalf("the turn's close: %+v", last)
	}
}

func TestCancelMidStream(t *testing.T) {
	h := newHarness(t, nil)
	h.prov.block = true
	ctx, cancel := context.WithCancel(context.Background())
	h.a.Sink = func(e Event) {
		if e.Kind == EventText {
			cancel()
		}
	}
	s, _ := h.a.NewSession()
	res, err := h.a.Run(ctx, s, "go")
	if !errors.Is(err, context.Canceled) || res.Stop != StopCancelled {
		t.Fatalf("res %+v err %v", res, err)
	}
	last := s.Messages()[len(s.Messages())-1]
	if last.Role != provider.RoleAssistant {
		t.Fatalf("log not closed after cancel: %+v", last)
	}
}

func TestCancelDuringTool(t *testing.T) {
	slow := &probeTool{name: "wait", gate: make(chan struct{})}
	h := newHarness(t, []provider.Response{calls(tc("1", "wait", `{}`), tc("2", "wait", `{}`))}, slow)
	ctx, cancel := context.WithCancel(context.Background())
	h.a.Sink = func(e Event) {
		if e.Kind == EventToolStart {
			cancel()
		}
	}
	s, _ := h.a.NewSession()
	_, err := h.a.Run(ctx, s, "go")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	msgs := s.Messages()
	// Both calls are answered, and an assistant note closes the turn.
	if msgs[len(msgs)-3].ToolCallID != "1" || msgs[len(msgs)-2].ToolCallID != "2" || msgs[len(msgs)-1].Role != provider.RoleAssistant {
		t.Fatalf("tail %+v", msgs[len(msgs)-3:])
	}
}

func TestProviderFailureKeepsLogWellFormed(t *testing.T) {
	h := newHarness(t, nil) // the fake fails with a 400
	s, _ := h.a.NewSession()
	_, err := h.a.Run(context.Background(), s, "go")
	var ae *provider.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("err %v", err)
	}
	if len(h.kinds(EventError)) != 1 {
		t.Fatal("no error event")
	}
	msgs := s.Messages()
	if msgs[len(msgs)-1].Role != provider.RoleAssistant {
		t.Fatal("failed turn left a dangling user message")
	}
}

func TestDeniedCall(t *testing.T) {
	writer := &probeTool{name: "poke"}
	h := newHarness(t, []provider.Response{calls(tc("1", "poke", `{}`)), answer("ok")}, writer)
	policy, _ := permission.NewPolicy("ask", nil, nil, []string{"poke"})
	h.a.Gate = &permission.Checker{Policy: policy}
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	if writer.peak.Load() != 0 {
		t.Fatal("denied tool ran")
	}
	r := h.kinds(EventToolResult)[0].Tool
	if !r.Denied || !strings.Contains(r.Result, `denied by the rule "poke"`) {
		t.Fatalf("result %+v", r)
	}
}

func TestSessionPersistsAndResumes(t *testing.T) {
	probe := &probeTool{name: "look", readOnly: true}
	h := newHarness(t, []provider.Response{
		calls(tc("1", "look", `{}`)),
		answer("first"),
		answer("second"),
	}, probe)
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(context.Background(), s, "one"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := s.Messages()

	r, err := h.a.Resume(s.ID[:12])
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Messages(); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("resumed history differs:\n%v\n%v", got, before)
	}
	if u, _ := r.Usage(); u.PromptTokens != 200 {
		t.Fatalf("resumed usage %+v", u)
	}
	if _, err := h.a.Run(context.Background(), r, "two"); err != nil {
		t.Fatal(err)
	}
	// The third request starts with exactly the first session's messages.
	third := h.prov.requests[2].Messages
	if fmt.Sprint(third[:len(before)]) != fmt.Sprint(before) {
		t.Fatal("resumed request does not extend the stored history")
	}
	list, err := h.a.Store.List()
	if err != nil || len(list) != 1 || list[0].Title != "one" || list[0].Turns != 2 {
		t.Fatalf("list %+v err %v", list, err)
	}
}

func TestResumeRepairsAnInterruptedCall(t *testing.T) {
	dir := t.TempDir()
	st := &Store{Dir: dir}
	f, err := st.Create(Meta{ID: "x1", Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []provider.Message{
		{Role: provider.RoleSystem, Content: "sys"},
		{Role: provider.RoleUser, Content: "go"},
		{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{tc("a", "look", "{}")}},
	} {
		f.AppendMessage(&m)
	}
	f.Keep() // no usage record: kept as a killed process leaves it
	f.Close()
	// A torn last line, as a killed process leaves it.
	fh, _ := os.OpenFile(filepath.Join(dir, "x1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	fh.WriteString(`{"type":"message","message":{"role":"to`)
	fh.Close()

	h := newHarness(t, nil, &probeTool{name: "look", readOnly: true})
	h.a.Store = st
	s, err := h.a.Resume("x1")
	if err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages()
	if len(msgs) != 4 || msgs[3].ToolCallID != "a" || !strings.Contains(msgs[3].Content, "never completed") {
		t.Fatalf("messages %+v", msgs)
	}
}

func TestPromptPrefixIsStable(t *testing.T) {
	probe := &probeTool{name: "look", readOnly: true}
	var rs []provider.Response
	for i := range 6 {
		rs = append(rs, calls(tc(fmt.Sprint(i), "look", fmt.Sprintf(`{"i":%d}`, i))))
	}
	rs = append(rs, answer("done"), answer("again"))
	h := newHarness(t, rs, probe)
	s, _ := h.a.NewSession()
	h.a.Run(context.Background(), s, "a")
	h.a.Run(context.Background(), s, "b")
	reqs := h.prov.requests
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1], reqs[i]
		if fmt.Sprint(prev.Messages) != fmt.Sprint(cur.Messages[:len(prev.Messages)]) {
			t.Fatalf("request %d does not extend request %d", i, i-1)
		}
		a, _ := json.Marshal(prev.Tools)
		b, _ := json.Marshal(cur.Tools)
		if string(a) != string(b) {
			t.Fatalf("tool schemas changed at request %d", i)
		}
	}
}

func TestBuildSystemPromptReadsMemory(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Run make check before finishing."), 0o644)
	p := BuildSystemPrompt("", root, nil)
	if !strings.Contains(p, "Run make check") || !strings.Contains(p, "Workspace root: "+root) {
		t.Fatalf("prompt:\n%s", p)
	}
	if BuildSystemPrompt("", root, nil) != p {
		t.Fatal("system prompt is not deterministic")
	}
}

// TestBuildSystemPromptKeepsSecretsOut: a memory file that is a link into
// a forbidden directory is not read into the prompt; one that links
// elsewhere is.
func TestBuildSystemPromptKeepsSecretsOut(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".aws"), 0o700)
	os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte("aws_secret_access_key=s3cr3t"), 0o600)
	os.WriteFile(filepath.Join(home, "notes.md"), []byte("Prefer table tests."), 0o644)
	if err := os.Symlink(filepath.Join(home, ".aws", "credentials"), filepath.Join(root, "AGENTS.md")); err != nil {
		t.Skip("no symlinks:", err)
	}
	os.Symlink(filepath.Join(home, "notes.md"), filepath.Join(root, "REASONIX.md"))
	guard := sandbox.New([]string{root}, sandbox.HomeDefaults(home))
	p := BuildSystemPrompt("", root, guard.CheckRead)
	if strings.Contains(p, "s3cr3t") || !strings.Contains(p, "Prefer table tests.") {
		t.Fatalf("prompt:\n%s", p)
	}
}

func TestParallelFromEnv(t *testing.T) {
	for in, want := range map[string]int{"": 3, "5": 5, "0": 3, "99": 16, "x": 3} {
		t.Setenv("REASONIX_PARALLEL_MAX", in)
		if got := ParallelFromEnv(); got != want {
			t.Errorf("%q: %d, want %d", in, got, want)
		}
	}
}

type fakePlans struct {
	answers []bool
	plans   []string
}

func (f *fakePlans) ApprovePlan(ctx context.Context, sessionID, plan string) (bool, string, error) {
	f.plans = append(f.plans, plan)
	ok := f.answers[0]
	f.answers = f.answers[1:]
	if !ok {
		return false, "split it in two steps", nil
	}
	return true, "", nil
}

func TestPlanMode(t *testing.T) {
	reader := &probeTool{name: "look", readOnly: true}
	writer := &probeTool{name: "poke"}
	h := newHarness(t, []provider.Response{
		calls(tc("1", "look", `{}`), tc("2", "poke", `{}`)),
		calls(tc("3", "exit_plan_mode", `{"plan":"1. poke"}`)),
		calls(tc("4", "exit_plan_mode", `{"plan":"1. look\n2. poke"}`)),
		calls(tc("5", "poke", `{}`)),
		answer("done"),
	}, reader, writer, ExitPlanTool())
	plans := &fakePlans{answers: []bool{false, true}}
	h.a.Plans = plans
	s, _ := h.a.NewSession()
	s.SetPlanMode(true)
	if _, err := h.a.Run(context.Background(), s, "change things"); err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages()
	if !strings.HasPrefix(msgs[1].Content, "[Plan mode:") {
		t.Fatalf("prompt not marked: %q", msgs[1].Content)
	}
	results := map[string]string{}
	for _, m := range msgs {
		if m.Role == provider.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	checks := map[string]string{
		"1": "look {}",
		"2": "Plan mode: poke was not run",
		"3": "did not approve the plan; you are still in plan mode. Their feedback: split it in two steps",
		"4": "approved the plan",
		"5": "poke {}",
	}
	for id, want := range checks {
		if !strings.Contains(results[id], want) {
			t.Errorf("result %s = %q, want %q", id, results[id], want)
		}
	}
	if s.PlanMode() || len(plans.plans) != 2 {
		t.Fatalf("plan mode %v, %d plans shown", s.PlanMode(), len(plans.plans))
	}
}

func TestPlanModeWithNoOneToApprove(t *testing.T) {
	writer := &probeTool{name: "poke"}
	h := newHarness(t, []provider.Response{
		calls(tc("1", "exit_plan_mode", `{"plan":"poke it"}`)),
		answer("Plan: poke it."),
	}, writer, ExitPlanTool())
	s, _ := h.a.NewSession()
	s.SetPlanMode(true)
	res, err := h.a.Run(context.Background(), s, "plan it")
	if err != nil || res.Text != "Plan: poke it." || !s.PlanMode() {
		t.Fatalf("res %+v err %v plan %v", res, err, s.PlanMode())
	}
}

// TestSecretsAreRedacted: an API key never reaches the model, the session
// file or the events, wherever it turns up.
func TestSecretsAreRedacted(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	leaky := &probeTool{name: "look", readOnly: true}
	h := newHarness(t, []provider.Response{
		calls(tc("1", "look", `{"q":"`+key+`"}`)),
		answer("the key is " + key),
	}, leaky)
	h.a.Secrets = []Secret{{Name: "DEEPSEEK_API_KEY", Value: key}, {Name: "SHORT", Value: "1"}}
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(context.Background(), s, "my key is "+key+", keep it safe"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for i, r := range h.prov.requests {
		b, _ := json.Marshal(r.Messages)
		if strings.Contains(string(b), key) {
			t.Errorf("request %d carries the key", i)
		}
	}
	files, _ := filepath.Glob(filepath.Join(h.a.Store.Dir, "*.jsonl"))
	data, _ := os.ReadFile(files[0])
	if strings.Contains(string(data), key) || !strings.Contains(string(data), "[redacted DEEPSEEK_API_KEY]") {
		t.Errorf("session file:\n%s", data)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.events {
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), key) {
			t.Errorf("event %s carries the key: %s", e.Kind, b)
		}
	}
}
