package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMCPJSON reads a .mcp.json written for Claude Code: stdio and remote
// servers, a bare url read as HTTP, and [[plugins]] winning a name clash.
func TestMCPJSON(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, dir, "reasonix.toml", `
[[plugins]]
name    = "everything"
command = "from-toml"
`)
	writeFile(t, dir, ".mcp.json", `{
  "mcpServers": {
    "everything": { "command": "from-json" },
    "fs": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
      "env": { "DEBUG": "1" }
    },
    "stripe": {
      "type": "http",
      "url": "https://mcp.example.test/mcp",
      "headers": { "Authorization": "Bearer ${STRIPE_KEY}" },
      "timeout": 30
    },
    "bare": { "url": "http://127.0.0.1:1/mcp" }
  }
}`)
	c, err := loadTrusted(t, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]PluginConfig{}
	for _, p := range c.Plugins {
		by[p.Name] = p
	}
	if len(by) != 4 {
		t.Fatalf("plugins %+v", c.Plugins)
	}
	if by["everything"].Command != "from-toml" {
		t.Errorf("the TOML entry should win a name clash: %+v", by["everything"])
	}
	if fs := by["fs"]; fs.Transport() != "stdio" || !slices.Equal(fs.Args, []string{"-y", "@modelcontextprotocol/server-filesystem", "."}) || fs.Env["DEBUG"] != "1" || fs.At.Line != 4 {
		t.Errorf("fs = %+v", fs)
	}
	if s := by["stripe"]; s.Transport() != "http" || s.Headers["Authorization"] != "Bearer ${STRIPE_KEY}" {
		t.Errorf("stripe = %+v", s)
	}
	if b := by["bare"]; b.Transport() != "http" {
		t.Errorf("a bare url should be an HTTP server: %+v", b)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}
}

// TestMCPJSONProblemsWarn: the file is shared with other tools, so a
// broken file or entry is a warning, never a failed start.
func TestMCPJSONProblemsWarn(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, dir, ".mcp.json", "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"x\" },\n  }\n}\n")
	c, err := loadTrusted(t, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Plugins) != 0 || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], ".mcp.json:4: invalid JSON") {
		t.Errorf("plugins %v, warnings %q", c.Plugins, c.Warnings)
	}

	writeFile(t, dir, ".mcp.json", `{"mcpServers": {"ok": {"command": "x"}, "odd": {"type": "websocket", "url": "ws://x"}}}`)
	c, err = loadTrusted(t, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Plugins) != 1 || c.Plugins[0].Name != "ok" || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `MCP server "odd": unknown type "websocket"`) {
		t.Errorf("plugins %v, warnings %q", c.Plugins, c.Warnings)
	}
}

// TestDisableAnMCPJSONServer: a [[plugins]] entry with just the name and
// enabled = false turns off a .mcp.json server, with no complaint about
// what it lacks.
func TestDisableAnMCPJSONServer(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, dir, ".mcp.json", `{"mcpServers": {"files": {"command": "npx"}, "docs": {"url": "https://x/mcp"}}}`)
	writeFile(t, dir, "reasonix.toml", "[[plugins]]\nname = \"files\"\nenabled = false\n")
	c, err := loadTrusted(t, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 || len(c.Plugins) != 2 {
		t.Fatalf("plugins %+v, warnings %q", c.Plugins, c.Warnings)
	}
	for _, p := range c.Plugins {
		if p.On() != (p.Name == "docs") || (p.Name == "files" && p.Command != "") {
			t.Errorf("plugin %+v: on %v", p, p.On())
		}
	}
}

