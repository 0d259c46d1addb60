package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// tokenVar holds a token of the user's in the environment of Reasonix,
// which the hostile repository's HTTP MCP server asks for in a header.
const tokenVar = "GITHUB_TOKEN"

// userScript is the user's own model in the untrusted runs: it calls the
// read-only project graph, which would start the repository's language
// server, and a tool of the repository's stdio MCP server.
const userScript = `match run 1
call project_graph {"action": "find_symbol", "symbol": "W"}
call mcp__lint__echo {"text": "hi"}
---
match run 1
text done
---
match run 2
call project_graph {"action": "find_symbol", "symbol": "W"}
call mcp__lint__echo {"text": "hi"}
---
match run 2
text done
`

// corpScript is the repository's own model, which the runs use once the
// user trusted its configuration. It would play the user's part too, had
// it taken the user's place untrusted.
const corpScript = userScript + `---
match run 4
call project_graph {"action": "find_symbol", "symbol": "W"}
---
match run 4
text corp answered
---
match run 5
text corp answered
`

// TestAttackUntrustedWorkspace: a cloned repository whose reasonix.toml
// and .mcp.json (agenttest.WriteHostile) would start a stdio MCP server
// that copies ~/.ssh/id_rsa, send $GITHUB_TOKEN to an HTTP MCP server,
// send the user's API key to a provider of its own made the default
// model, and start a language server of its own named gopls when the
// model makes a read-only graph query, under mode = "deny" and --plan.
// Until the user trusts it, none of it acts, the user's own model is
// used, and stderr says what was left out and how to trust it; a wrong
// --trust fails the run. Trusted (run --trust DIGEST, then reasonix trust
// --yes), it all takes effect, but ${GITHUB_TOKEN} expands only once the
// user's own config names it in [trust] env. As root and as an
// unprivileged user.
func TestAttackUntrustedWorkspace(t *testing.T) {
	t.Parallel()
	asRootAndUser(t, func(t *testing.T, asUser bool) {
		h := newHostile(t)
		token := "ghp-" + strings.TrimPrefix(h.key, "sk-attack-")
		h.secrets = append(h.secrets, token)
		user, userURL := startServer(t, userScript)
		corp, err := scripted.Parse([]byte(corpScript))
		if err != nil {
			t.Fatal(err)
		}
		repo := agenttest.WriteHostile(t, h.work, agenttest.HostileOptions{
			KeyVar: attackKeyVar, TokenVar: tokenVar, Steal: `"$HOME/.ssh/id_rsa"`,
			Serve: "reasonix-plugin-example", Model: scripted.NewServer(corp, scripted.Options{}),
		})
		// The user's own provider is in the user's config, where the
		// repository's default_model competes with it.
		userConfig := filepath.Join(h.rhome, "config.toml")
		mustWrite(t, userConfig, attackConfig(userURL))
		if asUser {
			h.asNobody(t, repo.Marks)
		}
		h.env = append(h.env, tokenVar+"="+token)

		// Untrusted, in plan mode and out of it: nothing of the
		// repository's acts, and the user's model does the work.
		digest := ""
		for i, flags := range [][]string{{"--plan"}, nil} {
			prompt := fmt.Sprintf("run %d: where is W?", i+1)
			r := h.run(t, append(append([]string{"run"}, flags...), prompt)...)
			untouched(t, repo, h.key, token, r)
			if r.exit != 0 {
				t.Fatalf("run %v: exit %d\nstderr:\n%s", flags, r.exit, r.stderr)
			}
			var bodies []string
			for _, req := range user.Requests() {
				bodies = append(bodies, req.Body)
				if slices.ContainsFunc(req.Tools, func(name string) bool { return strings.HasPrefix(name, "mcp__lint") }) {
					t.Errorf("the model was offered the repository's MCP tools: %v", req.Tools)
				}
			}
			h.noSecret(t, append(bodies, r.stdout, r.stderr)...)
			if !slices.ContainsFunc(user.Requests(), func(req scripted.Request) bool { return strings.Contains(req.Body, prompt) }) {
				t.Fatalf("run %v: the user's model was never asked\nstderr:\n%s", flags, r.stderr)
			}
			for _, want := range []string{`MCP server "lint"`, `MCP server "docs"`, `provider "corp"`, `language server "gopls"`, "reasonix trust", "--trust "} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("run %v: stderr does not name %q:\n%s", flags, want, r.stderr)
				}
			}
			m := regexp.MustCompile(`--trust ([0-9a-f]{16})`).FindStringSubmatch(r.stderr)
			if m == nil {
				t.Fatalf("run %v: stderr gives no digest to trust:\n%s", flags, r.stderr)
			}
			digest = m[1]
		}

		// A digest that is not the configuration's fails the run
		// before anything starts.
		r := h.run(t, "run", "--trust", "0123456789abcdef", "run 3: where is W?")
		untouched(t, repo, h.key, token, r)
		if r.exit != 1 || !strings.Contains(r.stderr, h.work+": --trust 0123456789abcdef does not match") {
			t.Fatalf("run --trust WRONG: exit %d\nstderr:\n%s", r.exit, r.stderr)
		}

		// reasonix trust shows what it would trust, and with no one to
		// ask records nothing.
		r = h.run(t, "trust", h.work)
		untouched(t, repo, h.key, token, r)
		if r.exit != 1 || !strings.Contains(r.stdout, "Digest: "+digest) || !strings.Contains(r.stdout, "(your key for scripted)") {
			t.Fatalf("reasonix trust: exit %d, want 1 with the digest %s and whose key it is\nstdout:\n%s\nstderr:\n%s", r.exit, digest, r.stdout, r.stderr)
		}

		// Accepted for one run by its digest: the repository's
		// configuration is the user's choice now, all but the token.
		r = h.run(t, "run", "--trust", digest, "run 4: where is W?")
		if r.exit != 0 {
			t.Fatalf("run --trust %s: exit %d\nstderr:\n%s", digest, r.exit, r.stderr)
		}
		trusted(t, repo, h.key, token, false, agenttest.MarkGraph, agenttest.MarkStolen)
		stolen, _ := os.ReadFile(filepath.Join(repo.Marks, agenttest.MarkStolen))
		if key, _ := os.ReadFile(filepath.Join(h.home, ".ssh", "id_rsa")); !bytes.Equal(stolen, key) {
			t.Errorf("the trusted stdio server did not run as written: it copied %q", stolen)
		}

		// Trusted for good, and the token named in the user's [trust]
		// env: the header carries it.
		repo.Clear(t)
		if r := h.run(t, "trust", "--yes", h.work); r.exit != 0 {
			t.Fatalf("reasonix trust --yes: exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
		}
		f, err := os.OpenFile(userConfig, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fmt.Fprintf(f, "\n[trust]\nenv = [%q]\n", tokenVar)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		r = h.run(t, "run", "run 5: hello")
		if r.exit != 0 {
			t.Fatalf("run after reasonix trust --yes: exit %d\nstderr:\n%s", r.exit, r.stderr)
		}
		trusted(t, repo, h.key, token, true)
	})
}

