package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reasonix/reasonix/tools/hooks"
	"github.com/reasonix/reasonix/tools/permission"
)

// Hooks are programs the user attaches to points of the agent's work, in
// Claude Code's format (tools/hooks). They come from the "hooks" object
// of Claude Code's settings files — the user's ~/.claude/settings.json
// and a workspace's .claude/settings.json and .claude/settings.local.json
// (the user's own settings for the project, which Claude Code keeps out
// of version control) — and from [hooks] tables of
// the same shape in Reasonix's own TOML files. All of them are in force
// together, in the order the layers are read. A workspace's hooks run
// programs, so each needs the user's trust (see WorkspaceTrust) and is
// left out until it has it.

// ClaudeSettingsFile is the settings file, in a workspace's .claude
// directory and in the user's, whose hooks are read.
var ClaudeSettingsFile = filepath.Join(".claude", "settings.json")

// ClaudeLocalSettingsFile is the settings file, in a workspace's .claude
// directory, for the user's own settings of the project; its hooks run
// after those of ClaudeSettingsFile, as Claude Code reads it above that.
var ClaudeLocalSettingsFile = filepath.Join(".claude", "settings.local.json")

// hookEntry is one hook in force and where it is set.
type hookEntry struct {
	hook hooks.Hook
	at   Pos
}

// Hooks returns the hooks in force, in the order they are set, each with
// where it is set as its Source (a file under the home directory named
// from ~, as the user knows it).
func (c *Config) Hooks() []hooks.Hook {
	home, _ := os.UserHomeDir()
	out := make([]hooks.Hook, len(c.hookList))
	for i, e := range c.hookList {
		out[i] = e.hook
		out[i].Source = e.at.String()
		if rest, ok := strings.CutPrefix(out[i].Source, home+string(filepath.Separator)); ok && home != "" {
			out[i].Source = filepath.Join("~", rest)
		}
	}
	return out
}

// addHooks adds the hooks of s, set in the file path, leaving out a
// workspace's hooks the user has not trusted; line finds the line of an
// event's group.
func (c *Config) addHooks(s hooks.Settings, path string, line func(ev hooks.Event, group int) int) {
	entries, problems := s.Flatten()
	for _, p := range problems {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s", path, p))
	}
	for _, e := range entries {
		at := Pos{File: path, Line: line(e.Event, e.Group)}
		if c.withhold && c.fromWorkspace(at) && !c.trusted[digest(e.Content()...)] {
			continue // not trusted: see WorkspaceTrust
		}
		c.hookList = append(c.hookList, hookEntry{hook: e.Hook, at: at})
	}
}

// mergeHooks adds a TOML layer's [hooks].
func mergeHooks(y *layer, _ setting) {
	y.c.addHooks(y.l.HookSettings, y.path, func(ev hooks.Event, group int) int {
		return y.loc.find("hooks."+string(ev), group, "")
	})
}

// loadClaudeSettings adds the hooks and the permission rules of a Claude
// Code settings file. The file belongs to Claude Code as well, so its
// problems are warnings.
func (c *Config) loadClaudeSettings(path string) {
	data, ok := c.readJSON(path, "its hooks are not used")
	if !ok {
		return
	}
	s, err := hooks.ParseFile(data)
	if err != nil {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %v (its hooks are not used)", path, err))
		return
	}
	c.addHooks(s, path, func(ev hooks.Event, _ int) int { return lineOf(data, string(ev), true) })
	c.addClaudeRules(data, path)
}

// claudePermissions is the "permissions" object of a Claude Code
// settings file; its other keys (defaultMode, additionalDirectories) are
// Claude Code's alone.
type claudePermissions struct {
	Permissions struct {
		Allow []string `json:"allow"`
		Ask   []string `json:"ask"`
		Deny  []string `json:"deny"`
	} `json:"permissions"`
}

// addClaudeRules adds the permission rules of a Claude Code settings
// file, whose syntax is Reasonix's (`Bash(go test:*)`, `Read(./.env)`,
// `Edit`): they add up with [permissions], where deny beats ask beats
// allow whatever file says so. A workspace's allow rules loosen, so each
// needs the user's trust, as [permissions] allow in its reasonix.toml
// does; its deny and ask rules apply at once. A rule that does not parse
// is a warning, and left out.
func (c *Config) addClaudeRules(data []byte, path string) {
	var f claudePermissions
	if json.Unmarshal(data, &f) != nil {
		return // not an object of this shape: the hooks' parse said what is wrong
	}
	p := &f.Permissions
	for _, list := range []struct {
		key   string
		rules []string
		dst   *[]string
	}{{"allow", p.Allow, &c.Permissions.Allow}, {"ask", p.Ask, &c.Permissions.Ask}, {"deny", p.Deny, &c.Permissions.Deny}} {
		for _, r := range list.rules {
			at := Pos{File: path, Line: lineOf(data, r, false)}
			if _, err := permission.ParseRule(r); err != nil {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: permissions %s: %v (ignored)", at, list.key, err))
				continue
			}
			if list.key == "allow" && c.withhold && c.fromWorkspace(at) && !c.trusted[digest("permissions.allow", r)] {
				continue // not trusted: see WorkspaceTrust
			}
			k := itemKey("permissions", list.key, r)
			if _, ok := c.itemAt[k]; !ok {
				if c.itemAt == nil {
					c.itemAt = map[string]Pos{}
				}
				c.itemAt[k] = at
			}
			*list.dst = append(*list.dst, r)
		}
	}
}

// userClaudeSettings is the user's Claude Code settings file, "" when
// there is no home directory.
func userClaudeSettings() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ClaudeSettingsFile)
}

// workspaceClaudeSettings are the Claude Code settings files of the
// workspace dir, absolute, in the order they are read; none when dir is
// the user's home, whose settings.json is the user's own (read once, as
// such).
func workspaceClaudeSettings(dir string) []string {
	if home, err := os.UserHomeDir(); err == nil && Canonical(home) == Canonical(dir) {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return []string{filepath.Join(abs, ClaudeSettingsFile), filepath.Join(abs, ClaudeLocalSettingsFile)}
}

// hookKey names a hook in Security: its event and matcher, and its
// command, so that a changed command is a new hook.
func hookKey(h hooks.Hook) string {
	key := string(h.Event)
	if h.Matcher != "" {
		key += " [" + h.Matcher + "]"
	}
	return key + " " + h.Command
}

// hookItems lists the workspace's hooks for its trust.
func (c *Config) hookItems() []TrustItem {
	var out []TrustItem
	for _, e := range c.hookList {
		if !c.fromWorkspace(e.at) {
			continue
		}
		h := e.hook
		on := ""
		if h.Matcher != "" {
			on = fmt.Sprintf(" on %q", h.Matcher)
		}
		what := fmt.Sprintf("%s hook%s: runs %s, outside the sandbox", h.Event, on, clip(word(strings.TrimSpace(h.Command))))
		out = append(out, TrustItem{At: e.at, What: what, Digest: digest(h.Content()...)})
	}
	return out
}
