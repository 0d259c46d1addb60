package lsp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/lsp/lsptest"
)

// TestLongSessionInTheEditor plays a 200-turn session through the
// language server (reasonix.ask, turn after turn) against a model with a
// 32k window that refuses longer prompts, then resumes it in a new
// process: no request is refused, the session compacts several times and
// the editor hears of each, every fact the user stated is in the last
// request verbatim, the archive holds what was dropped, the cache hit
// ratio outside compactions stays above 90%, and outside compactions each
// request extends the one before byte for byte.
func TestLongSessionInTheEditor(t *testing.T) {
	const turns, window = 200, 32_000
	root, srv := workspaceWith(t, agenttest.Script(turns+1, 30), "context_window = 32000\n", scripted.Options{ContextWindow: window})
	name, content := agenttest.ItemsFile()
	if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	ed := lsptest.New(t, lsptest.Options{Root: root, Events: true})
	id := ""
	for n := 1; n <= turns; n++ {
		args := map[string]any{"prompt": agenttest.Prompt(n)}
		if id != "" {
			args["sessionId"] = id
		}
		b, _ := json.Marshal(args)
		res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
		if res["text"] != "Noted: item "+strconv.Itoa(n)+"." {
			t.Fatalf("turn %d: %v", n, res)
		}
		id, _ = res["sessionId"].(string)
	}
	reqs := srv.Requests()
	rep := agenttest.Check(t, reqs)
	rec := ed.Snapshot()
	events, logs, requests := 0, 0, 0
	for _, e := range rec.Events {
		if e["kind"] == string(agent.EventCompaction) {
			events++
			c, _ := e["compaction"].(map[string]any)
			n, _ := c["requests"].(float64)
			requests += int(n)
		}
	}
	for _, l := range rec.Logs {
		if strings.HasPrefix(l, "Reasonix: compacted: ") {
			logs++
		}
	}
	if events < 5 || requests != rep.Summaries || logs != events {
		t.Fatalf("%d compaction events making %d summary requests (the server saw %d), %d logged", events, requests, rep.Summaries, logs)
	}
	agenttest.CheckFacts(t, agenttest.LastRequest(t, reqs), turns)
	if rep.HitRatio() < 0.9 {
		t.Errorf("cache hits outside compactions: %.1f%%", 100*rep.HitRatio())
	}
	view, archived := agenttest.CheckStored(t, filepath.Join(os.Getenv("REASONIX_HOME"), "sessions"), id, reqs)
	t.Logf("%d turns: %d requests, %d compactions, %.1f%% cache hits outside them (%.1f%% in them), largest prompt %d tokens; the session file holds %d messages, the archive %d",
		turns, rep.Requests, rep.Summaries, 100*rep.HitRatio(), 100*rep.SummaryHitRatio(), rep.MaxPrompt, view, archived)

	// A new process resumes the session from its compacted file.
	bin := buildReasonix(t)(t)
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, bin, "run", "--resume", id, agenttest.Prompt(turns+1))
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || strings.TrimSpace(stdout.String()) != "Noted: item "+strconv.Itoa(turns+1)+"." {
		t.Fatalf("resume: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	reqs = srv.Requests()
	agenttest.Check(t, reqs)
	agenttest.CheckFacts(t, agenttest.LastRequest(t, reqs), turns+1)
}