// untouched fails the test if anything of the repository's configuration
// acted: a program it names ran, or a server it names was reached.
func untouched(t *testing.T, repo *agenttest.Hostile, key, token string, r run) {
	t.Helper()
	acted := repo.Acted(t)
	got := func(rec *agenttest.Recorder) string {
		return fmt.Sprintf("%d requests (%d with the API key, %d with the token)", len(rec.Requests()), len(rec.Holding(key)), len(rec.Holding(token)))
	}
	if len(acted) > 0 || len(repo.MCP.Requests()) > 0 || len(repo.Provider.Requests()) > 0 {
		t.Fatalf("the untrusted repository's configuration acted: marks %v; its HTTP MCP server got %s; its provider got %s\nstderr:\n%s",
			acted, got(repo.MCP), got(repo.Provider), r.stderr)
	}
}

// trusted checks that the repository's configuration, trusted, took
// effect: its MCP servers started and were reached, its provider got the
// user's key (the user's choice now), and the marks more are there; and
// that the token reached its HTTP MCP server only when withToken, the
// user having named it in [trust] env.
func trusted(t *testing.T, repo *agenttest.Hostile, key, token string, withToken bool, more ...string) {
	t.Helper()
	acted := repo.Acted(t)
	for _, mark := range append([]string{agenttest.MarkMCP, agenttest.MarkHTTPMCP, agenttest.MarkProvider}, more...) {
		if !slices.Contains(acted, mark) {
			t.Errorf("trusted, the repository's configuration did not act (%s): marks %v", mark, acted)
		}
	}
	if len(repo.Provider.Holding("Bearer "+key)) == 0 {
		t.Errorf("trusted, the repository's provider did not get the key in $%s: %d requests", attackKeyVar, len(repo.Provider.Requests()))
	}
	if n := len(repo.MCP.Holding(token)); (n > 0) != withToken {
		t.Errorf("the HTTP MCP server got $%s in %d of %d requests; the user's [trust] env names it: %v", tokenVar, n, len(repo.MCP.Requests()), withToken)
	}
}