func TestPluginErrorsNameTheirLine(t *testing.T) {
	isolate(t)
	for _, tt := range []struct{ src, want string }{
		{"[[plugins]]\nname = \"a\"\ntype = \"http\"\n", `reasonix.toml:1: plugin "a": an http server needs a url`},
		{"[[plugins]]\nname = \"a\"\ncommand = \"x\"\n\n[[plugins]]\ncommand = \"y\"\n", `reasonix.toml:5: a [[plugins]] entry has no name`},
		{"[[plugins]]\nname = \"a\"\ncommand = \"x\"\ntool_timeout_seconds = { slow = -1 }\n", `plugin "a": tool_timeout_seconds for "slow" is negative`},
	} {
		dir := t.TempDir()
		writeFile(t, dir, "reasonix.toml", tt.src)
		if _, err := loadTrusted(t, Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
	}
}

// TestExpandedPlugins expands variables from the environment and the
// project's .env, refuses to hand a provider's key to a plugin, and takes
// from the environment into a workspace's plugin only the variables the
// user named in [trust] env.
func TestExpandedPlugins(t *testing.T) {
	home := isolate(t)
	dir := t.TempDir()
	t.Setenv("RX_FROM_ENV", "env-value")
	t.Setenv("RX_PROVIDER_KEY", "sk-secret")
	t.Setenv("RX_UNNAMED_TOKEN", "ghp-secret")
	writeFile(t, home, "config.toml", "[trust]\nenv = [\"RX_FROM_ENV\", \"RX_PROVIDER_KEY\"]\n")
	writeFile(t, dir, ".env", "# tokens\nexport RX_FROM_DOTENV=\"dot value\"\nRX_FROM_ENV=loses\nRX_SINGLE='a b' \nRX_TRAIL=x # comment\n")
	writeFile(t, dir, "reasonix.toml", `
[[providers]]
name        = "p"
base_url    = "http://127.0.0.1:1"
model       = "m"
api_key_env = "RX_PROVIDER_KEY"

[[plugins]]
name    = "s"
command = "${RX_FROM_ENV}/bin"
args    = ["${RX_FROM_DOTENV}", "${RX_MISSING:-fallback}", "${RX_SINGLE}", "${RX_TRAIL}"]
env     = { LEAK = "${RX_PROVIDER_KEY}" }
url     = ""
headers = { Authorization = "Bearer ${RX_FROM_DOTENV}", X-Token = "${RX_UNNAMED_TOKEN:-none}" }
client_id     = "${RX_MISSING:-reasonix-client}"
client_secret = "${RX_FROM_DOTENV}"
`)
	c, err := loadTrusted(t, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ps, warnings := c.ExpandedPlugins(dir)
	p := ps[0]
	if p.Command != "env-value/bin" {
		t.Errorf("command %q: the environment should win over .env", p.Command)
	}
	if want := []string{"dot value", "fallback", "a b", "x"}; !slices.Equal(p.Args, want) {
		t.Errorf("args %q, want %q", p.Args, want)
	}
	if p.Headers["Authorization"] != "Bearer dot value" || p.Headers["X-Token"] != "none" {
		t.Errorf("headers %v", p.Headers)
	}
	if p.ClientID != "reasonix-client" || p.ClientSecret != "dot value" {
		t.Errorf("client_id %q, client_secret %q: not expanded", p.ClientID, p.ClientSecret)
	}
	if p.Env["LEAK"] != "" || len(warnings) != 2 || !strings.Contains(warnings[0], "${RX_PROVIDER_KEY} is a model provider's API key") ||
		!strings.Contains(warnings[1], "${RX_UNNAMED_TOKEN} is not expanded in the workspace's configuration") {
		t.Errorf("env %v, warnings %q", p.Env, warnings)
	}
	if c.Plugins[0].Args[0] != "${RX_FROM_DOTENV}" {
		t.Errorf("expansion changed the loaded config")
	}
}

// TestPluginOAuthClientTrust: a workspace plugin's client_id and
// client_secret are part of what the user trusts, shown as written with
// the ${VAR}s that stay empty; an entry without them keeps the digest it
// had before they existed.
func TestPluginOAuthClientTrust(t *testing.T) {
	if b, _ := json.Marshal(PluginConfig{Name: "x"}); strings.Contains(string(b), "Client") {
		t.Errorf("an entry without an OAuth client marshals as %s: its trust digest changed", b)
	}
	isolate(t)
	dir := t.TempDir()
	t.Setenv("RX_TRACKER_SECRET", "s3cret")
	writeFile(t, dir, "reasonix.toml", `
[[plugins]]
name          = "tracker"
type          = "http"
url           = "https://tracker.example/mcp"
client_id     = "rx"
client_secret = "${RX_TRACKER_SECRET}"
`)
	c, err := Load(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := `MCP server "tracker": connects to https://tracker.example/mcp, OAuth client client_id=rx client_secret=${RX_TRACKER_SECRET}; ${RX_TRACKER_SECRET} stays empty`
	if d := c.Workspace.Describe(); !strings.Contains(d, want) {
		t.Errorf("trust items do not hold\n  %s\nin\n%s", want, d)
	}
}

// TestClaudeCodeMCPScopes: the MCP servers a Claude Code user added with
// `claude mcp add`, kept in ~/.claude.json, are read as Claude Code reads
// them: the local scope's for this workspace over the project's
// .mcp.json over the user scope's, [[plugins]] over all; another
// project's local servers are not this one's. They are the user's own,
// so they need no trust, while the workspace's .mcp.json still does.
func TestClaudeCodeMCPScopes(t *testing.T) {
	isolate(t)
	home, dir := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	state, _ := json.Marshal(map[string]any{
		"numStartups": 12,
		"mcpServers": map[string]any{
			"github": map[string]any{"type": "http", "url": "https://api.example.test/mcp"},
			"shared": map[string]any{"command": "from-user"},
			"toml":   map[string]any{"command": "from-user"},
		},
		"projects": map[string]any{
			dir:        map[string]any{"mcpServers": map[string]any{"local": map[string]any{"command": "local-cmd"}, "shared": map[string]any{"command": "from-local"}}},
			"/another": map[string]any{"mcpServers": map[string]any{"elsewhere": map[string]any{"command": "x"}}},
		},
	})
	writeFile(t, home, ".claude.json", string(state))
	writeFile(t, dir, "reasonix.toml", "[[plugins]]\nname = \"toml\"\ncommand = \"from-toml\"\n")
	writeFile(t, dir, ".mcp.json", `{"mcpServers": {"shared": {"command": "from-project"}, "project": {"command": "project-cmd"}}}`)

	c, err := Load(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]string{}
	for _, p := range c.Plugins {
		by[p.Name] = p.Command + p.URL
	}
	// Untrusted, the workspace's own [[plugins]] entry is withheld and
	// the user's of that name stands.
	want := map[string]string{"toml": "from-user", "local": "local-cmd", "shared": "from-local", "github": "https://api.example.test/mcp"}
	if len(by) != len(want) {
		t.Errorf("untrusted: plugins %v, want %v", by, want)
	}
	for name, v := range want {
		if by[name] != v {
			t.Errorf("untrusted: %s = %q, want %q", name, by[name], v)
		}
	}
	if q := c.Workspace.Question(); !strings.Contains(q, `"project"`) || !strings.Contains(q, `"toml"`) || strings.Contains(q, "github") || strings.Contains(q, "local-cmd") {
		t.Errorf("trust question %q: want only the workspace's own servers", q)
	}
	trust(t, dir)
	if c, err = Load(Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	by = map[string]string{}
	for _, p := range c.Plugins {
		by[p.Name] = p.Command + p.URL
	}
	if len(by) != 5 || by["project"] != "project-cmd" || by["toml"] != "from-toml" || by["shared"] != "from-local" {
		t.Errorf("trusted: plugins %v", by)
	}

	// The file is read again once it changes.
	writeFile(t, home, ".claude.json", `{"mcpServers": {"added": {"command": "new-cmd"}}}`)
	if c, err = Load(Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(c.Plugins, func(p PluginConfig) bool { return p.Name == "added" }) ||
		slices.ContainsFunc(c.Plugins, func(p PluginConfig) bool { return p.Name == "github" }) {
		t.Errorf("after a change: plugins %+v", c.Plugins)
	}
}

// BenchmarkLoadClaudeState measures a configuration load beside a large
// ~/.claude.json (Claude Code keeps each project's history in it): the
// first load reads it, later ones find it unchanged.
func BenchmarkLoadClaudeState(b *testing.B) {
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("REASONIX_HOME", b.TempDir())
	projects := map[string]any{}
	for i := range 200 {
		var history []any
		for range 200 {
			history = append(history, map[string]any{"display": strings.Repeat("x", 400)})
		}
		projects[fmt.Sprintf("/home/u/p%d", i)] = map[string]any{"history": history, "mcpServers": map[string]any{}}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"github": map[string]any{"type": "http", "url": "https://api.example.test/mcp"}}, "projects": projects})
	if err := os.WriteFile(filepath.Join(home, ClaudeStateFile), data, 0o600); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.Run(fmt.Sprintf("first of %d MB", len(data)>>20), func(b *testing.B) {
		for b.Loop() {
			claudeStateCache.mu.Lock()
			claudeStateCache.path = ""
			claudeStateCache.mu.Unlock()
			if _, err := Load(Options{Dir: dir}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if _, err := Load(Options{Dir: dir}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
