package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

func TestParseAgent(t *testing.T) {
	cases := []struct {
		name, file, stem   string
		agent, description string
		tools              []string
		model, wantErr     string
	}{
		{name: "Claude Code's format", stem: "x",
			file:  "---\nname: code-reviewer\ndescription: Reviews changes for bugs. Use after edits.\ntools: Read, Grep, Glob, Bash\nmodel: pro\n---\nYou review code.\n",
			agent: "code-reviewer", description: "Reviews changes for bugs. Use after edits.",
			tools: []string{"read_file", "grep", "glob", "bash"}, model: "pro"},
		{name: "no tools key: all of them", stem: "helper", file: "---\ndescription: d\n---\nHelp.\n",
			agent: "helper", description: "d"},
		{name: "inherit is the parent's model", stem: "a", file: "---\nname: a\nmodel: inherit\ntools: read_file, mcp__github__get_issue, mcp__docs, Write, MultiEdit, Edit, LS, Task\n---\nGo.\n",
			agent: "a", description: "Go.", tools: []string{"read_file", "mcp__github__get_issue", "mcp__docs", "write_file", "multi_edit", "edit_file", "ls", "task"}},
		{name: "a flow list", stem: "a", file: "---\ntools: [Read, \"Grep\", Read]\n---\nGo.\n",
			agent: "a", description: "Go.", tools: []string{"read_file", "grep"}},
		{name: "no description: the first line", stem: "explainer", file: "# Explains code\nIn detail.\n",
			agent: "explainer", description: "Explains code"},
		{name: "a YAML list is refused, not read as all", stem: "a", file: "---\ntools:\n  - Read\n---\nGo.\n",
			wantErr: "tools names no tool"},
		{name: "no instructions", stem: "a", file: "---\nname: a\n---\n\n", wantErr: "no instructions"},
		{name: "a bad name", stem: "a", file: "---\nname: my agent\n---\nGo.\n", wantErr: "cannot be an agent's name"},
		{name: "a dotted name", stem: "a.b", file: "Go.\n", wantErr: "cannot be an agent's name"},
		{name: "unclosed", stem: "a", file: "---\nname: a\n", wantErr: "no closing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ag, err := parseAgent([]byte(c.file), c.stem)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ag.name != c.agent || ag.description != c.description || ag.model != c.model || !slices.Equal(ag.tools, c.tools) || (c.tools == nil) != (ag.tools == nil) {
				t.Errorf("got name %q description %q model %q tools %q", ag.name, ag.description, ag.model, ag.tools)
			}
		})
	}
}

// stubTool is a tool with a name and a read-only answer, for picking.
type stubTool struct {
	name     string
	readOnly bool
}

func (s stubTool) Name() string            { return s.name }
func (s stubTool) Description() string     { return s.name }
func (s stubTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (s stubTool) ReadOnly() bool          { return s.readOnly }
func (s stubTool) Execute(_ context.Context, _ *tools.Env, _ json.RawMessage) (tools.Result, error) {
	return tools.Result{}, nil
}

// TestAgentToolSubset: an agent's helper is offered the tools its file
// names among those the task would offer without it — never more: a
// read-only task drops its writers, and no helper gets task.
func TestAgentToolSubset(t *testing.T) {
	parent, err := tools.NewRegistry(
		stubTool{"read_file", true}, stubTool{"grep", true}, stubTool{"bash", false}, stubTool{"edit_file", false},
		stubTool{"mcp__docs__search", true}, stubTool{"mcp__docs__write", false}, stubTool{"mcp__docsy__x", true},
		taskTool{},
	)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tools    string
		readOnly bool
		want     []string
	}{
		{"Read, Grep, Bash", false, []string{"read_file", "grep", "bash"}},
		{"Read, Grep, Bash", true, []string{"read_file", "grep"}},
		{"Edit, Task", false, []string{"edit_file"}},
		{"mcp__docs", false, []string{"mcp__docs__search", "mcp__docs__write"}},
		{"mcp__docs, WebFetch", true, []string{"mcp__docs__search"}},
	}
	for _, c := range cases {
		ag, err := parseAgent([]byte("---\ntools: "+c.tools+"\n---\nGo.\n"), "a")
		if err != nil {
			t.Fatal(err)
		}
		reg, err := taskTools(parent, c.readOnly)
		if err != nil {
			t.Fatal(err)
		}
		if reg, err = reg.Pick(ag.allows); err != nil {
			t.Fatal(err)
		}
		if got := reg.Names(); !slices.Equal(got, c.want) {
			t.Errorf("tools %q, read_only %v: offered %q, want %q", c.tools, c.readOnly, got, c.want)
		}
	}
	ag, _ := parseAgent([]byte("---\ntools: Read, WebFetch, Task, mcp__gone\n---\nGo.\n"), "a")
	if got := ag.unmatched(parent); !slices.Equal(got, []string{"WebFetch", "mcp__gone"}) {
		t.Errorf("unmatched %q", got)
	}
}

