package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// windowedWorkspace makes a home, a work directory holding the long
// session's items file, and a configuration pointing at the scripted
// server at url with context_window set to window.
func windowedWorkspace(t *testing.T, url string, window int) (home, work, cfg string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	cfg = filepath.Join(t.TempDir(), "config.toml")
	config := strings.Replace(scriptedConfig(url), `model    = "deepseek-flash"`, fmt.Sprintf("model    = \"deepseek-flash\"\ncontext_window = %d", window), 1)
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	name, content := agenttest.ItemsFile()
	if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, work, cfg
}

// TestLongSessionThroughResume plays a long session one turn per process,
// `reasonix run --resume` after the first, against a model whose window
// is far smaller than the session and that refuses longer prompts — a
// window where a compaction comes every several turns, as in real use: no
// request is refused, the session compacts several times, every fact the
// user stated is in the last request verbatim, the archive holds what was
// dropped, and outside compactions each request — across processes too —
// extends the one before byte for byte, mostly from the cache.
func TestLongSessionThroughResume(t *testing.T) {
	const turns, window = 60, 32_000
	srv, url := agenttest.Serve(t, agenttest.Script(turns, 30), scripted.Options{ContextWindow: window})
	home, work, cfg := windowedWorkspace(t, url, window)

	sessionRE := regexp.MustCompile(`session (\d{8}-\d{6}-[0-9a-f]{6})`)
	id, notices := "", 0
	for n := 1; n <= turns; n++ {
		args := []string{"run", "--config", cfg, agenttest.Prompt(n)}
		if id != "" {
			args = []string{"run", "--config", cfg, "--resume", id, agenttest.Prompt(n)}
		}
		r := runReasonix(t, work, home, nil, args...)
		if r.exit != 0 || strings.TrimSpace(r.stdout) != "Noted: item "+strconv.Itoa(n)+"." {
			t.Fatalf("turn %d: %+v", n, r)
		}
		if m := sessionRE.FindStringSubmatch(r.stderr); m != nil {
			id = m[1]
		}
		notices += strings.Count(r.stderr, "note: compacted: ")
	}
	reqs := srv.Requests()
	rep := agenttest.Check(t, reqs)
	if rep.Summaries < 2 || notices != rep.Summaries {
		t.Fatalf("%d summary requests, %d notices", rep.Summaries, notices)
	}
	agenttest.CheckFacts(t, agenttest.LastRequest(t, reqs), turns)
	if rep.HitRatio() < 0.9 {
		t.Errorf("cache hits outside compactions: %.1f%%", 100*rep.HitRatio())
	}
	t.Logf("%d requests, %d compactions, %.1f%% cache hits outside them, largest prompt %d tokens",
		rep.Requests, rep.Summaries, 100*rep.HitRatio(), rep.MaxPrompt)
	agenttest.CheckStored(t, filepath.Join(home, "sessions"), id, reqs)
	// One session, however many files it keeps beside it.
	r := runReasonix(t, work, home, nil, "sessions", "--json")
	if strings.Count(r.stdout, `"id"`) != 1 || !strings.Contains(r.stdout, `"archived"`) {
		t.Fatalf("sessions: %s", r.stdout)
	}
}

// TestOverflowCompactsThroughRun: `reasonix run` against a provider whose
// real window is smaller than the configured one, on a task whose own
// tool results outgrow it: the provider refuses a prompt as too long in
// the middle of the turn, the session compacts and sends it again, keeps
// the window the refusal named, and the run finishes, says it compacted,
// and exits 0.
func TestOverflowCompactsThroughRun(t *testing.T) {
	const reads = 8
	var script strings.Builder
	for i := range reads {
		fmt.Fprintf(&script, "match big task\nreasoning Read more.\ncall read_file {\"path\": \"items.txt\", \"offset\": %d, \"limit\": 250}\n---\n", 1+i*250)
	}
	script.WriteString("match big task\ntext All read.\n---\n" + agenttest.Summaries(reads))
	srv, url := agenttest.Serve(t, script.String(), scripted.Options{ContextWindow: 32_000})
	// The configuration believes in a larger window than the model has.
	home, work, cfg := windowedWorkspace(t, url, 64_000)

	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "big task: read the items file")
	if r.exit != 0 || strings.TrimSpace(r.stdout) != "All read." {
		t.Fatalf("run: %+v", r)
	}
	reqs := srv.Requests()
	// Every refusal is for the prompt's length, is followed by a summary
	// request and then by the same step sent again, compacted, and
	// answered.
	// A compaction is a run of summary requests (several when the history
	// is summarised in pieces).
	refused, summaries, compactions := 0, 0, 0
	for i, q := range reqs {
		if agenttest.IsSummary(q) {
			summaries++
			if i == 0 || !agenttest.IsSummary(reqs[i-1]) {
				compactions++
			}
		}
		if q.Status == 200 {
			continue
		}
		refused++
		if !strings.Contains(q.Error, "maximum context length") {
			t.Fatalf("request %d refused for another reason: %d %s", q.Seq, q.Status, q.Error)
		}
		// One summary request, or several when the history is summarised
		// in pieces, then the step again.
		j := i + 1
		for j < len(reqs) && agenttest.IsSummary(reqs[j]) {
			j++
		}
		if j == i+1 || j >= len(reqs) || reqs[j].Status != 200 {
			t.Fatalf("request %d was refused and not compacted and sent again", q.Seq)
		}
		if len(reqs[j].Messages) >= len(q.Messages) {
			t.Fatalf("request %d sent again with %d messages, as many as the refused one", reqs[j].Seq, len(reqs[j].Messages))
		}
	}
	// The refusal names the model's window, which the session keeps: it
	// is refused once, and the user is told what to set.
	if refused != 1 {
		t.Fatalf("%d requests refused, want 1: the window the refusal named was not kept (%d requests)", refused, len(reqs))
	}
	if !strings.Contains(r.stderr, "context_window = 32000") {
		t.Errorf("no notice names the model's window:\n%s", r.stderr)
	}
	if notices := strings.Count(r.stderr, "note: compacted: "); notices != compactions {
		t.Fatalf("%d compactions, %d notices:\n%s", compactions, notices, r.stderr)
	}
	// Every read was asked for and answered: only unused summaries remain.
	if n := srv.Remaining(); n != reads-summaries {
		t.Fatalf("%d scripted steps left over, %d summaries unused", n, reads-summaries)
	}
	t.Logf("%d requests, %d refused, %d compactions", len(reqs), refused, compactions)
}
