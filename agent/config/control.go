package config

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/reasonix/reasonix/tools/permission"
)

// ControlPaths lists the files and directories that steer Reasonix itself
// or make other programs run code without being asked: Reasonix's user
// directory; in each workspace the control names of
// permission.ControlFileNames and ControlDirNames — reasonix.toml,
// .mcp.json, .reasonix, the editor's .vscode (a setting can name a
// program the editor runs unasked, a task can run on opening), Claude
// Code's .claude (its skills and commands are Reasonix's too, and its
// settings can name hooks that run commands), and a .git file (a linked
// work tree's or a submodule's pointer to its repository); and every
// config file this Config was loaded from.
//
// A repository's git directories are not listed here: all of one is not
// a control path to a command, which must go on committing. See
// tools/gitdir and sandbox.Policy.ProtectGit.
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
		for _, name := range slices.Concat(permission.ControlFileNames, permission.ControlDirNames) {
			p := filepath.Join(ws, name)
			if name == ".git" {
				// A directory is the repository itself, for ProtectGit;
				// a file points elsewhere, so pointing it elsewhere
				// again swaps the configuration and hooks.
				if fi, err := os.Lstat(p); err != nil || fi.IsDir() {
					continue
				}
			}
			add(p)
		}
	}
	if c != nil {
		for _, f := range c.Files {
			add(f)
		}
	}
	return out
}
