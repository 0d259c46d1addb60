package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/hooks"
)

// hookNames lists hooks as "Event matcher command".
func hookNames(hs []hooks.Hook) string {
	var out []string
	for _, h := range hs {
		out = append(out, string(h.Event)+" "+h.Matcher+" "+h.Command)
	}
	return strings.Join(out, "; ")
}

// TestHookSources reads hooks from the user's Claude Code settings and
// Reasonix config, and a workspace's only once it is trusted, as its
// content then was.
func TestHookSources(t *testing.T) {
	rhome := isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeFile(t, home, ".claude/settings.json", `{
  "model": "opus",
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "user-json", "timeout": 5}]}]}
}`)
	writeFile(t, rhome, "config.toml", `
[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "user-toml"
`)
	ws := t.TempDir()
	settings := `{"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "ws-json"}]}]}}`
	writeFile(t, ws, ".claude/settings.json", settings)
	writeFile(t, ws, "reasonix.toml", `
[[hooks.UserPromptSubmit]]
[[hooks.UserPromptSubmit.hooks]]
type = "command"
command = "ws-toml"
`)

	c, err := Load(Options{Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hookNames(c.Hooks()), "Stop  user-toml; PreToolUse Bash user-json"; got != want {
		t.Errorf("untrusted: hooks = %q, want %q", got, want)
	}
	if hs := c.Hooks(); hs[1].Timeout != 5 || hs[1].Source != "~/.claude/settings.json:3" {
		t.Errorf("user hook = %+v", hs[1])
	}
	pending := c.Workspace.Pending()
	if len(pending) != 2 || !strings.Contains(c.Workspace.Question(), `PostToolUse hook on "Edit|Write": runs ws-json, outside the sandbox`) ||
		!strings.Contains(c.Workspace.Question(), "UserPromptSubmit hook: runs ws-toml") {
		t.Errorf("pending = %+v", pending)
	}

	trust(t, ws)
	c, err = Load(Options{Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hookNames(c.Hooks()), "Stop  user-toml; PreToolUse Bash user-json; UserPromptSubmit  ws-toml; PostToolUse Edit|Write ws-json"; got != want {
		t.Errorf("trusted: hooks = %q, want %q", got, want)
	}

	// A changed hook is another one: off until trusted again.
	writeFile(t, ws, ".claude/settings.json", strings.Replace(settings, "ws-json", "ws-json --changed", 1))
	c, err = Load(Options{Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hookNames(c.Hooks()), "Stop  user-toml; PreToolUse Bash user-json; UserPromptSubmit  ws-toml"; got != want {
		t.Errorf("changed: hooks = %q, want %q", got, want)
	}
	if len(c.Workspace.Pending()) != 1 {
		t.Errorf("changed: pending = %+v", c.Workspace.Pending())
	}
}

// TestHookWarnings: a settings file that is not JSON, and hooks that
// cannot run, are warnings, and the rest of the configuration loads.
func TestHookWarnings(t *testing.T) {
	isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeFile(t, home, ".claude/settings.json", `{"hooks": `)
	ws := t.TempDir()
	writeFile(t, ws, "reasonix.toml", `
[[hooks.PermissionRequest]]
[[hooks.PermissionRequest.hooks]]
type = "command"
command = "x"
`)
	c, err := Load(Options{Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(c.Warnings, "\n")
	if !strings.Contains(w, "settings.json") || !strings.Contains(w, `"PermissionRequest"`) || len(c.Hooks()) != 0 {
		t.Errorf("warnings = %q, hooks = %v", w, c.Hooks())
	}
}

// TestHooksInHome: opened on the home directory, the workspace's
// .claude/settings.json is the user's own: its hooks are in force once,
// and need no trust.
func TestHooksInHome(t *testing.T) {
	isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeFile(t, home, ".claude/settings.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}`)
	c, err := Load(Options{Dir: home})
	if err != nil {
		t.Fatal(err)
	}
	if got := hookNames(c.Hooks()); got != "Stop  notify" || len(c.Workspace.Items) != 0 {
		t.Errorf("hooks = %q, trust items = %+v", got, c.Workspace.Items)
	}
}

// TestHooksInLocalSettings: a workspace's .claude/settings.local.json
// (the user's own settings for the project, in Claude Code) adds its
// hooks after those of .claude/settings.json, and needs the same trust:
// a repository can ship that file too.
func TestHooksInLocalSettings(t *testing.T) {
	isolate(t)
	t.Setenv("HOME", t.TempDir())
	ws := t.TempDir()
	writeFile(t, ws, ".claude/settings.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "shared"}]}]}}`)
	writeFile(t, ws, ".claude/settings.local.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}], "Notification": [{"hooks": [{"type": "command", "command": "ding"}]}]}}`)
	c, err := Load(Options{Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Hooks()) != 0 || !strings.Contains(c.Workspace.Question(), "Notification hook: runs ding") || len(c.Workspace.Pending()) != 3 {
		t.Fatalf("untrusted: hooks %v, pending %+v", c.Hooks(), c.Workspace.Pending())
	}
	trust(t, ws)
	if c, err = Load(Options{Dir: ws}); err != nil {
		t.Fatal(err)
	}
	if got, want := hookNames(c.Hooks()), "Stop  shared; Stop  mine; Notification  ding"; got != want {
		t.Errorf("trusted: hooks = %q, want %q", got, want)
	}
	if src := c.Hooks()[1].Source; !strings.HasSuffix(src, filepath.Join(".claude", "settings.local.json")+":1") {
		t.Errorf("source = %q", src)
	}
}

// TestClaudePermissionRules: the permission rules of Claude Code's
// settings files add up with [permissions]: the user's apply; a
// workspace's deny and ask rules apply at once and its allow rules once
// trusted, listed in the trust question with their place; a rule that
// does not parse is a warning.
func TestClaudePermissionRules(t *testing.T) {
	isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeFile(t, home, ".claude/settings.json", `{
  "permissions": {
    "allow": ["Bash(go test:*)"],
    "deny": ["Read(./.env)"],
    "defaultMode": "acceptEdits"
  }
}`)
	ws := t.TempDir()
	writeFile(t, ws, ".claude/settings.json", `{"permissions": {"allow": ["Bash(make:*)"], "ask": ["Bash(git push:*)"], "deny": ["Bash(rm:*)", "Bash(oops"]}}`)
	c, err := Load(Options{Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	p := c.Permissions
	if !slices.Contains(p.Allow, "Bash(go test:*)") || slices.Contains(p.Allow, "Bash(make:*)") ||
		!slices.Contains(p.Deny, "Read(./.env)") || !slices.Contains(p.Deny, "Bash(rm:*)") || !slices.Contains(p.Ask, "Bash(git push:*)") {
		t.Errorf("untrusted: permissions %+v", p)
	}
	if at := c.ItemAt("permissions", "allow", "Bash(go test:*)"); at.File != filepath.Join(home, ".claude", "settings.json") || at.Line != 3 {
		t.Errorf("the user's rule is at %v", at)
	}
	if q := c.Workspace.Question(); !strings.Contains(q, `[permissions] allow "Bash(make:*)": runs without asking`) || strings.Contains(q, "rm:") {
		t.Errorf("trust question %q", q)
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, `"Bash(oops"`) && !strings.Contains(w, "Bash(oops") {
		t.Errorf("warnings %q", w)
	}
	trust(t, ws)
	if c, err = Load(Options{Dir: ws}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Permissions.Allow, "Bash(make:*)") {
		t.Errorf("trusted: allow %q", c.Permissions.Allow)
	}
}
