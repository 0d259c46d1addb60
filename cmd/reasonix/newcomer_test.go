package main

import (
	"strings"
	"testing"
)

// TestLocalCommandsNeedNoKey: the commands that ask no model answer with
// no API key set (the built-in provider, whose endpoint no test
// reaches), and a prompt still fails, as before, naming the key to set.
func TestLocalCommandsNeedNoKey(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	for _, tt := range []struct{ prompt, want string }{
		{"/help", "/trust"},
		{"/trust", "Nothing in this workspace's configuration needs trust"},
		{"/mcp", "MCP"},
		{"/model", "deepseek"},
	} {
		r := runReasonix(t, dir, home, nil, "run", tt.prompt)
		if r.exit != exitOK || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("run %s: exit %d, stdout:\n%s\nstderr:\n%s", tt.prompt, r.exit, r.stdout, r.stderr)
		}
	}
	r := runReasonix(t, dir, home, nil, "run", "fix the test")
	want := `reasonix: built-in defaults: provider "deepseek" needs an API key: set the environment variable DEEPSEEK_API_KEY`
	if r.exit != exitError || strings.TrimSpace(r.stderr) != want {
		t.Errorf("run without a key: exit %d, stderr:\n%s", r.exit, r.stderr)
	}
}
