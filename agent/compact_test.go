package agent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// windowedAgent is an agent in a workspace holding the long session's
// items file, wired to a scripted server that refuses prompts over
// window tokens; the agent knows the window too. It records the
// compaction events.
func windowedAgent(tb testing.TB, script string, window int) (*agent.Agent, *scripted.Server, *events) {
	return windowedAgentWith(tb, script, window, scripted.Options{ContextWindow: window})
}

// windowedAgentWith is windowedAgent with the server's options.
func windowedAgentWith(tb testing.TB, script string, window int, opts scripted.Options) (*agent.Agent, *scripted.Server, *events) {
	tb.Helper()
	a, srv := newScriptedAgentWith(tb, script, opts)
	name, content := agenttest.ItemsFile()
	if err := os.WriteFile(filepath.Join(a.Env.Root, name), []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
	a.ContextWindow = window
	ev := &events{}
	a.Sink = ev.add
	return a, srv, ev
}

// events records the events of kinds a test looks at.
type events struct {
	mu          sync.Mutex // guards the fields below
	compactions []agent.CompactResult
	notices     []string
}

func (e *events) add(ev agent.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch ev.Kind {
	case agent.EventCompaction:
		e.compactions = append(e.compactions, *ev.Compaction)
		if ev.Text != ev.Compaction.Notice() {
			panic("the compaction event's text is not its notice: " + ev.Text)
		}
	case agent.EventNotice:
		e.notices = append(e.notices, ev.Text)
	}
}

func (e *events) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.compactions)
}

// runTurns runs turns from..to of the long session in s.
func runTurns(tb testing.TB, a *agent.Agent, s *agent.Session, from, to int) {
	tb.Helper()
	for n := from; n <= to; n++ {
		if _, err := a.Run(context.Background(), s, agenttest.Prompt(n)); err != nil {
			tb.Fatalf("turn %d: %v", n, err)
		}
	}
}

// TestLongSessionCompacts plays 60 turns in a 32k window, far smaller
// than the session: no request is refused, the session compacts several
// times, every fact the user stated is in the last request verbatim,
// nothing is lost, and outside compactions each request extends the one
// before byte for byte, mostly from the cache.
func TestLongSessionCompacts(t *testing.T) {
	const turns, window = 60, 32_000
	a, srv, ev := windowedAgent(t, agenttest.Script(turns, 30), window)
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	runTurns(t, a, s, 1, turns)
	reqs := srv.Requests()
	rep := agenttest.Check(t, reqs)
	if rep.Summaries < 3 || ev.count() != rep.Summaries {
		t.Fatalf("%d summary requests, %d compaction events; want several, one each", rep.Summaries, ev.count())
	}
	agenttest.CheckFacts(t, agenttest.LastRequest(t, reqs), turns)
	archive, err := a.Store.Archive(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	agenttest.CheckArchived(t, reqs, archive, s.Messages())
	if rep.HitRatio() < 0.9 || rep.SummaryHitRatio() < 0.5 {
		t.Errorf("cache hits: %.3f outside summary requests, %.3f in them", rep.HitRatio(), rep.SummaryHitRatio())
	}
	for _, c := range ev.compactions {
		if c.Reason != agent.CompactThreshold || c.After >= c.Before || c.Archived == 0 || c.Pieces != 1 {
			t.Errorf("compaction %+v", c)
		}
	}
	s.Close()

	// The session file holds the compacted view only, and resumes.
	l, err := a.Store.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Messages) != len(s.Messages()) || l.Meta.Compactions != rep.Summaries || l.Meta.Archived != len(archive) {
		t.Fatalf("loaded %d messages, %d compactions, %d archived; the session has %d, %d, %d",
			len(l.Messages), l.Meta.Compactions, l.Meta.Archived, len(s.Messages()), rep.Summaries, len(archive))
	}
	if l.TokensPerByte == 0 {
		t.Error("no calibration recorded")
	}
}

// TestTurnOverflowsMidTurn: one turn whose own tool results outgrow the
// window compacts in its middle, and finishes.
func TestTurnOverflowsMidTurn(t *testing.T) {
	var script strings.Builder
	for i := range 6 {
		script.WriteString("match big task\nreasoning Read more.\n")
		script.WriteString(`call read_file {"path": "items.txt", "offset": ` + strconv.Itoa(1+i*300) + `, "limit": 300}` + "\n---\n")
	}
	script.WriteString("match big task\ntext All read.\n---\n" + agenttest.Summaries(6))
	a, srv, ev := windowedAgent(t, script.String(), 32_000)
	s, _ := a.NewSession()
	res, err := a.Run(context.Background(), s, "big task: read the items file")
	if err != nil || res.Text != "All read." {
		t.Fatalf("run: %+v, %v", res, err)
	}
	rep := agenttest.Check(t, srv.Requests())
	if rep.Summaries == 0 || ev.count() == 0 {
		t.Fatalf("no compaction in a turn that outgrew the window: %+v", rep)
	}
	if rep.MaxPrompt > 32_000 {
		t.Fatalf("a prompt of %d tokens", rep.MaxPrompt)
	}
}

