// Package agenttest holds helpers for tests of long sessions (a scripted
// model session of many turns, each stating a fact, and the checks that a
// compacted session kept its promises on the wire), of workspace trust
// (a hostile repository's configuration, and what tells whether it
// acted), and of requests in flight at once (a Gate before a model
// server). It is imported only by tests.
package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// SummaryMarker is in the last user message of every summary request.
const SummaryMarker = "Summarise the conversation above"

// Prompt is the user's message of turn n of a long session: it states a
// fact that must survive every compaction verbatim.
func Prompt(n int) string {
	return fmt.Sprintf("Turn %d: remember that item %d is filed under code K%05d-%d.", n, n, n*7919%100000, n)
}

// ItemsFile is the name and content of the file the long session reads:
// 2,000 numbered lines.
func ItemsFile() (name, content string) {
	var b strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&b, "item %d: shelf %d, row %d, bin %d, checked on day %d\n", i, i%37, i%11, i%97, i%365)
	}
	return "items.txt", b.String()
}

// Turn is the script of turn n: the model reads lines of the items file
// (lines lines, so turns can be made heavier), then answers.
func Turn(n, lines int) string {
	return fmt.Sprintf("match Turn %d:\nreasoning Look up item %d.\ncall read_file {\"path\": \"items.txt\", \"offset\": %d, \"limit\": %d}\n---\nmatch Turn %d:\ntext Noted: item %d.\n---\n",
		n, n, 1+n*13%(2000-lines), lines, n, n)
}

// Summaries are n summary steps: whatever summary request comes, in
// whatever order, gets one.
func Summaries(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "match %s\ntext Summary %d: the user asked me to remember item codes; I looked each item up in items.txt and noted it.\n---\n", SummaryMarker, i)
	}
	return b.String()
}

// Script is a long session of turns turns reading lines lines each, with
// enough summary steps for a compaction every turn.
func Script(turns, lines int) string {
	var b strings.Builder
	for n := 1; n <= turns; n++ {
		b.WriteString(Turn(n, lines))
	}
	b.WriteString(Summaries(turns + 10))
	return b.String()
}

// IsSummary reports whether r is a summary request.
func IsSummary(r scripted.Request) bool {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return strings.Contains(r.Messages[i].Content, SummaryMarker)
		}
	}
	return false
}

// Report sums up the requests of a session.
type Report struct {
	// Requests counts the session's requests, Summaries the summary
	// requests among them.
	Requests, Summaries int
	// Prompt and Hit are the prompt tokens and cache hits of the
	// requests other than summary requests; SummaryPrompt and
	// SummaryHit those of the summary requests.
	Prompt, Hit               int
	SummaryPrompt, SummaryHit int
	// Completion counts the completion tokens of all requests.
	Completion int
	// MaxPrompt is the largest prompt sent.
	MaxPrompt int
}

// HitRatio is the cache-hit ratio outside summary requests.
func (r Report) HitRatio() float64 { return ratio(r.Hit, r.Prompt) }

// SummaryHitRatio is the cache-hit ratio of the summary requests.
func (r Report) SummaryHitRatio() float64 { return ratio(r.SummaryHit, r.SummaryPrompt) }

