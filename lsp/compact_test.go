package lsp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/lsp/lsptest"
	"github.com/reasonix/reasonix/lsp/wire"
)

// TestLongSessionInTheEditor plays a 200-turn session through the
// language server (reasonix.ask, turn after turn) against a model with a
// 32k window that refuses longer prompts, then resumes it in a new
// `reasonix run` process and in a new `reasonix lsp` process: no request
// is refused, the session compacts several times and the editor hears of
// each, every fact the user stated is in the last request verbatim, the
// archive holds what was dropped, the cache hit ratio outside compactions
// stays above 90%, outside compactions each request extends the one
// before byte for byte, and the new language server starts from the
// compacted view the session file holds.
func TestLongSessionInTheEditor(t *testing.T) {
	const turns, window = 200, 32_000
	root, srv := workspaceWith(t, agenttest.Script(turns+2, 30), "context_window = 32000\n", scripted.Options{ContextWindow: window})
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

	// A new `reasonix lsp` process continues it in the editor, from the
	// compacted view the session file holds: its first request is that
	// view (kept user turns, digest, tail) and the new prompt.
	st := &agent.Store{Dir: filepath.Join(os.Getenv("REASONIX_HOME"), "sessions")}
	stored, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	digests := 0
	for _, m := range stored.Messages {
		if m.Digest {
			digests++
		}
	}
	if digests == 0 {
		t.Fatalf("the session file holds %d messages and no digest: not a compacted view", len(stored.Messages))
	}
	before := len(reqs)
	server := startServerProcess(t, bin, root)
	b, _ := json.Marshal(map[string]any{"prompt": agenttest.Prompt(turns + 2), "sessionId": id})
	raw, err := server.ExecuteCommand(c, &protocol.ExecuteCommandParams{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
	if err != nil {
		t.Fatalf("reasonix.ask in a new server: %v", err)
	}
	var res map[string]any
	if err := json.Unmarshal(raw, &res); err != nil || res["sessionId"] != id || res["text"] != "Noted: item "+strconv.Itoa(turns+2)+"." {
		t.Fatalf("reasonix.ask in a new server: %s (%v)", raw, err)
	}
	reqs = srv.Requests()
	agenttest.Check(t, reqs)
	first := reqs[before]
	if agenttest.IsSummary(first) {
		t.Fatalf("the new server compacted before its first request: the view it resumed did not fit")
	}
	if len(first.Messages) != len(stored.Messages)+1 {
		t.Fatalf("the new server's first request holds %d messages; the compacted view %d and the prompt", len(first.Messages), len(stored.Messages))
	}
	for i, m := range stored.Messages {
		if w := first.Messages[i]; w.Role != string(m.Role) || w.Content != m.Content || w.ToolCallID != m.ToolCallID {
			t.Fatalf("message %d of the new server's first request is %s %.80q, the view's is %s %.80q", i, w.Role, w.Content, m.Role, m.Content)
		}
	}
	if last := first.Messages[len(first.Messages)-1]; last.Role != "user" || last.Content != agenttest.Prompt(turns+2) {
		t.Fatalf("the new server's first request ends with %s %.80q", last.Role, last.Content)
	}
	agenttest.CheckFacts(t, agenttest.LastRequest(t, reqs), turns+2)
}

// startServerProcess starts `reasonix lsp` (bin) over its standard
// streams, as an editor does, on the workspace root, initializes it and
// returns its side of the protocol. The server is shut down when the test
// ends, and must exit 0.
func startServerProcess(t *testing.T, bin, root string) protocol.Server {
	t.Helper()
	// The process is killed if it outlives this, so a hung server fails
	// the test rather than holding it.
	life, stop := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(stop)
	cmd := exec.CommandContext(life, bin, "lsp")
	cmd.Dir = root
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipes{out, in}), jsonrpc2.WithCodec(wire.Codec{}))
	// The client declares no capabilities, so the server's calls back
	// (none expected) get null.
	conn.Go(context.Background(), func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	server := protocol.ServerDispatcher(conn)
	t.Cleanup(func() {
		c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := server.Shutdown(c); err != nil {
			t.Errorf("shutdown: %v\n%s", err, stderr.String())
		}
		server.Exit(c)
		// The connection ends when the server closes its output; only
		// then may Wait close the pipes.
		select {
		case <-conn.Done():
		case <-c.Done():
			t.Errorf("the server did not exit\n%s", stderr.String())
			conn.Close()
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("the server exited with %v\n%s", err, stderr.String())
		}
	})
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	params := &protocol.InitializeParams{ClientInfo: protocol.ClientInfo{Name: "compact test"}}
	params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: uri.File(root), Name: filepath.Base(root)}})
	if _, err := server.Initialize(c, params); err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	if err := server.Initialized(c, &protocol.InitializedParams{}); err != nil {
		t.Fatalf("initialized: %v", err)
	}
	return server
}

// pipes is a child process's standard output and input as one stream.
type pipes struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p pipes) Close() error {
	return errors.Join(p.w.Close(), p.ReadCloser.Close())
}
