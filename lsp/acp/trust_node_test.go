//go:build unix

package acp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// trustReport is what testdata/node/trust.mjs prints.
type trustReport struct {
	ActedAfterNew []string `json:"actedAfterNew"`
	Permissions   []struct {
		ToolCall struct {
			Title   string `json:"title"`
			Content []struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		} `json:"toolCall"`
		Options []struct {
			OptionID string `json:"optionId"`
			Name     string `json:"name"`
		} `json:"options"`
		Answered string   `json:"answered"`
		Acted    []string `json:"acted"`
	} `json:"permissions"`
	Prompts []struct {
		Prompt     string   `json:"prompt"`
		Text       string   `json:"text"`
		StopReason string   `json:"stopReason"`
		Error      string   `json:"error"`
		Acted      []string `json:"acted"`
	} `json:"prompts"`
	ExitCode int `json:"exitCode"`
}

// TestNodeClientTrust opens a hostile repository (agenttest.WriteHostile)
// with @agentclientprotocol/sdk, the user's model in the user's own
// config: session/new starts nothing of the repository's; the first
// prompt asks whether to trust it, listing what it brings, and answered
// "Keep disabled" runs on the user's model with nothing of the
// repository's acting; /trust asks again, and answered "Trust and
// enable", the next prompt starts its MCP servers and runs on its
// provider, with the user's key (the user's choice now) — but its HTTP
// MCP server never gets the token the user's [trust] env does not name.
func TestNodeClientTrust(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	clientDir := requireNodeClient(t)
	home := t.TempDir()
	user, userURL := agenttest.Serve(t, "match Say hello\ntext Hello from your own model.\n", scripted.Options{})
	const keyVar, tokenVar = "REASONIX_TEST_API_KEY", "GITHUB_TOKEN"
	tag := fmt.Sprint(time.Now().UnixNano())
	key, token := "sk-trust-"+tag, "ghp-trust-"+tag
	userConfig := fmt.Sprintf("default_model = \"scripted\"\n[[providers]]\nname = \"scripted\"\nbase_url = %q\nmodel = \"deepseek-flash\"\napi_key_env = %q\noptions = { retry_base_ms = 10 }\n", userURL, keyVar)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(userConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	corp, err := scripted.Parse([]byte("text Corp answered.\n"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := agenttest.WriteHostile(t, root, agenttest.HostileOptions{KeyVar: keyVar, TokenVar: tokenVar, Model: scripted.NewServer(corp, scripted.Options{})})
	var r trustReport
	stderr := runNodeClient(t, []string{"REASONIX_HOME=" + home, "DEEPSEEK_API_KEY=", keyVar + "=" + key, tokenVar + "=" + token},
		&r, filepath.Join(clientDir, "trust.mjs"), buildReasonix(t), root, repo.Marks)

	if len(r.ActedAfterNew) != 0 {
		t.Fatalf("session/new: the repository's configuration acted: %v; its HTTP MCP server got %d requests, %d with $%s",
			r.ActedAfterNew, len(repo.MCP.Requests()), len(repo.MCP.Holding(token)), tokenVar)
	}
	if len(r.Prompts) != 3 || r.ExitCode != 0 {
		t.Fatalf("prompts %+v, reasonix acp exited %d\nstderr:\n%s", r.Prompts, r.ExitCode, stderr)
	}
	for _, p := range r.Prompts {
		if p.StopReason != "end_turn" {
			t.Errorf("%q stopped with %q %s", p.Prompt, p.StopReason, p.Error)
		}
	}
	kept, trusted, next := r.Prompts[0], r.Prompts[1], r.Prompts[2]
	if len(kept.Acted) != 0 || kept.Text != "Hello from your own model." {
		t.Errorf("kept disabled, %q answered %q, and the repository's configuration left %v", kept.Prompt, kept.Text, kept.Acted)
	}
	if len(r.Permissions) != 2 {
		t.Fatalf("%d permission requests, want the trust question twice: %+v", len(r.Permissions), r.Permissions)
	}
	for i, q := range r.Permissions {
		var options []string
		for _, o := range q.Options {
			options = append(options, o.OptionID+"="+o.Name)
		}
		if want := []string{"trust_workspace=Trust and enable", "keep_disabled=Keep disabled"}; !slices.Equal(options, want) {
			t.Errorf("trust question %d offers %v, want %v", i+1, options, want)
		}
		text := ""
		for _, c := range q.ToolCall.Content {
			text += c.Content.Text
		}
		for _, entry := range []string{`MCP server "lint"`, `MCP server "docs"`, `provider "corp"`, "(your key for scripted)", `language server "gopls"`} {
			if !strings.Contains(text, entry) {
				t.Errorf("trust question %d does not list %s:\n%s", i+1, entry, text)
			}
		}
		if len(q.Acted) != 0 {
			t.Errorf("when trust question %d was asked, the repository's configuration had left %v", i+1, q.Acted)
		}
	}
	if !strings.Contains(trusted.Text, "without it.\n\nTrusted: ") {
		t.Errorf("/trust answered %q", trusted.Text)
	}
	for _, mark := range []string{agenttest.MarkMCP, agenttest.MarkHTTPMCP, agenttest.MarkProvider} {
		if !slices.Contains(next.Acted, mark) {
			t.Errorf("trusted, the next prompt left the marks %v, without %s", next.Acted, mark)
		}
	}
	if next.Text != "Corp answered." || len(repo.Provider.Holding("Bearer "+key)) == 0 {
		t.Errorf("trusted, the next prompt answered %q; the repository's provider got %d requests, %d with the key",
			next.Text, len(repo.Provider.Requests()), len(repo.Provider.Holding("Bearer "+key)))
	}
	if n := len(repo.MCP.Holding(token)); n != 0 {
		t.Errorf("the repository's HTTP MCP server got $%s in %d of %d requests", tokenVar, n, len(repo.MCP.Requests()))
	}
	if n := user.Remaining(); n != 0 {
		t.Errorf("%d steps of the user's model were never asked for", n)
	}
}
