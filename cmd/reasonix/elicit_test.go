package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// elicitingConfig starts the scripted model with script and an MCP server
// that elicits a one-field form, and returns the model and the config
// file naming both, with the server's tool allowed.
func elicitingConfig(t *testing.T, script string) (remaining func() int, cfg string) {
	t.Helper()
	url := mcptest.ServeEliciting(t, map[string]any{
		"type":       "object",
		"properties": map[string]any{"color": map[string]any{"type": "string", "enum": []string{"red", "green"}, "default": "green"}},
	})
	srv, cfg := startScripted(t, script)
	plugin := fmt.Sprintf("\n[permissions]\nallow = [\"mcp__el__profile\"]\n\n[[plugins]]\nname = \"el\"\ntype = \"http\"\nurl  = %q\n", url)
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(plugin); err != nil {
		t.Fatal(err)
	}
	return srv.Remaining, cfg
}

// TestElicitationUnattended: a run with no terminal has no one to answer
// what an MCP server asks, so the server is told the user declined.
func TestElicitationUnattended(t *testing.T) {
	remaining, cfg := elicitingConfig(t, `call mcp__el__profile {}
---
expect tool {"action":"decline"}
text declined
`)
	work, home := t.TempDir(), t.TempDir()
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "fill in my profile")
	if r.exit != 0 || remaining() != 0 {
		t.Fatalf("exit %d, %d scripted steps left: the server did not see a decline\nstdout:\n%s\nstderr:\n%s", r.exit, remaining(), r.stdout, r.stderr)
	}
}

// TestElicitationOnATerminal: on a terminal, what an MCP server asks is
// a prompt, whether to answer and then each field, and the answers reach
// the server.
func TestElicitationOnATerminal(t *testing.T) {
	requireScript(t)
	remaining, cfg := elicitingConfig(t, `call mcp__el__profile {}
---
expect tool {"action":"accept","content":{"color":"red"}}
text answered
`)
	work, home := t.TempDir(), t.TempDir()
	// "1" accepts, then "red" is typed for the field.
	out := runOnTerminal(t, work, home, "1\nred\n", "run", "--config", cfg, "'fill in my profile'")
	if !strings.Contains(out, `MCP server "el" asks: Your profile, please`) || !strings.Contains(out, "color (default: green)") {
		t.Fatalf("no prompt on the terminal:\n%s", out)
	}
	if remaining() != 0 {
		t.Fatalf("the server did not get the answer:\n%s", out)
	}
}
