package agent_test

import (
	"context"
	"encoding/json"
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
	t.Setenv("REASONIX_HOME", t.TempDir())
	srv, url := agenttest.Serve(t, "text done\n", scripted.Options{})
	cfg, err := config.Load(config.Options{SkipUser: true})
	if err != nil {
		t.Fatal(err)
	}
	src := "default_model = \"local\"\n[[providers]]\nname = \"local\"\nbase_url = \"" + url + "\"\nmodel = \"m\"\n" + toml
	if err := cfg.OverlayTOML("test", src); err != nil {
		t.Fatal(err)
	}
	a, err := agent.Build(cfg, agent.Options{Dir: t.TempDir()})
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

// TestFirstRequestPrefix reports the size of the first request's cached
// prefix, in bytes and in tokens estimated as bytes/4.
func TestFirstRequestPrefix(t *testing.T) {
	system, tools := firstPrefix(t, "")
	n := len(system) + len(tools)
	t.Logf("full: system %d B + tools %d B = %d B ≈ %d tokens", len(system), len(tools), n, n/4)
}