// Cost prices the session's tokens.
func (r Report) Cost(hit, miss, out float64) float64 {
	h := float64(r.Hit + r.SummaryHit)
	m := float64(r.Prompt + r.SummaryPrompt - r.Hit - r.SummaryHit)
	return (h*hit + m*miss + float64(r.Completion)*out) / 1e6
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Check verifies the promises of a compacted session on the wire and
// sums it up: no request was refused, the tools never changed, and every
// request other than a summary request extends the one before it byte
// for byte, unless a compaction came between them.
func Check(tb testing.TB, reqs []scripted.Request) Report {
	tb.Helper()
	var rep Report
	var prev *wireBody
	prevSeq, compacted := 0, false
	for i := range reqs {
		r := &reqs[i]
		if r.Path != "/chat/completions" && r.Path != "/v1/chat/completions" {
			continue
		}
		rep.Requests++
		if r.Status != 200 || r.Usage == nil {
			tb.Fatalf("request %d was refused: %d %s", r.Seq, r.Status, r.Error)
		}
		rep.Completion += r.Usage.CompletionTokens
		rep.MaxPrompt = max(rep.MaxPrompt, r.Usage.PromptTokens)
		if IsSummary(*r) {
			rep.Summaries++
			rep.SummaryPrompt += r.Usage.PromptTokens
			rep.SummaryHit += r.Usage.PromptCacheHitTokens
			compacted = true
			continue
		}
		rep.Prompt += r.Usage.PromptTokens
		rep.Hit += r.Usage.PromptCacheHitTokens
		var cur wireBody
		if err := json.Unmarshal([]byte(r.Body), &cur); err != nil {
			tb.Fatalf("request %d: %v", r.Seq, err)
		}
		if prev != nil {
			if !bytes.Equal(prev.Tools, cur.Tools) {
				tb.Fatalf("the tools changed between requests %d and %d", prevSeq, r.Seq)
			}
			open := bytes.TrimSuffix(prev.Messages, []byte("]"))
			if !compacted && !bytes.HasPrefix(cur.Messages, open) {
				tb.Fatalf("request %d does not extend request %d byte for byte, and no compaction came between them", r.Seq, prevSeq)
			}
		}
		prev, prevSeq, compacted = &cur, r.Seq, false
	}
	return rep
}

// wireBody holds the fields of a request body that must extend the
// previous request's, exactly as sent.
type wireBody struct {
	Messages json.RawMessage `json:"messages"`
	Tools    json.RawMessage `json:"tools"`
}

// LastRequest is the last request other than a summary request.
func LastRequest(tb testing.TB, reqs []scripted.Request) scripted.Request {
	tb.Helper()
	for i := len(reqs) - 1; i >= 0; i-- {
		if !IsSummary(reqs[i]) && reqs[i].Path != "" && reqs[i].Status == 200 {
			return reqs[i]
		}
	}
	tb.Fatal("no request")
	return scripted.Request{}
}

// CheckFacts verifies that r holds the prompt of every turn from 1 to
// turns verbatim, each as a user message.
func CheckFacts(tb testing.TB, r scripted.Request, turns int) {
	tb.Helper()
	have := map[string]bool{}
	for _, m := range r.Messages {
		if m.Role == "user" {
			have[m.Content] = true
		}
	}
	for n := 1; n <= turns; n++ {
		if !have[Prompt(n)] {
			tb.Fatalf("request %d lacks the user's message of turn %d: %q", r.Seq, n, Prompt(n))
		}
	}
}

// CheckArchived verifies that nothing was lost: every message any
// request other than a summary request sent is in the archive or in the
// session's view.
func CheckArchived(tb testing.TB, reqs []scripted.Request, archive, view []provider.Message) {
	tb.Helper()
	have := map[string]bool{}
	for _, m := range append(append([]provider.Message(nil), archive...), view...) {
		var ids []string
		for _, c := range m.ToolCalls {
			ids = append(ids, c.ID)
		}
		have[key(string(m.Role), m.Content, m.ToolCallID, ids)] = true
	}
	missing := 0
	for _, r := range reqs {
		if IsSummary(r) {
			continue
		}
		for _, m := range r.Messages {
			var ids []string
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
			}
			if k := key(m.Role, m.Content, m.ToolCallID, ids); !have[k] {
				if missing++; missing < 5 {
					tb.Errorf("request %d sent a message that is neither archived nor kept: %s %.80q", r.Seq, m.Role, m.Content)
				}
			}
		}
	}
	if missing > 0 {
		tb.Fatalf("%d messages lost", missing)
	}
}

func key(role, content, callID string, calls []string) string {
	return role + "\x00" + content + "\x00" + callID + "\x00" + strings.Join(calls, ",")
}

// Serve serves script on a new scripted server with opts for the test's
// lifetime, and returns it with its URL.
func Serve(tb testing.TB, script string, opts scripted.Options) (*scripted.Server, string) {
	tb.Helper()
	sc, err := scripted.Parse([]byte(script))
	if err != nil {
		tb.Fatal(err)
	}
	srv := scripted.NewServer(sc, opts)
	url, err := srv.Start()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return srv, url
}

// CheckStored runs CheckArchived on session id as its store in dir holds
// it — the view in its file and its archive — and returns how many
// messages each holds.
func CheckStored(tb testing.TB, dir, id string, reqs []scripted.Request) (view, archived int) {
	tb.Helper()
	st := &agent.Store{Dir: dir}
	l, err := st.Load(id)
	if err != nil {
		tb.Fatal(err)
	}
	archive, err := st.Archive(id)
	if err != nil {
		tb.Fatal(err)
	}
	CheckArchived(tb, reqs, archive, l.Messages)
	return len(l.Messages), len(archive)
}

// ResidentMB is the resident set of process pid, read from /proc (0 where
// there is none).
func ResidentMB(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(v)[0])
			return float64(kb) / 1024
		}
	}
	return 0
}
