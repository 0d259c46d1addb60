package agent

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools"
)

// Custom agents. A Markdown file in .reasonix/agents or .claude/agents —
// the workspace's, then Reasonix's home's agents/ and ~/.claude/agents —
// defines a helper the task tool can hand a sub-task to by name
// (subagent_type), in Claude Code's format: frontmatter with name,
// description, tools (comma-separated; all the parent has when left out)
// and model (a model reference; "inherit" or none for the parent's), and
// a body of instructions, which join the helper's system prompt.
//
// An agent file only narrows: its tools are picked from those the task
// would be offered without it (a read-only task's trusted read-only
// tools, a writer's the parent's), under the parent's permission rules,
// and its model is a reference to a configured provider, so a
// workspace's file cannot send the prompts or the key anywhere the
// user's configuration does not. That is why a workspace's agent files
// need no trust, as its command files do not.
//
// The agents are read when a session starts, with its tools: the task
// tool's description lists them, and it is part of the cached prefix, so
// a file added or changed meanwhile counts from the next session.

// customAgent is one agent file, parsed.
type customAgent struct {
	name        string
	description string
	// tools are the names of the tools it may use, mapped to Reasonix's
	// names; nil means all that the task would be offered. An MCP
	// server's name alone (mcp__server) stands for all its tools.
	tools []string
	// model is a model reference; "" for the parent's (or
	// subagent_model).
	model string
	// body is the agent's instructions.
	body string
	path string
}

// claudeTools maps Claude Code's tool names to Reasonix's.
var claudeTools = map[string]string{
	"Bash": "bash", "Read": "read_file", "Write": "write_file", "Edit": "edit_file",
	"MultiEdit": "multi_edit", "Glob": "glob", "Grep": "grep", "LS": "ls", "Task": taskName,
}

// claudeModels are the model names Claude Code's agent files use.
var claudeModels = map[string]bool{"sonnet": true, "opus": true, "haiku": true}

// AgentDirs returns the directories of custom agents of the workspace
// root, highest precedence first, as CommandDirs does for commands: the
// workspace's before the user's, and at each level Reasonix's own before
// Claude Code's. A workspace's agent replaces the user's of the same
// name.
func AgentDirs(root, home, userHome string) []CommandDir {
	return extensionDirs(root, home, userHome, "agents")
}

// loadAgents reads the agent files of dirs, the first of a name winning,
// sorted by name. Files are read as command files are (loadCommands):
// judged by their real path, bounded in size and number; one that cannot
// be read or parsed is skipped with a warning.
func loadAgents(env *tools.Env, dirs []CommandDir) ([]*customAgent, []string) {
	if env == nil {
		env = &tools.Env{FS: tools.DiskFS{}}
	}
	l := &commandLoader{env: env}
	var out []*customAgent
	seen := map[string]bool{}
	for _, d := range dirs {
		_, ents, err := env.ListDir(d.Dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
				l.warn(d.Dir, "%v", readRefusal(err))
			}
			continue
		}
		files := 0
		for _, e := range ents {
			stem, ok := strings.CutSuffix(e.Name(), ".md")
			if !ok || strings.HasPrefix(stem, ".") || e.IsDir() {
				continue
			}
			if files++; files > maxCommandFiles {
				l.warn(d.Dir, "more than %d agent files; the rest are not read", maxCommandFiles)
				break
			}
			full := filepath.Join(d.Dir, e.Name())
			data, ok := l.read(full)
			if !ok {
				continue
			}
			ag, err := parseAgent(data, stem)
			if err != nil {
				l.warn(full, "%v", err)
				continue
			}
			if ag.path = full; !seen[ag.name] {
				seen[ag.name] = true
				out = append(out, ag)
			}
		}
	}
	slices.SortFunc(out, func(x, y *customAgent) int { return cmp.Compare(x.name, y.name) })
	return out, l.warnings
}