// TestAgentLookup: the workspace's agents before the user's, Reasonix's
// directory before Claude Code's at each level; a file that cannot be
// read or parsed is skipped with a warning, a link into a forbidden
// place is not followed; the task tool lists the agents by name, and a
// name it does not know is an error that lists those it does.
func TestAgentLookup(t *testing.T) {
	base := t.TempDir()
	root, home, userHome, secrets := filepath.Join(base, "ws"), filepath.Join(base, "rxhome"), filepath.Join(base, "home"), filepath.Join(base, "secrets")
	writeFiles(t, base, map[string]string{
		"ws/.reasonix/agents/reviewer.md":   "---\nname: reviewer\ndescription: the workspace's reviewer\n---\nReview.",
		"ws/.claude/agents/reviewer.md":     "---\nname: reviewer\ndescription: Claude's workspace reviewer\n---\nReview.",
		"ws/.claude/agents/tester.md":       "---\nname: tester\ndescription: runs the tests\ntools: Bash\n---\nTest.",
		"ws/.claude/agents/broken.md":       "---\nname: broken\n",
		"ws/.claude/agents/notes.txt":       "not an agent",
		"rxhome/agents/tester.md":           "---\nname: tester\ndescription: the user's tester\n---\nTest.",
		"rxhome/agents/planner.md":          "---\nname: planner\ndescription: the user's planner\n---\nPlan.",
		"home/.claude/agents/documenter.md": "---\ndescription: Claude's user documenter\n---\nDocument.",
		"home/.claude/agents/other-name.md": "---\nname: planner\ndescription: Claude's user planner\n---\nPlan.",
		"secrets/token.md":                  "sk-secret",
	})
	if err := os.Symlink(filepath.Join(secrets, "token.md"), filepath.Join(root, ".claude/agents/leak.md")); err != nil {
		t.Fatal(err)
	}
	env := &tools.Env{Root: root, FS: tools.DiskFS{}, Guard: sandbox.New([]string{root}, []string{secrets})}
	agents, warnings := loadAgents(env, AgentDirs(root, home, userHome))
	var got []string
	for _, ag := range agents {
		got = append(got, ag.name+": "+ag.description)
	}
	want := []string{
		"documenter: Claude's user documenter",
		"planner: the user's planner",
		"reviewer: the workspace's reviewer",
		"tester: runs the tests",
	}
	if !slices.Equal(got, want) {
		t.Errorf("agents:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{"broken.md: skipped: the frontmatter's opening --- has no closing ---", "leak.md: skipped:"} {
		if !strings.Contains(joined, w) {
			t.Errorf("no warning %q in:\n%s", w, joined)
		}
	}
	if strings.Contains(joined, "sk-secret") {
		t.Errorf("a warning quotes the forbidden file: %s", joined)
	}

	tt := taskTool{agents: agents}
	desc := tt.Description()
	for _, line := range want {
		if !strings.Contains(desc, "\n- "+line) {
			t.Errorf("the task tool's description lacks %q:\n%s", line, desc)
		}
	}
	if !strings.Contains(string(tt.Schema()), `"subagent_type":{"type":"string","enum":["documenter","planner","reviewer","tester"]`) {
		t.Errorf("schema %s", tt.Schema())
	}
	if none := (taskTool{}); none.Description() != taskDescription || strings.Contains(string(none.Schema()), "subagent_type") {
		t.Error("without agents, the task tool is described as before")
	}
	if _, err := findAgent(agents, "critic"); err == nil || !strings.Contains(err.Error(), `unknown subagent_type "critic": the agents are documenter, planner, reviewer, tester`) {
		t.Errorf("unknown agent: %v", err)
	}
	if _, err := findAgent(nil, "critic"); err == nil || !strings.Contains(err.Error(), "no custom agents are defined") {
		t.Errorf("no agents: %v", err)
	}
}