// TestOverflowCompactsAndRetries: when the provider refuses a prompt as
// too long — the agent's idea of the window was wrong — the session
// compacts and the request is sent again, once.
func TestOverflowCompactsAndRetries(t *testing.T) {
	const turns = 30
	a, srv, ev := windowedAgent(t, agenttest.Script(turns, 30), 24_000)
	a.ContextWindow, a.CompactRatio = 40_000, 1 // believes in a larger window
	s, _ := a.NewSession()
	runTurns(t, a, s, 1, turns)
	refused := refusals(t, srv)
	overflows := 0
	for _, c := range ev.compactions {
		if c.Reason == agent.CompactOverflow {
			overflows++
		}
	}
	if refused == 0 || overflows != refused {
		t.Fatalf("%d refusals, %d compactions after one (%+v)", refused, overflows, ev.compactions)
	}
	agenttest.CheckFacts(t, agenttest.LastRequest(t, srv.Requests()), turns)
}

// refusals counts the requests srv refused as too long, and fails the
// test on a request refused for another reason.
func refusals(t *testing.T, srv *scripted.Server) int {
	t.Helper()
	n := 0
	for _, r := range srv.Requests() {
		if r.Status == 400 {
			n++
			if !strings.Contains(r.Error, "maximum context length") {
				t.Fatalf("refused for another reason: %s", r.Error)
			}
		}
	}
	return n
}

// TestOverflowTeachesTheWindow: a provider whose refusal names a window
// smaller than the configured one is believed: the session compacts
// within that window from then on, so it is refused once, not every few
// requests, and the user is told once which setting to correct.
func TestOverflowTeachesTheWindow(t *testing.T) {
	const turns = 30
	a, srv, ev := windowedAgent(t, agenttest.Script(turns, 30), 24_000)
	a.ContextWindow = 48_000 // configured twice as large as it is
	s, _ := a.NewSession()
	runTurns(t, a, s, 1, turns)
	refused := refusals(t, srv)
	var taught []string
	for _, n := range ev.notices {
		if strings.Contains(n, "context window of 24000 tokens") {
			taught = append(taught, n)
		}
	}
	if refused != 1 || len(taught) != 1 {
		t.Fatalf("%d refusals, window notices %q", refused, taught)
	}
	if !strings.Contains(taught[0], "context_window = 24000") {
		t.Errorf("the notice does not name the setting: %s", taught[0])
	}
	if len(ev.compactions) < 2 {
		t.Fatalf("%d compactions: the session did not go on compacting within the learnt window", len(ev.compactions))
	}
	agenttest.CheckFacts(t, agenttest.LastRequest(t, srv.Requests()), turns)
}

