//go:build unix

package lsp_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// trustScript is the user's own model: it answers the one turn the
// client runs while the repository's configuration is kept disabled.
const trustScript = `match Say hello
call read_file {"path": "hello.py"}
---
match Say hello
expect tool return "hi"
text Hello from your own model.
`

// The secrets in the environment of the client, and so of the server it
// starts: the user's API key and a token.
const (
	trustKeyVar   = "REASONIX_TEST_API_KEY"
	trustTokenVar = "GITHUB_TOKEN"
)

// TestEditorTrust opens a hostile repository (agenttest.WriteHostile) in
// each real client, with the user's model in the user's own config.
// Opening the folder starts nothing of the repository's and asks whether
// to trust it, listing what it brings, with the actions "Trust and
// enable" and "Keep disabled". Kept disabled, a turn runs on the user's
// model, /mcp lists no server of the repository's, and nothing of it has
// acted (the client checks the marks). reasonix.trust asks again;
// trusted, the repository's stdio MCP server starts (the client waits
// for its mark). The Node client then revokes the trust, and is not
// asked straight back. The repository's provider never got a request,
// and its HTTP MCP server never got the token, which the user's [trust]
// env does not name.
func TestEditorTrust(t *testing.T) {
	if testing.Short() {
		t.Skip("the editor tests build the binary and run real editors")
	}
	reasonix := buildReasonix(t)
	t.Run("neovim", func(t *testing.T) {
		requirePeer(t, "Neovim (nvim)", runs("nvim", "--version"))
		playTrust(t, reasonix(t), "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile neovim-trust.lua")
	})
	t.Run("eglot", func(t *testing.T) {
		requireEglot(t)
		playTrust(t, reasonix(t), "emacs", "--batch", "-l", "eglot-trust.el")
	})
	t.Run("node", func(t *testing.T) {
		requireNodeClient(t)
		playTrust(t, reasonix(t), "node", filepath.Join("node", "trust.js"))
	})
}

// playTrust plays the trust scenario with the client argv, and checks
// what reached the repository's servers.
func playTrust(t *testing.T, bin string, argv ...string) {
	script, err := scripted.Parse([]byte(trustScript))
	if err != nil {
		t.Fatal(err)
	}
	run := startClientRunWith(t, bin, script, map[string]string{"hello.py": "def hello():\n    return \"hi\"\n"}, clientRunOptions{untrusted: true, keyVar: trustKeyVar})
	repo := agenttest.WriteHostile(t, run.root, agenttest.HostileOptions{KeyVar: trustKeyVar, TokenVar: trustTokenVar})
	tag := fmt.Sprint(time.Now().UnixNano())
	key, token := "sk-trust-"+tag, "ghp-trust-"+tag
	entries := []string{
		fmt.Sprintf("MCP server %q", agenttest.HostileStdio),
		fmt.Sprintf("MCP server %q", agenttest.HostileHTTP),
		fmt.Sprintf("provider %q", agenttest.HostileProvider),
		"(your key for scripted)",
		fmt.Sprintf("language server %q", agenttest.HostileGraph),
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the repository's HTTP MCP server got %d requests, %d with $%s; its provider %d, %d with the key; marks %v",
				len(repo.MCP.Requests()), len(repo.MCP.Holding(token)), trustTokenVar,
				len(repo.Provider.Requests()), len(repo.Provider.Holding(key)), repo.Acted(t))
		}
	})
	run.play(t, []string{
		trustKeyVar + "=" + key,
		trustTokenVar + "=" + token,
		"REASONIX_TEST_MARKS=" + repo.Marks,
		// Trusted, the client waits for these marks.
		"REASONIX_TEST_STARTED=" + agenttest.MarkMCP + "|" + agenttest.MarkHTTPMCP,
		"REASONIX_TEST_ENTRIES=" + strings.Join(entries, "|"),
	}, argv...)

	if n := run.srv.Remaining(); n != 0 {
		t.Errorf("%d steps of the user's model were never asked for", n)
	}
	if n := len(repo.Provider.Requests()); n != 0 {
		t.Errorf("the repository's provider got %d requests (%d with the key)", n, len(repo.Provider.Holding(key)))
	}
	if n := len(repo.MCP.Holding(token)); n != 0 || len(repo.MCP.Requests()) == 0 {
		t.Errorf("the repository's HTTP MCP server got $%s in %d of %d requests", trustTokenVar, n, len(repo.MCP.Requests()))
	}
	for _, r := range run.srv.Requests() {
		if strings.Contains(r.Body, token) {
			t.Errorf("the user's model was sent $%s (request %d)", trustTokenVar, r.Seq)
		}
	}
	// No turn ran on the repository's provider, and no graph query
	// started its language server.
	if acted := repo.Acted(t); slices.Contains(acted, agenttest.MarkGraph) || slices.Contains(acted, agenttest.MarkProvider) {
		t.Errorf("the repository's configuration left the marks %v", acted)
	}
}
