package agent

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/reasonix/reasonix/tools/mcp"
	"github.com/reasonix/reasonix/tools/skills"
)

// Slash commands. A prompt whose first word names one is a command, from
// every front end alike: a built-in (answered by the agent, or an Action
// the front end performs), a custom command (a Markdown file whose body,
// with the arguments substituted, becomes the prompt), or an MCP prompt
// (rendered by its server).

// CommandSource says where a slash command comes from.
type CommandSource string

const (
	SourceBuiltin CommandSource = "builtin"
	// SourceProject is the workspace's .reasonix/commands.
	SourceProject CommandSource = "project"
	// SourceUser is commands/ in Reasonix's home.
	SourceUser CommandSource = "user"
	// SourceClaude is Claude Code's .claude/commands, in the workspace or
	// the home directory.
	SourceClaude CommandSource = "claude"
	SourceMCP    CommandSource = "mcp"
)

// Command is a slash command as a completion menu shows it.
type Command struct {
	// Name is what the user types, with its slash: "/review",
	// "/git:commit", "/mcp__everything__echo".
	Name         string        `json:"name"`
	Description  string        `json:"description"`
	ArgumentHint string        `json:"argumentHint"`
	Source       CommandSource `json:"source"`

	// One of these says what the command does.
	builtin ActionKind
	custom  *customCommand
	prompt  *mcp.Prompt
	skill   *skills.Skill
}

// CommandDir is a directory of custom commands.
type CommandDir struct {
	Dir    string
	Source CommandSource
}

// CommandDirs returns the directories of custom commands of the workspace
// root, highest precedence first: the project's before the user's, and at
// each level Reasonix's own before Claude Code's. home is Reasonix's home
// (config.Home), userHome the user's home directory ("" for none).
func CommandDirs(root, home, userHome string) []CommandDir {
	return extensionDirs(root, home, userHome, "commands")
}

// extensionDirs returns the directories named sub that hold files users
// bring (commands, agents), highest precedence first: the workspace's
// .reasonix and .claude, then Reasonix's home's and ~/.claude's.
func extensionDirs(root, home, userHome, sub string) []CommandDir {
	dirs := []CommandDir{
		{filepath.Join(root, ".reasonix", sub), SourceProject},
		{filepath.Join(root, ".claude", sub), SourceClaude},
		{filepath.Join(home, sub), SourceUser},
	}
	if userHome != "" {
		dirs = append(dirs, CommandDir{filepath.Join(userHome, ".claude", sub), SourceClaude})
	}
	return dirs
}

// builtins are the built-in commands, in the order /help lists them.
var builtins = []Command{
	{Name: "/help", Source: SourceBuiltin, builtin: ActionHelp, Description: "List the slash commands and @ references"},
	{Name: "/new", Source: SourceBuiltin, builtin: ActionNew, Description: "Start a new session; this one stays saved"},
	{Name: "/clear", Source: SourceBuiltin, builtin: ActionClear, Description: "Discard this conversation, after asking, and start afresh"},
	{Name: "/compact", Source: SourceBuiltin, builtin: ActionCompact, Description: "Fold the conversation's older work into a summary"},
	{Name: "/model", Source: SourceBuiltin, builtin: ActionModel, ArgumentHint: "[REF [prompt]]",
		Description: "Show the model; switch the session to REF; or run one prompt on REF"},
	{Name: "/effort", Source: SourceBuiltin, builtin: ActionEffort, ArgumentHint: "[low|medium|high [prompt]]",
		Description: "Show the reasoning effort; set it for the session; or run one prompt at it"},
	{Name: "/cost", Source: SourceBuiltin, builtin: ActionCost, Description: "Show the session's tokens, cache hits and cost"},
	{Name: "/mcp", Source: SourceBuiltin, builtin: ActionMCP, Description: "Show the MCP servers and what they offer"},
	{Name: "/rewind", Source: SourceBuiltin, builtin: ActionRewind, ArgumentHint: "[N]",
		Description: "List the turns; put the files and the conversation back to before turn N"},
	{Name: "/trust", Source: SourceBuiltin, builtin: ActionTrust, ArgumentHint: "[revoke]",
		Description: "Show what the workspace's own configuration would start or loosen; trust it, or revoke the trust"},
}

