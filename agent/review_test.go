package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/tools/permission"
)

// reviewIn loads dir's configuration, as a front end does at the start of
// a session, and reviews it.
func reviewIn(t *testing.T, dir string) []string {
	t.Helper()
	cfg, err := config.Load(config.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return agent.ReviewConfig(cfg, dir)
}

// reviewWorkspace returns a workspace and an empty Reasonix home.
func reviewWorkspace(t *testing.T) (dir, home string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("REASONIX_HOME", home)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir, home
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReviewConfigAcrossSessions(t *testing.T) {
	dir, home := reviewWorkspace(t)
	user := filepath.Join(home, "config.toml")
	write(t, user, "[agent]\nmax_steps = 5\n")
	if msgs := reviewIn(t, dir); len(msgs) != 0 {
		t.Fatalf("first session with a harmless user file: %q", msgs)
	}

	write(t, user, "[agent]\nmax_steps = 5\n\n[permissions]\nallow = [\"Bash(curl:*)\"]\n\n[sandbox]\nbash = \"off\"\n")
	msgs := reviewIn(t, dir)
	want := "the configuration of " + dir + " lets the agent do more than in the last session:\n" +
		"  " + user + ":8: [sandbox] bash = \"off\": shell commands run unconfined\n" +
		"  " + user + ":5: [permissions] allow adds \"Bash(curl:*)\"\n" +
		"If you did not make these changes, undo them."
	if len(msgs) != 1 || msgs[0] != want {
		t.Fatalf("after loosening:\n%s\nwant:\n%s", strings.Join(msgs, "\n--\n"), want)
	}
	if msgs := reviewIn(t, dir); len(msgs) != 0 {
		t.Fatalf("the same configuration again: %q", msgs)
	}

	// Tightening is recorded silently; loosening again is told again.
	write(t, user, "[permissions]\nallow = [\"Bash(curl:*)\"]\n")
	if msgs := reviewIn(t, dir); len(msgs) != 0 {
		t.Fatalf("after tightening: %q", msgs)
	}
	write(t, user, "[permissions]\nallow = [\"Bash(curl:*)\"]\n[sandbox]\nbash = \"off\"\n")
	if msgs := reviewIn(t, dir); len(msgs) != 1 || !strings.Contains(msgs[0], user+`:4: [sandbox] bash = "off"`) {
		t.Fatalf("loosened again: %q", msgs)
	}
}

// TestReviewConfigLeavesTheWorkspaceToTrust: what the workspace's own
// files loosen is not the review's to tell: untrusted, it is not in
// force; trusted, the user saw it when trusting it. A first session sets
// the record without telling anything.
func TestReviewConfigLeavesTheWorkspaceToTrust(t *testing.T) {
	dir, home := reviewWorkspace(t)
	write(t, filepath.Join(home, "config.toml"), "[permissions]\napproval = \"yolo\"\n")
	write(t, filepath.Join(dir, config.ProjectFileName), "[sandbox]\nbash = \"off\"\n")
	write(t, filepath.Join(dir, config.MCPFileName), `{"mcpServers": {"helper": {"command": "npx", "args": ["helper"]}}}`)
	t.Setenv("HOME", t.TempDir())
	if err := os.Mkdir(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, config.ClaudeSettingsFile), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}`)
	if msgs := reviewIn(t, dir); len(msgs) != 0 {
		t.Fatalf("first session: %q", msgs)
	}
	cfg, err := config.Load(config.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Workspace.Untrusted() || cfg.Sandbox.Bash == "off" || len(cfg.Plugins) != 0 || len(cfg.Hooks()) != 0 {
		t.Fatalf("the workspace's loosening is in force untrusted: %+v", cfg.Workspace)
	}
	if err := config.Trust(cfg.Workspace); err != nil {
		t.Fatal(err)
	}
	if msgs := reviewIn(t, dir); len(msgs) != 0 {
		t.Fatalf("after the user trusted the workspace: %q", msgs)
	}
}

// TestReviewConfigSurvivesABadRecord: a record that does not parse is
// reported and rewritten; the configuration is compared with the
// defaults meanwhile, every layer included.
func TestReviewConfigSurvivesABadRecord(t *testing.T) {
	dir, home := reviewWorkspace(t)
	write(t, filepath.Join(home, "config.toml"), "[permissions]\napproval = \"auto\"\n")
	if msgs := reviewIn(t, dir); len(msgs) != 0 {
		t.Fatalf("first session: %q", msgs)
	}
	records, _ := filepath.Glob(filepath.Join(home, "security", "*.json"))
	if len(records) != 1 {
		t.Fatalf("records: %v", records)
	}
	b, _ := os.ReadFile(records[0])
	if !strings.Contains(string(b), `"workspace": "`+dir+`"`) || !strings.Contains(string(b), `"approval": "auto"`) {
		t.Errorf("record:\n%s", b)
	}
	write(t, records[0], "{not json")
	msgs := reviewIn(t, dir)
	if len(msgs) != 2 || !strings.Contains(msgs[0], records[0]) || !strings.Contains(msgs[1], "more than the defaults") || !strings.Contains(msgs[1], `approval = "auto"`) {
		t.Fatalf("with a bad record: %q", msgs)
	}
	if msgs := reviewIn(t, dir); len(msgs) != 0 {
		t.Fatalf("after the record was rewritten: %q", msgs)
	}

	// A home where records cannot be kept: noted, not fatal.
	blocked := t.TempDir()
	write(t, filepath.Join(blocked, "security"), "")
	t.Setenv("REASONIX_HOME", blocked)
	msgs = reviewIn(t, dir)
	if len(msgs) != 2 || !strings.Contains(msgs[0], "cannot read the record") || !strings.Contains(msgs[1], "cannot record") {
		t.Fatalf("a home where records cannot be kept: %q", msgs)
	}
}

// TestAlwaysAllowIsTrusted: a rule the user granted for good through a
// permission prompt lands in the project file, and the next session
// neither withholds it for want of trust nor shows it as a change.
func TestAlwaysAllowIsTrusted(t *testing.T) {
	dir, home := reviewWorkspace(t)
	project := filepath.Join(dir, config.ProjectFileName)
	write(t, filepath.Join(home, "config.toml"), "default_model = \"local\"\n[[providers]]\nname = \"local\"\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n")
	if msgs := reviewIn(t, dir); len(msgs) != 0 {
		t.Fatalf("first session: %q", msgs)
	}
	cfg, err := config.Load(config.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.Build(cfg, agent.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Gate.(*permission.Checker).Persist("Bash(go test:*)"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(project); !strings.Contains(string(b), `allow = ["Bash(go test:*)"]`) {
		t.Fatalf("project file:\n%s", b)
	}
	if msgs := reviewIn(t, dir); len(msgs) != 0 {
		t.Fatalf("next session: %q", msgs)
	}
	if cfg, err = config.Load(config.Options{Dir: dir}); err != nil || cfg.Workspace.Untrusted() || len(cfg.Permissions.Allow) != 1 {
		t.Fatalf("next session's rules: %v, %v, %+v", err, cfg.Permissions.Allow, cfg.Workspace)
	}
}
