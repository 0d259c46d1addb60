package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// firstPrefix builds an agent from configuration (the built-in tools, in
// an empty workspace and an empty home, graph included), runs one turn
// against the scripted server and returns the first request's cached
// prefix as sent: the system message's text and the tools array.
func firstPrefix(t *testing.T, toml string) (system string, tools json.RawMessage) {
	t.Helper()
	reqs := runBuilt(t, toml, t.TempDir(), "text done\n")
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal([]byte(reqs[0].Body), &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) == 0 || body.Messages[0].Role != "system" {
		t.Fatalf("the first request does not open with a system message: %s", reqs[0].Body)
	}
	return body.Messages[0].Content, body.Tools
}

// runBuilt builds an agent from configuration in the workspace dir, with
// an empty home, runs one turn of script against the scripted server and
// returns the requests that reached it.
func runBuilt(t *testing.T, toml, dir, script string) []scripted.Request {
	t.Helper()
	t.Setenv("REASONIX_HOME", t.TempDir())
	srv, url := agenttest.Serve(t, script, scripted.Options{})
	cfg, err := config.Load(config.Options{SkipUser: true})
	if err != nil {
		t.Fatal(err)
	}
	src := "default_model = \"local\"\n[[providers]]\nname = \"local\"\nbase_url = \"" + url + "\"\nmodel = \"m\"\n" + toml
	if err := cfg.OverlayTOML("test", src); err != nil {
		t.Fatal(err)
	}
	a, err := agent.Build(cfg, agent.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := a.Run(context.Background(), s, "hello"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the server")
	}
	return reqs
}

// leanPrefixTokens bounds the lean profile's prefix: a small local model
// with an 8k window keeps most of it for the conversation.
const leanPrefixTokens = 3000

// TestFirstRequestPrefix measures the first request's cached prefix in
// each tool profile, in bytes and in tokens estimated as bytes/4 (run it
// with -v for the figures), and holds the lean one under
// leanPrefixTokens.
func TestFirstRequestPrefix(t *testing.T) {
	for _, profile := range []string{"full", "lean"} {
		system, tools := firstPrefix(t, "[tools]\nprofile = \""+profile+"\"\n")
		n := len(system) + len(tools)
		t.Logf("%s: system %d B + tools %d B = %d B ≈ %d tokens", profile, len(system), len(tools), n, n/4)
		if profile == "lean" && n/4 > leanPrefixTokens {
			t.Errorf("the lean prefix is %d tokens (bytes/4), over %d", n/4, leanPrefixTokens)
		}
	}
}

// TestLeanProfileReadsSearchesEditsRuns plays a turn in the lean profile
// that reads, lists, finds, searches, edits, writes and runs, each call
// with its tool's arguments as the full profile takes them.
func TestLeanProfileReadsSearchesEditsRuns(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := strings.Join([]string{
		`call read_file {"path": "a.txt", "offset": 1, "limit": 5}`,
		`call ls {"path": "."}`,
		`call glob {"pattern": "*.txt"}`,
		`call grep {"pattern": "hel+o", "glob": "*.txt", "output_mode": "content", "context": 1, "ignore_case": true}`,
		`call edit_file {"path": "a.txt", "old_string": "hello", "new_string": "goodbye"}`,
		`call write_file {"path": "b.txt", "content": "new\n"}`,
		`call bash {"command": "cat a.txt b.txt", "timeout_seconds": 30}`,
		"text done",
	}, "\n---\n") + "\n"
	toml := "[tools]\nprofile = \"lean\"\n[permissions]\napproval = \"yolo\"\n[sandbox]\nbash = \"off\"\n"
	reqs := runBuilt(t, toml, dir, script)
	if len(reqs) != 8 {
		t.Fatalf("%d requests, want 8", len(reqs))
	}
	offered := reqs[0].Tools
	for _, want := range []string{"read_file", "ls", "glob", "grep", "edit_file", "write_file", "bash", "ask"} {
		if !slices.Contains(offered, want) {
			t.Errorf("the lean profile does not offer %s: %v", want, offered)
		}
	}
	if slices.Contains(offered, "project_graph") || slices.Contains(offered, "task") {
		t.Errorf("the lean profile offers more than its tools: %v", offered)
	}
	last := reqs[len(reqs)-1].Body
	for _, want := range []string{`1\thello`, "a.txt", `a.txt:1:hello`, "goodbye\\nnew", "Exit code: 0"} {
		if !strings.Contains(last, want) {
			t.Errorf("the turn's results lack %q", want)
		}
	}
	if strings.Contains(last, "Error:") {
		t.Errorf("a call failed: %s", last)
	}
}
