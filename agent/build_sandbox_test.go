package agent_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/tools/sandbox"
)

func TestBuildWiresTheShellJail(t *testing.T) {
	t.Setenv("REASONIX_HOME", t.TempDir())
	tests := []struct {
		name    string
		toml    string
		jail    bool
		network bool
	}{
		{"on by default", "", true, false},
		{"network allowed", "[sandbox]\nnetwork = true\n", true, true},
		{"off", "[sandbox]\nbash = \"off\"\n", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Load(config.Options{SkipUser: true})
			if err != nil {
				t.Fatal(err)
			}
			src := "default_model = \"local\"\n[[providers]]\nname = \"local\"\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n" + tt.toml
			if err := cfg.OverlayTOML("test", src); err != nil {
				t.Fatal(err)
			}
			a, err := agent.Build(cfg, agent.Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			j, _ := a.Env.Jail.(*sandbox.Jail)
			if (a.Env.Jail != nil) != tt.jail || (j != nil && (j.Network != tt.network || j.Policy != a.Env.Guard)) {
				t.Errorf("Env.Jail = %#v, want jail=%v network=%v over the Env's Guard", a.Env.Jail, tt.jail, tt.network)
			}
		})
	}
}

// TestBuildForbidsTheSignIns: the MCP servers' sign-ins, in the user's
// Reasonix directory, are out of the tools' reach.
func TestBuildForbidsTheSignIns(t *testing.T) {
	home := t.TempDir()
	t.Setenv("REASONIX_HOME", home)
	cfg, err := config.Load(config.Options{SkipUser: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.OverlayTOML("test", "default_model = \"local\"\n[[providers]]\nname = \"local\"\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n"); err != nil {
		t.Fatal(err)
	}
	a, err := agent.Build(cfg, agent.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if dir := agent.MCPAuthDir(); dir != filepath.Join(home, "mcp-auth") {
		t.Errorf("MCPAuthDir() = %q, want under REASONIX_HOME", dir)
	}
	if err := a.Env.Guard.CheckRead(filepath.Join(home, "mcp-auth", "grant.json")); !errors.Is(err, sandbox.ErrForbidden) {
		t.Errorf("reading a sign-in: %v, want forbidden", err)
	}
}
