package acp_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/agent/agenttest"
)

// TestConfigErrorCarriesItsWarnings: a provider whose only model key is
// misspelt fails session/new with "declares no model"; the warning about
// the unknown key, which explains it, is in the same error, with its file
// and line.
func TestConfigErrorCarriesItsWarnings(t *testing.T) {
	root := workspace(t, "text unused\n")
	project := filepath.Join(root, "reasonix.toml")
	if err := os.WriteFile(project, []byte("default_model = \"x\"\n[[providers]]\nname = \"x\"\nbase_url = \"http://127.0.0.1:1\"\nmodell = \"m\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agenttest.Trust(t, root)
	conn := connect(t, &editor{})
	_, err := conn.NewSession(testCtx(t), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	var re *acpsdk.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("session/new: %v", err)
	}
	for _, want := range []string{`reasonix.toml:2: provider "x" declares no model`, `reasonix.toml:5: unknown setting "providers.modell"`} {
		if !strings.Contains(re.Message, want) {
			t.Errorf("session/new error %q lacks %q", re.Message, want)
		}
	}
}

// TestConfigWarningsToldOnce: a configuration that builds with an unknown
// setting tells it as a thought, with its file and line, once, though
// switching modes loads the configuration again.
func TestConfigWarningsToldOnce(t *testing.T) {
	root := workspace(t, "text done\n")
	f, err := os.OpenFile(filepath.Join(root, "reasonix.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[agent]\nmax_stepz = 3\n")
	f.Close()
	announced := make(chan struct{})
	ed := &editor{onUpdate: func(u acpsdk.SessionUpdate) {
		if u.AvailableCommandsUpdate != nil {
			close(announced)
		}
	}}
	conn, id := newSession(t, ed, root)
	<-announced
	if _, err := conn.SetSessionMode(testCtx(t), acpsdk.SetSessionModeRequest{SessionId: id, ModeId: "auto"}); err != nil {
		t.Fatal(err)
	}
	if r := prompt(t, conn, id, "go"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	var thoughts []string
	n := 0
	for _, u := range ed.updates {
		if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
			text := u.AgentThoughtChunk.Content.Text.Text
			thoughts = append(thoughts, text)
			if strings.Contains(text, `reasonix.toml:8: unknown setting "agent.max_stepz"`) {
				n++
			}
		}
	}
	if n != 1 {
		t.Errorf("the warning was told %d times: %q", n, thoughts)
	}
}
