package config

import (
	"os"
	"path/filepath"
	"slices"
)

// ControlPaths lists the files and directories that steer Reasonix itself
// or make other programs run code without being asked: Reasonix's user
// directory, each workspace's reasonix.toml, .reasonix and .mcp.json, the
// editor's .vscode settings, Claude Code's .claude, the repository's .git/config and .git/hooks
// (a planted core.fsmonitor or hook runs at the next `git status` or
// commit, the editor's included), and every config file this Config was
// loaded from.
//
// Whatever the model runs must not change them behind the user's back: a
// shell command that could append `[sandbox] bash = "off"` to reasonix.toml
// would run the next session unconfined. The paths are absolute and clean;
// they need not exist.
func (c *Config) ControlPaths(home string, workspaces ...string) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add(home)
	for _, ws := range workspaces {
		if ws == "" {
			continue
		}
		add(filepath.Join(ws, ProjectFileName))
		add(filepath.Join(ws, ".reasonix"))
		add(filepath.Join(ws, MCPFileName))
		// The editor's workspace settings and tasks: a setting can name
		// a program the editor runs unasked, a task can run on opening.
		add(filepath.Join(ws, ".vscode"))
		// Claude Code's directory: its skills and commands are
		// Reasonix's too (the skill index opens every later session's
		// prompt), and its settings can name hooks that run commands.
		add(filepath.Join(ws, ".claude"))
		git := filepath.Join(ws, ".git")
		if fi, err := os.Lstat(git); err == nil && !fi.IsDir() {
			// A linked worktree or submodule: the file says where the
			// repository is, so pointing it elsewhere swaps the hooks.
			add(git)
			continue
		}
		add(filepath.Join(git, "config"))
		add(filepath.Join(git, "config.worktree"))
		add(filepath.Join(git, "hooks"))
	}
	if c != nil {
		for _, f := range c.Files {
			add(f)
		}
	}
	return out
}
