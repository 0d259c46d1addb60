package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/permission"
)

func TestSandboxShellSettings(t *testing.T) {
	home := isolate(t)
	c, err := Load(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Sandbox.Bash != "" || c.Sandbox.Network {
		t.Errorf("defaults: bash %q, network %v; want the jail on (empty) and no network", c.Sandbox.Bash, c.Sandbox.Network)
	}

	// The user file turns the network on; the project turns the jail off
	// and leaves the network as the user set it.
	writeFile(t, home, "config.toml", "[sandbox]\nnetwork = true\n")
	dir := t.TempDir()
	writeFile(t, dir, "reasonix.toml", "[sandbox]\nbash = \"off\"\n")
	c, err = loadTrusted(t, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if c.Sandbox.Bash != "off" || !c.Sandbox.Network {
		t.Errorf("layered: bash %q, network %v", c.Sandbox.Bash, c.Sandbox.Network)
	}
	if err := c.OverlayTOML("editor", "[sandbox]\nbash = \"enforce\"\nnetwork = false\n"); err != nil {
		t.Fatal(err)
	}
	if c.Sandbox.Bash != "enforce" || c.Sandbox.Network {
		t.Errorf("overlaid: bash %q, network %v", c.Sandbox.Bash, c.Sandbox.Network)
	}

	writeFile(t, dir, "reasonix.toml", "[sandbox]\n\nbash = \"sometimes\"\n")
	_, err = loadTrusted(t, Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), `reasonix.toml:3: [sandbox] bash must be enforce or off, not "sometimes"`) {
		t.Errorf("err = %v", err)
	}
}

func TestControlPaths(t *testing.T) {
	home := isolate(t)
	dir := t.TempDir()
	writeFile(t, dir, "reasonix.toml", "[agent]\nmax_steps = 3\n")
	extra := filepath.Join(t.TempDir(), "ci.toml")
	if err := os.WriteFile(extra, []byte("[agent]\nmax_steps = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := loadTrusted(t, Options{Dir: dir, File: extra})
	if err != nil {
		t.Fatal(err)
	}
	got := c.ControlPaths(home, dir)
	for _, want := range []string{
		home,
		filepath.Join(dir, "reasonix.toml"),
		filepath.Join(dir, ".reasonix"),
		filepath.Join(dir, ".mcp.json"),
		filepath.Join(dir, ".claude"),
		filepath.Join(dir, ".vscode"),
		extra,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("ControlPaths lacks %s: %v", want, got)
		}
	}
	// The files Reasonix reads are among the names a control path has
	// anywhere.
	for _, name := range []string{ProjectFileName, MCPFileName} {
		if !slices.Contains(permission.ControlFileNames, name) {
			t.Errorf("%s is not a control name: %v", name, permission.ControlFileNames)
		}
	}
	if n := len(got); n != len(slices.Compact(slices.Clone(got))) {
		t.Errorf("duplicates in %v", got)
	}

	// In a linked worktree .git is a file naming the repository.
	wt := t.TempDir()
	writeFile(t, wt, ".git", "gitdir: /elsewhere/.git/worktrees/wt\n")
	got = c.ControlPaths(home, wt)
	if !slices.Contains(got, filepath.Join(wt, ".git")) || slices.Contains(got, filepath.Join(wt, ".git", "hooks")) {
		t.Errorf("worktree: %v", got)
	}
}
