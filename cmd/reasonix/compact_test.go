package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// TestLongSessionThroughResume plays a long session one turn per process,
// `reasonix run --resume` after the first, against a model whose window
// is far smaller than the session and that refuses longer prompts: no
// request is refused, the session compacts several times, every fact the
// user stated is in the last request verbatim, the archive holds what was
// dropped, and outside compactions each request — across processes too —
// extends the one before byte for byte.
func TestLongSessionThroughResume(t *testing.T) {
	const turns, window = 30, 20_000
	srv, url := agenttest.Serve(t, agenttest.Script(turns, 30), scripted.Options{ContextWindow: window})
	home, work := t.TempDir(), t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	config := strings.Replace(scriptedConfig(url), `model    = "deepseek-flash"`, "model    = \"deepseek-flash\"\ncontext_window = 20000", 1)
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	name, content := agenttest.ItemsFile()
	os.WriteFile(filepath.Join(work, name), []byte(content), 0o644)

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
	t.Logf("%d requests, %d compactions, %.1f%% cache hits outside them, largest prompt %d tokens",
		rep.Requests, rep.Summaries, 100*rep.HitRatio(), rep.MaxPrompt)
	agenttest.CheckStored(t, filepath.Join(home, "sessions"), id, reqs)
	// One session, however many files it keeps beside it.
	r := runReasonix(t, work, home, nil, "sessions", "--json")
	if strings.Count(r.stdout, `"id"`) != 1 || !strings.Contains(r.stdout, `"archived"`) {
		t.Fatalf("sessions: %s", r.stdout)
	}
}