// parseAgent parses an agent file; stem, the file's name without .md,
// names an agent whose frontmatter does not.
func parseAgent(data []byte, stem string) (*customAgent, error) {
	if tools.IsBinary(data) {
		return nil, errors.New("not a text file")
	}
	fields, text, err := tools.Frontmatter(string(data))
	if err != nil {
		return nil, err
	}
	ag := &customAgent{name: cmp.Or(fields["name"], stem), description: fields["description"], body: strings.TrimSpace(text)}
	if !commandSegment(ag.name) || strings.Contains(ag.name, ".") {
		return nil, fmt.Errorf("%q cannot be an agent's name (letters, digits, _ and - only)", ag.name)
	}
	if ag.body == "" {
		return nil, errors.New("the agent has no instructions")
	}
	if ag.description == "" {
		ag.description = clipRunes(strings.TrimLeft(firstLineOf(ag.body), "# "), 80)
	}
	if m := fields["model"]; m != "inherit" {
		ag.model = m
	}
	if list, ok := fields["tools"]; ok {
		if ag.tools, err = agentTools(list); err != nil {
			return nil, err
		}
	}
	return ag, nil
}

// agentTools maps the tools line of an agent file to Reasonix's names.
// An empty line is refused rather than read as "all": a YAML list on the
// lines below the key, which the frontmatter reader passes over, leaves
// it empty, and that must not widen what the agent may do.
func agentTools(list string) ([]string, error) {
	list = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(list), "["), "]")
	out := []string{}
	for _, name := range strings.Split(list, ",") {
		name = strings.Trim(strings.TrimSpace(name), `"'`)
		if name == "" {
			continue
		}
		if r, ok := claudeTools[name]; ok {
			name = r
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("tools names no tool: list them comma-separated on the key's line, or leave the key out for all the tools")
	}
	return out, nil
}

// allows reports whether the agent may use t.
func (ag *customAgent) allows(t tools.Tool) bool {
	if ag.tools == nil {
		return true
	}
	return slices.ContainsFunc(ag.tools, func(n string) bool { return toolNamed(n, t.Name()) })
}

// toolNamed reports whether the name n of an agent's tools line names
// the tool called name: that name, or the MCP server (mcp__server) it
// belongs to.
func toolNamed(n, name string) bool {
	if n == name {
		return true
	}
	server, isMCP := strings.CutPrefix(n, "mcp__")
	return isMCP && server != "" && !strings.Contains(server, "__") && strings.HasPrefix(name, n+"__")
}

// unmatched lists the names of the agent's tools line that name no tool
// of reg, for a warning: they are left out.
func (ag *customAgent) unmatched(reg *tools.Registry) []string {
	var out []string
	for _, n := range ag.tools {
		if n != taskName && !slices.ContainsFunc(reg.Names(), func(name string) bool { return toolNamed(n, name) }) {
			out = append(out, n)
		}
	}
	return out
}

// prompt is the system prompt of a helper that runs as the agent: the
// task prompt, then the agent's instructions.
func (ag *customAgent) prompt() string {
	return taskSystemPrompt + fmt.Sprintf("\n\nYou act as the agent %q. Its instructions:\n\n%s\n", ag.name, ag.body)
}

// findAgent returns the agent called name among agents, or an error for
// the model that names those there are.
func findAgent(agents []*customAgent, name string) (*customAgent, error) {
	var names []string
	for _, ag := range agents {
		if ag.name == name {
			return ag, nil
		}
		names = append(names, ag.name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("unknown subagent_type %q: no custom agents are defined; leave subagent_type out for a general helper", name)
	}
	return nil, fmt.Errorf("unknown subagent_type %q: the agents are %s; leave subagent_type out for a general helper", name, strings.Join(names, ", "))
}

// withAgents returns reg with its task tool knowing the custom agents of
// a's directories, and warns of the files skipped and of tools their
// lines name that reg does not offer. reg without a task tool is
// returned as it is.
func (a *Agent) withAgents(reg *tools.Registry) *tools.Registry {
	if _, ok := reg.Get(taskName); !ok || len(a.AgentDirs) == 0 {
		return reg
	}
	agents, warnings := loadAgents(a.Env, a.AgentDirs)
	for _, ag := range agents {
		if names := ag.unmatched(reg); len(names) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: tools %s: no such tool here; left out", ag.path, strings.Join(names, ", ")))
		}
	}
	for _, w := range warnings {
		a.emit(Event{Kind: EventNotice, Text: "agent file " + w})
	}
	if len(agents) == 0 {
		return reg
	}
	withAgents, err := reg.Replace(taskTool{agents: agents})
	if err != nil {
		// The task tool is in reg: this cannot fail.
		return reg
	}
	return withAgents
}
