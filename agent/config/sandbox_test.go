package config

import (
	"strings"
	"testing"
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
	c, err = Load(Options{Dir: dir})
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
	_, err = Load(Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), `reasonix.toml:3: [sandbox] bash must be enforce or off, not "sometimes"`) {
		t.Errorf("err = %v", err)
	}
}
