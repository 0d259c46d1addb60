package agent

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/mcp"
)

// MCP plugins reach the agent in three ways: their tools join a session's
// registry when the session starts (and stay fixed for it, so the cached
// prompt prefix holds); their prompts are slash commands,
// "/mcp__<server>__<prompt> args" (commands.go); and their resources are
// referenced in a prompt as "@<server>:<uri>" and attached to it
// (references.go).

// sessionTools returns the tools a new session offers: the agent's own
// and the plugins' as they are now, the task tool knowing the custom
// agents as their files are now (agents.go).
func (a *Agent) sessionTools() *tools.Registry {
	reg := a.Tools
	if a.Plugins != nil {
		var err error
		if reg, err = a.Tools.With(a.Plugins.Tools()...); err != nil {
			// Plugin tool names are namespaced, so a clash is a bug; the
			// session goes on with the built-in tools.
			a.emit(Event{Kind: EventNotice, Text: "MCP tools left out: " + err.Error()})
			reg = a.Tools
		}
	}
	if n := len(reg.Names()); n > maxAPITools {
		a.emit(Event{Kind: EventNotice, Text: fmt.Sprintf("%d tools are offered to the model; OpenAI-compatible APIs commonly refuse more than %d. "+
			"Trim them with enabled_tools or disabled_tools in a [[plugins]] entry, or [tools] enabled.", n, maxAPITools)})
	}
	return a.withAgents(reg)
}

// maxAPITools is the number of tools OpenAI's API, and the APIs modelled
// on it, accept in one request.
const maxAPITools = 128

// promptArguments maps the words after a prompt command to its arguments:
// name=value words by name, other words in the declared order, the last
// argument taking the rest of the line. Words may be "quoted".
func promptArguments(p mcp.Prompt, rest string) (map[string]string, error) {
	words, err := splitWords(rest)
	if err != nil {
		return nil, err
	}
	args := map[string]string{}
	declared := func(name string) bool {
		for _, a := range p.Arguments {
			if a.Name == name {
				return true
			}
		}
		return false
	}
	var positional []string
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && declared(k) {
			args[k] = v
			continue
		}
		positional = append(positional, w)
	}
	var free []string
	for _, a := range p.Arguments {
		if _, set := args[a.Name]; !set {
			free = append(free, a.Name)
		}
	}
	for i, w := range positional {
		if i >= len(free) {
			if len(free) == 0 {
				return nil, fmt.Errorf("takes no more arguments than %s", usage(p))
			}
			last := free[len(free)-1]
			args[last] += " " + w
			continue
		}
		args[free[i]] = w
	}
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, fmt.Errorf("missing argument %q; usage: /%s %s", a.Name, p.Command, usage(p))
		}
	}
	return args, nil
}

// usage shows a prompt's arguments: <required> [optional].
func usage(p mcp.Prompt) string {
	var parts []string
	for _, a := range p.Arguments {
		if a.Required {
			parts = append(parts, "<"+a.Name+">")
		} else {
			parts = append(parts, "["+a.Name+"]")
		}
	}
	if len(parts) == 0 {
		return "(no arguments)"
	}
	return strings.Join(parts, " ")
}

// splitWords splits on spaces, keeping "double-quoted" runs together.
func splitWords(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	in, inWord := false, false
	for _, r := range s {
		switch {
		case r == '"':
			in, inWord = !in, true
		case unicode.IsSpace(r) && !in:
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if in {
		return nil, fmt.Errorf("unbalanced quote in %q", s)
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, nil
}

// PluginStatus describes the agent's MCP servers for people (/mcp), and
// those of the workspace's configuration that are off until the user
// trusts them.
func (a *Agent) PluginStatus() string {
	status := PluginStatus(a.Plugins)
	if a.config == nil {
		return status
	}
	var off []string
	for _, it := range a.config.Workspace.Pending() {
		if it.Server != "" {
			off = append(off, strconv.Quote(it.Server))
		}
	}
	if len(off) > 0 {
		status += "\nOff until you trust the workspace's configuration (/trust): " + strings.Join(off, ", ") + "."
	}
	return status
}

// PluginStatus describes MCP servers for people: one line each with its
// transport, state and what it offers, then the errors of those that
// failed. m may be nil.
func PluginStatus(m *mcp.Manager) string {
	if m == nil || len(m.Status()) == 0 {
		return "No MCP servers are configured ([[plugins]] in reasonix.toml, or .mcp.json)."
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SERVER\tTRANSPORT\tSTATE\tTOOLS\tPROMPTS\tRESOURCES")
	var problems []string
	for _, st := range m.Status() {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%d\n", st.Name, st.Transport, st.State, st.Tools, st.Prompts, st.Resources)
		if st.Error != "" {
			problems = append(problems, fmt.Sprintf("%s: %s", st.Name, st.Error))
		}
	}
	w.Flush()
	for _, p := range problems {
		b.WriteString(p + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// PluginDetails describes, server by server, what m's servers offer: the
// tools as the model sees them (read-only ones marked), the prompts as
// slash commands with their arguments, and the resources as @ references.
func PluginDetails(m *mcp.Manager) string {
	if m == nil {
		return ""
	}
	toolsOf := map[string][]string{}
	for _, t := range m.Tools() {
		server, _ := mcp.ServerOf(t)
		name := t.Name()
		if t.ReadOnly() {
			name += " (read-only)"
		}
		toolsOf[server] = append(toolsOf[server], name)
	}
	promptsOf := map[string][]string{}
	for _, p := range m.Prompts() {
		cmd := "/" + p.Command
		if len(p.Arguments) > 0 {
			cmd += " " + usage(p)
		}
		promptsOf[p.Server] = append(promptsOf[p.Server], cmd)
	}
	resourcesOf := map[string][]string{}
	for _, r := range m.Resources() {
		resourcesOf[r.Server] = append(resourcesOf[r.Server], "@"+r.Server+":"+r.URI)
	}
	var b strings.Builder
	for _, st := range m.Status() {
		fmt.Fprintf(&b, "\n%s\n", st.Name)
		for _, part := range []struct {
			label string
			items []string
		}{{"tools", toolsOf[st.Name]}, {"prompts", promptsOf[st.Name]}, {"resources", resourcesOf[st.Name]}} {
			for _, item := range part.items {
				fmt.Fprintf(&b, "  %-10s %s\n", part.label, item)
				part.label = ""
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