// TestResumeSummarisesInPieces: a long session resumed against a model
// whose window is far smaller than its history is summarised in pieces
// that each fit, and goes on.
func TestResumeSummarisesInPieces(t *testing.T) {
	const turns = 50
	a, srv, _ := windowedAgent(t, agenttest.Script(turns+1, 30), 0)
	s, _ := a.NewSession()
	runTurns(t, a, s, 1, turns)
	s.Close()
	before := len(srv.Requests())
	if rep := agenttest.Check(t, srv.Requests()); rep.MaxPrompt < 60_000 {
		t.Fatalf("the session is only %d tokens long", rep.MaxPrompt)
	}

	// The same session against a 24k model.
	b, srv2, ev := windowedAgent(t, agenttest.Script(turns+1, 30), 24_000)
	b.Store = a.Store
	b.Env.Root = a.Env.Root
	r, err := b.Resume(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	runTurns(t, b, r, turns+1, turns+1)
	if before != 2*turns {
		t.Fatalf("%d requests before the resume", before)
	}
	rep := agenttest.Check(t, srv2.Requests())
	if len(ev.compactions) != 1 || ev.compactions[0].Pieces < 3 || rep.Summaries != ev.compactions[0].Pieces {
		t.Fatalf("compactions %+v, %d summary requests", ev.compactions, rep.Summaries)
	}
	agenttest.CheckFacts(t, agenttest.LastRequest(t, srv2.Requests()), turns+1)
	archive, _ := b.Store.Archive(s.ID)
	agenttest.CheckArchived(t, append(srv.Requests(), srv2.Requests()...), archive, r.Messages())
}

// TestCompactByHand: Agent.Compact compacts a session between turns, and
// says when there is nothing to fold.
func TestCompactByHand(t *testing.T) {
	a, srv, ev := windowedAgent(t, agenttest.Script(3, 30), 0)
	s, _ := a.NewSession()
	if _, err := a.Compact(context.Background(), s); !errors.Is(err, agent.ErrNothingToCompact) {
		t.Fatalf("compacting an empty session: %v", err)
	}
	runTurns(t, a, s, 1, 3)
	res, err := a.Compact(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != agent.CompactManual || res.Archived == 0 || res.After >= res.Before || ev.count() != 1 {
		t.Fatalf("result %+v, %d events", res, ev.count())
	}
	// By hand, only the last answer stays beside the user's messages.
	if got := strings.Join(roles(s), " "); got != "system user user user digest assistant" {
		t.Fatalf("the view is %s", got)
	}
	if rep := agenttest.Check(t, srv.Requests()); rep.Summaries != 1 {
		t.Fatalf("%d summary requests", rep.Summaries)
	}
}

// TestBuildWiresCompaction: the provider's context_window, compact_ratio
// and summary_model reach the agent.
func TestBuildWiresCompaction(t *testing.T) {
	t.Setenv("REASONIX_HOME", t.TempDir())
	cfg, err := config.Load(config.Options{SkipUser: true})
	if err != nil {
		t.Fatal(err)
	}
	src := `default_model = "local"
[[providers]]
name = "local"
base_url = "http://127.0.0.1:1/v1"
model = "m"
context_window = 32000
[[providers]]
name = "cheap"
base_url = "http://127.0.0.1:2/v1"
model = "small"
context_window = 64000
price = { input_cache_hit = 0.01, input_cache_miss = 0.1, output = 0.2 }
[agent]
compact_ratio = 0.7
summary_model = "cheap"
`
	if err := cfg.OverlayTOML("test", src); err != nil {
		t.Fatal(err)
	}
	a, err := agent.Build(cfg, agent.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sm := a.Summarizer
	if a.ContextWindow != 32000 || a.CompactRatio != 0.7 || sm == nil || sm.ModelRef != "cheap/small" || sm.Window != 64000 || sm.Price == nil {
		t.Fatalf("window %d, ratio %v, summarizer %+v", a.ContextWindow, a.CompactRatio, sm)
	}
	// The session's own model needs no second provider.
	if err := cfg.OverlayTOML("test2", "[agent]\nsummary_model = \"local/m\"\n"); err != nil {
		t.Fatal(err)
	}
	if a, err = agent.Build(cfg, agent.Options{Dir: t.TempDir()}); err != nil || a.Summarizer != nil {
		t.Fatalf("summarizer %+v, %v", a.Summarizer, err)
	}
}

// TestSwitchedModelCompactsInItsWindow: a session moved by /model to a
// model with a smaller window compacts within that window, its summary
// written by that model.
func TestSwitchedModelCompactsInItsWindow(t *testing.T) {
	t.Setenv("REASONIX_HOME", t.TempDir())
	const turns = 40
	small, smallURL := agenttest.Serve(t, agenttest.Script(turns+1, 30), scripted.Options{})
	big, bigURL := agenttest.Serve(t, agenttest.Script(turns+1, 30), scripted.Options{ContextWindow: 24_000})
	cfg, err := config.Load(config.Options{SkipUser: true})
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`default_model = "wide"
[[providers]]
name = "wide"
base_url = %q
model = "deepseek-flash"
context_window = 0
[[providers]]
name = "narrow"
base_url = %q
model = "deepseek-flash"
context_window = 24000
`, smallURL, bigURL)
	if err := cfg.OverlayTOML("test", src); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	name, content := agenttest.ItemsFile()
	os.WriteFile(filepath.Join(root, name), []byte(content), 0o644)
	a, err := agent.Build(cfg, agent.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, _ := a.NewSession()
	runTurns(t, a, s, 1, turns)
	if _, err := a.Run(context.Background(), s, "/model narrow"); err != nil {
		t.Fatal(err)
	}
	runTurns(t, a, s, turns+1, turns+1)
	if rep := agenttest.Check(t, small.Requests()); rep.Summaries != 0 {
		t.Fatalf("%d summary requests to the model of the unbounded window", rep.Summaries)
	}
	rep := agenttest.Check(t, big.Requests())
	if rep.Summaries == 0 {
		t.Fatal("the session did not compact on the narrow model")
	}
	agenttest.CheckFacts(t, agenttest.LastRequest(t, big.Requests()), turns+1)

	// /compact compacts on the session's model too.
	res, err := a.Run(context.Background(), s, "/compact")
	if err != nil || res.Action == nil || res.Action.Kind != agent.ActionCompact {
		t.Fatalf("/compact: %+v, %v", res, err)
	}
	if again := agenttest.Check(t, big.Requests()); again.Summaries != rep.Summaries+1 {
		t.Fatalf("/compact made %d summary requests to the session's model", again.Summaries-rep.Summaries)
	}
}

// TestOversizedUserTurnIsFolded: a user message that pasted a large file
// is folded like tool output — archived whole, the summary asked to keep
// what it said — while the normal-sized turns stay verbatim.
func TestOversizedUserTurnIsFolded(t *testing.T) {
	paste := "Turn 2: here is the log, find the failure:\n" + strings.Repeat("INFO all good on this line\n", 800) + "ERROR disk full on /var\n"
	script := agenttest.Turn(1, 30) + "match Turn 2:\ntext The failure is a full disk on /var.\n---\n" +
		agenttest.Turn(3, 30) + agenttest.Turn(4, 30) + agenttest.Summaries(4)
	// The paste alone takes a third of the window.
	a, srv, ev := windowedAgent(t, script, 24_000)
	s, _ := a.NewSession()
	runTurns(t, a, s, 1, 1)
	if _, err := a.Run(context.Background(), s, paste); err != nil {
		t.Fatal(err)
	}
	runTurns(t, a, s, 3, 4)
	if ev.count() == 0 {
		t.Fatal("no compaction")
	}
	reqs := srv.Requests()
	agenttest.Check(t, reqs)
	var asked bool
	for _, r := range reqs {
		if agenttest.IsSummary(r) && strings.Contains(r.Messages[len(r.Messages)-1].Content, "Some of the user's messages above are folded too") {
			asked = true
		}
	}
	last := agenttest.LastRequest(t, reqs)
	said := false
	for _, m := range last.Messages {
		if strings.Contains(m.Content, "ERROR disk full") {
			t.Fatalf("the pasted log is still in the prompt (%s)", m.Role)
		}
		said = said || strings.HasPrefix(m.Content, "Summary of the earlier work") && strings.Contains(m.Content, "1 of them the user's")
	}
	if !said {
		t.Error("no digest says that a user message was folded into it")
	}
	if !asked {
		t.Error("no summary request was told that a user message is folded")
	}
	for _, n := range []int{1, 3, 4} {
		if !strings.Contains(last.Body, agenttest.Prompt(n)) {
			t.Errorf("turn %d's message is gone", n)
		}
	}
	archive, _ := a.Store.Archive(s.ID)
	found := false
	for _, m := range archive {
		found = found || m.Content == paste
	}
	if !found {
		t.Fatal("the pasted message is not in the archive")
	}
	folded := 0
	for _, c := range ev.compactions {
		folded += c.UserFolded
		if c.UserFolded == 1 && !strings.Contains(c.Notice(), ", 1 message of yours summarised") {
			t.Errorf("the notice does not say that the user's message was summarised: %s", c.Notice())
		}
	}
	if folded != 1 {
		t.Errorf("%d user messages reported folded, want 1 (%+v)", folded, ev.compactions)
	}
}

// TestFoldedMemoryIsAttachedAgain: a subdirectory's memory file attached
// to a tool result that a compaction folded is attached again the next
// time a call touches that directory.
func TestFoldedMemoryIsAttachedAgain(t *testing.T) {
	const last = 16
	read := func(n int) string {
		return fmt.Sprintf("match Turn %d:\ncall read_file {\"path\": \"sub/x.go\"}\n---\nmatch Turn %d:\ntext Read.\n---\n", n, n)
	}
	var script strings.Builder
	script.WriteString(read(1))
	for n := 2; n < last; n++ {
		script.WriteString(agenttest.Turn(n, 30))
	}
	script.WriteString(read(last) + agenttest.Summaries(last))
	a, _, ev := windowedAgent(t, script.String(), 20_000)
	os.MkdirAll(filepath.Join(a.Env.Root, "sub"), 0o755)
	os.WriteFile(filepath.Join(a.Env.Root, "sub", "AGENTS.md"), []byte("SUB RULES: keep the cache warm."), 0o644)
	os.WriteFile(filepath.Join(a.Env.Root, "sub", "x.go"), []byte("package sub\n"), 0o644)
	s, _ := a.NewSession()
	runTurns(t, a, s, 1, last)
	if ev.count() == 0 {
		t.Fatal("no compaction")
	}
	archive, _ := a.Store.Archive(s.ID)
	folded := false
	for _, m := range archive {
		folded = folded || m.Role == "tool" && strings.Contains(m.Content, "SUB RULES")
	}
	msgs := s.Messages()
	again := false
	for _, m := range msgs {
		again = again || m.Role == "tool" && strings.Contains(m.Content, "SUB RULES")
	}
	if !folded || !again {
		t.Fatalf("attachment folded %v, attached again %v", folded, again)
	}
}