// Commands lists every slash command of the agent's workspace: the
// built-ins, the custom commands, the skills and the MCP servers' prompts. Where two
// custom commands share a name, the first directory of CommandDirs wins;
// a custom command cannot replace a built-in or take the mcp__ prefix,
// and a skill has no slash command when a built-in or custom command has
// its name. warnings name the command and skill files that were skipped,
// and why.
func (a *Agent) Commands() (cmds []Command, warnings []string) {
	cmds = slices.Clone(builtins)
	builtin := map[string]bool{}
	for _, c := range builtins {
		builtin[c.Name] = true
	}
	loaded, warnings := loadCommands(a.Env, a.CommandDirs)
	seen := map[string]bool{}
	var custom []Command
	for _, c := range loaded {
		name := "/" + c.name
		switch {
		case builtin[name]:
			warnings = append(warnings, fmt.Sprintf("%s: skipped: %s is a built-in command", c.path, name))
		case strings.HasPrefix(c.name, "mcp__"):
			warnings = append(warnings, fmt.Sprintf("%s: skipped: names starting with mcp__ are the MCP servers' prompts", c.path))
		case seen[name]:
			// A directory of higher precedence has it.
		default:
			seen[name] = true
			custom = append(custom, Command{Name: name, Description: c.description, ArgumentHint: c.argumentHint, Source: c.source, custom: c})
		}
	}
	slices.SortFunc(custom, func(x, y Command) int { return cmp.Compare(x.Name, y.Name) })
	cmds = append(cmds, custom...)
	if a.Env != nil {
		found, skipped := skills.Load(a.Env)
		warnings = append(warnings, skipped...)
		for _, sk := range found {
			// A built-in or a custom command of the same name keeps
			// the slash; the skill tool still loads the skill.
			if name := "/" + sk.Name; !builtin[name] && !seen[name] {
				cmds = append(cmds, Command{Name: name, Description: sk.Description, Source: SourceSkill, skill: &sk})
			}
		}
	}
	if a.Plugins != nil {
		for _, p := range a.Plugins.Prompts() {
			hint := ""
			if len(p.Arguments) > 0 {
				hint = usage(p)
			}
			cmds = append(cmds, Command{Name: "/" + p.Command, Description: p.Description, ArgumentHint: hint, Source: SourceMCP, prompt: &p})
		}
	}
	return cmds, warnings
}

// commandWord reports whether word can name a command: a slash, then
// letters, digits, "_", "-", "." or ":" (no further slash, which makes
// it a path).
func commandWord(word string) bool {
	name, ok := strings.CutPrefix(word, "/")
	if !ok || name == "" {
		return false
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.:", r)
		if !ok {
			return false
		}
	}
	return true
}

// helpText lists the commands and references for /help: one table, its
// columns aligned across the sections so that it reads as one.
func (a *Agent) helpText(cmds []Command) string {
	type row struct{ title, name, hint, desc string }
	var rows []row
	section := func(title string, keep func(Command) bool) {
		first := true
		for _, c := range cmds {
			if !keep(c) {
				continue
			}
			if first {
				rows, first = append(rows, row{title: title}), false
			}
			desc := c.Description
			if c.Source != SourceBuiltin && c.Source != SourceMCP && c.Source != SourceSkill {
				desc = strings.TrimSpace(desc + " (" + string(c.Source) + ")")
			}
			rows = append(rows, row{name: c.Name, hint: c.ArgumentHint, desc: firstLineOf(desc)})
		}
	}
	section("Commands:", func(c Command) bool { return c.Source == SourceBuiltin })
	section("Custom commands:", func(c Command) bool { return c.custom != nil })
	section("Skills:", func(c Command) bool { return c.skill != nil })
	section("MCP prompts:", func(c Command) bool { return c.Source == SourceMCP })
	rows = append(rows, row{title: "References:"},
		row{name: "@path", desc: "Attach a file of the workspace"},
		row{name: "@dir/", desc: "Attach a directory's listing"},
		row{name: "@server:uri", desc: "Attach a resource of an MCP server"})

	nameW, hintW := 0, 0
	for _, r := range rows {
		nameW = max(nameW, utf8.RuneCountInString(r.name))
		hintW = max(hintW, utf8.RuneCountInString(r.hint))
	}
	pad := func(s string, w int) string { return s + strings.Repeat(" ", w-utf8.RuneCountInString(s)) }
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		if r.title != "" {
			b.WriteString(r.title)
			continue
		}
		line := "  " + pad(r.name, nameW) + "  "
		if hintW > 0 {
			line += pad(r.hint, hintW) + "  "
		}
		b.WriteString(strings.TrimRight(line+r.desc, " "))
	}
	dirs := make([]string, 0, len(a.CommandDirs))
	for _, d := range a.CommandDirs {
		dirs = append(dirs, shortPath(d.Dir, a.root()))
	}
	if len(dirs) > 0 {
		fmt.Fprintf(&b, "\nCustom commands are Markdown files in %s (the first wins on a name clash).", strings.Join(dirs, ", "))
	}
	return b.String()
}

// root is the workspace root, "" without an environment.
func (a *Agent) root() string {
	if a.Env == nil {
		return ""
	}
	return a.Env.Root
}

// shortPath shows a directory relative to the workspace root, or to the
// home directory as ~, when it lies there.
func shortPath(dir, root string) string {
	if root != "" {
		if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		if rel, err := filepath.Rel(home, dir); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return dir
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
