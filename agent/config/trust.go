package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Workspace trust.
//
// Opening a folder in an editor starts Reasonix, and cloning a repository
// gives it the repository's reasonix.toml and .mcp.json. Whatever in those
// files can run a program, reach the network or receive a secret — an MCP
// server, a language server, a provider and the key it is sent, a looser
// sandbox or permission — is therefore inert until the user trusts that
// exact content. Each such entry has a digest of its content; Load leaves
// out of the configuration it returns every entry whose digest the user
// has not trusted (a record in Reasonix's directory, written by
// `reasonix trust` or an editor's trust dialog), unless the caller
// accepts the digest of them all (`reasonix run --trust`). An entry that
// changes is asked about again; one trusted before stays in force.
// Everything else a workspace sets applies as before.
//
// What the user's own files say (the user config, --config, an editor's
// settings) is the user's word and needs no trust.

// TrustConfig is [trust], read only from the user's own configuration.
type TrustConfig struct {
	// Env names the environment variables a workspace's configuration
	// may expand with ${VAR}. Any other ${VAR} in a workspace's file
	// expands to nothing (or its default): a repository must not be able
	// to send a token it found in the environment to a server it chose.
	Env []string `toml:"env"`
}

// A TrustItem is one entry of a workspace's own configuration that needs
// the user's trust before it takes effect.
type TrustItem struct {
	// At is where the entry is set.
	At Pos `json:"at"`
	// What says, for the user, what the entry would do.
	What string `json:"what"`
	// Digest identifies the entry's content: a changed command, URL,
	// header, rule or key makes another digest.
	Digest string `json:"digest"`
	// Trusted reports whether the user trusted this content.
	Trusted bool `json:"-"`
	// Server names the MCP server the entry starts, if it is one.
	Server string `json:"-"`
}

// WorkspaceTrust is what a workspace's own configuration brings that
// needs trust, and whether it is in force.
type WorkspaceTrust struct {
	// Dir is the workspace, absolute and free of links.
	Dir string
	// Items are the entries that need trust, in a stable order; none
	// when the workspace's files bring nothing of the kind.
	Items []TrustItem
	// Hash is the digest of Items as a whole, shown to the user and
	// accepted by `reasonix run --trust`; empty when there are no items.
	Hash string
	// Trusted reports whether every item is in force.
	Trusted bool
	// By says how they came to be trusted: ByRecord or ByFlag.
	By string
}

// How a workspace's configuration came to be trusted.
const (
	// ByRecord: the user trusted every entry (Trust, TrustGrant).
	ByRecord = "record"
	// ByFlag: the caller accepted the digest (Options.TrustHash).
	ByFlag = "flag"
)

// Untrusted reports whether some of the workspace's configuration was
// left out for want of trust.
func (t WorkspaceTrust) Untrusted() bool { return len(t.Pending()) > 0 }

// Pending lists the items not in force for want of trust.
func (t WorkspaceTrust) Pending() []TrustItem {
	if t.Trusted {
		return nil
	}
	var out []TrustItem
	for _, it := range t.Items {
		if !it.Trusted {
			out = append(out, it)
		}
	}
	return out
}

// ShortHash is the form of Hash the user reads and types.
func (t WorkspaceTrust) ShortHash() string {
	if len(t.Hash) > shortHash {
		return t.Hash[:shortHash]
	}
	return t.Hash
}

// shortHash is how many hex digits of a workspace's hash are shown; a
// --trust value must give at least minHash of them.
const (
	shortHash = 16
	minHash   = 12
)

// Describe lists the items one a line, each indented, with where it is
// set.
func (t WorkspaceTrust) Describe() string { return t.describe(t.Items) }

func (t WorkspaceTrust) describe(items []TrustItem) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "  • %s (%s)\n", it.What, t.rel(it.At))
	}
	return strings.TrimRight(b.String(), "\n")
}

// Question words what the pending items would do once trusted, for a
// trust question and the notice of an untrusted workspace.
func (t WorkspaceTrust) Question() string {
	q := fmt.Sprintf("The workspace %s comes with configuration that takes effect only once you trust it:\n%s\nUntil then it is off, and everything else works without it.",
		t.Dir, t.describe(t.Pending()))
	if n := len(t.Items) - len(t.Pending()); n == 1 {
		q += " (One more entry, trusted before, is in force.)"
	} else if n > 1 {
		q += fmt.Sprintf(" (%d more entries, trusted before, are in force.)", n)
	}
	return q
}

// rel names at relative to the workspace when it is inside it.
func (t WorkspaceTrust) rel(at Pos) string {
	if r, err := filepath.Rel(t.Dir, at.File); err == nil && !strings.HasPrefix(r, "..") {
		at.File = r
	}
	return at.String()
}

// matches reports whether a --trust value names this hash.
func (t WorkspaceTrust) matches(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return len(v) >= minHash && t.Hash != "" && strings.HasPrefix(t.Hash, v)
}

// workspaceFiles are the files of the workspace dir whose content needs
// trust: its reasonix.toml, .mcp.json, .claude/settings.json and
// .claude/settings.local.json.
func workspaceFiles(dir string) []string {
	if dir == "" {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	files := []string{filepath.Join(abs, ProjectFileName), filepath.Join(abs, MCPFileName)}
	return append(files, workspaceClaudeSettings(abs)...)
}

// IsWorkspaceFile reports whether file is one of the configuration files
// that come with the workspace dir, whose content needs trust.
func IsWorkspaceFile(dir, file string) bool {
	if file == "" {
		return false
	}
	file = Canonical(file)
	return slices.ContainsFunc(workspaceFiles(Canonical(dir)), func(f string) bool { return Canonical(f) == file })
}

// fromWorkspace reports whether a value set at at comes from the
// workspace's own files.
func (c *Config) fromWorkspace(at Pos) bool {
	return at.File != "" && slices.Contains(c.wsFiles, at.File)
}

// workspaceTrust lists what c, merged from every layer, takes from the
// workspace's own files that needs trust. Entries a later layer (the
// user's --config) overrides are not listed: they are not in force.
func (c *Config) workspaceTrust(dir string) WorkspaceTrust {
	t := WorkspaceTrust{Dir: Canonical(dir)}
	add := func(at Pos, what string, content ...any) {
		t.Items = append(t.Items, TrustItem{At: at, What: what, Digest: digest(content...)})
	}
	keyOwners := map[string][]string{}
	for _, p := range c.Providers {
		if p.APIKeyEnv != "" && !c.fromWorkspace(p.At) {
			keyOwners[p.APIKeyEnv] = append(keyOwners[p.APIKeyEnv], p.Name)
		}
	}
	for _, p := range c.Providers {
		if !c.fromWorkspace(p.At) {
			continue
		}
		what := fmt.Sprintf("provider %q: sends your prompts and the files the agent reads to %s", p.Name, clip(word(p.BaseURL)))
		if p.APIKeyEnv != "" {
			what += fmt.Sprintf(", with the key in $%s", p.APIKeyEnv)
			if owners := keyOwners[p.APIKeyEnv]; len(owners) > 0 {
				what += fmt.Sprintf(" (your key for %s)", strings.Join(owners, ", "))
			}
		}
		add(p.At, what, providerContent(p)...)
	}
	for _, p := range c.Plugins {
		if c.fromWorkspace(p.At) && p.On() {
			add(p.At, fmt.Sprintf("MCP server %q: %s", p.Name, c.pluginTarget(p)), pluginContent(p)...)
			t.Items[len(t.Items)-1].Server = p.Name
		}
	}
	for _, g := range c.Graph.Servers {
		if c.fromWorkspace(g.At) {
			add(g.At, fmt.Sprintf("language server %q: %s", g.Name, Program{Command: g.Command}.target()), graphContent(g)...)
		}
	}
	for _, ls := range looseSettings {
		if v := ls.value(c); v != nil && c.fromWorkspace(ls.at(c)) {
			add(ls.at(c), ls.what(v), ls.key, v)
		}
	}
	s := &c.Sandbox
	if s.WorkspaceRoot != "" && c.fromWorkspace(s.rootAt) && !within(c.workspaceRootOf(dir), t.Dir) {
		add(s.rootAt, fmt.Sprintf("[sandbox] workspace_root = %q: the agent works and writes there", s.WorkspaceRoot), "sandbox.workspace_root", s.WorkspaceRoot)
	}
	for _, d := range s.AllowWrite {
		if at := c.itemAt[itemKey("sandbox", "allow_write", d)]; c.fromWorkspace(at) {
			add(at, fmt.Sprintf("[sandbox] allow_write %q: the agent may write there", d), "sandbox.allow_write", d)
		}
	}
	for _, r := range c.Permissions.Allow {
		if at := c.itemAt[itemKey("permissions", "allow", r)]; c.fromWorkspace(at) {
			t.Items = append(t.Items, ruleItem(at, r))
		}
	}
	if f := c.Agent.SystemPromptFile; f != "" && c.fromWorkspace(c.Agent.systemPromptFileAt) && !within(Canonical(f), t.Dir) {
		add(c.Agent.systemPromptFileAt, fmt.Sprintf("[agent] system_prompt_file = %q: a file outside the workspace goes to the model", f), "agent.system_prompt_file", f)
	}
	t.Items = append(t.Items, c.hookItems()...)
	if len(t.Items) > 0 {
		h := sha256.New()
		for _, it := range t.Items {
			h.Write([]byte(it.Digest))
		}
		t.Hash = hex.EncodeToString(h.Sum(nil))
	}
	return t
}

// A looseSetting is a setting that lets the agent do more when a
// workspace's file sets it so: workspaceTrust lists it, withholdFrom
// leaves it out, from this one description.
type looseSetting struct {
	key string // table.key, as withheldKey names it
	// value is the setting's value when it loosens, nil otherwise.
	value func(c *Config) any
	at    func(c *Config) Pos
	what  func(v any) string
}

var looseSettings = []looseSetting{
	{"sandbox.bash",
		func(c *Config) any { return when(c.Sandbox.Bash == "off", c.Sandbox.Bash) },
		func(c *Config) Pos { return c.Sandbox.bashAt },
		func(any) string { return `[sandbox] bash = "off": shell commands run unconfined` }},
	{"sandbox.network",
		func(c *Config) any { return when(c.Sandbox.Network, true) },
		func(c *Config) Pos { return c.Sandbox.networkAt },
		func(any) string { return "[sandbox] network = true: shell commands may use the network" }},
	{"sandbox.client_terminal",
		func(c *Config) any { return when(c.Sandbox.ClientTerminal, true) },
		func(c *Config) Pos { return c.Sandbox.terminalAt },
		func(any) string {
			return "[sandbox] client_terminal = true: an ACP client's terminal runs shell commands, without the namespaces that isolate them"
		}},
	{"permissions.mode",
		func(c *Config) any { return when(c.Permissions.Mode == "allow", c.Permissions.Mode) },
		func(c *Config) Pos { return c.permModeAt },
		func(any) string { return `[permissions] mode = "allow": tools run without asking` }},
	{"permissions.approval",
		func(c *Config) any {
			return when(c.Permissions.Approval == "auto" || c.Permissions.Approval == "yolo", c.Permissions.Approval)
		},
		func(c *Config) Pos { return c.approvalAt },
		func(v any) string {
			return fmt.Sprintf("[permissions] approval = %q: edits and commands run without asking", v)
		}},
}

// when is v if cond holds, else nil.
func when(cond bool, v any) any {
	if cond {
		return v
	}
	return nil
}

// digest identifies an entry by its content: what kind of entry it is,
// and its settings, as JSON.
func digest(content ...any) string {
	h := sha256.New()
	for _, v := range content {
		b, _ := json.Marshal(v)
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// The contents of entries, for their digests: the settings without
// where they are set, the same whether a layer holds them or the merged
// configuration does.
func providerContent(p ProviderConfig) []any {
	p.At, p.keyAt, p.kindAt = Pos{}, Pos{}, Pos{}
	if p.Kind == "" {
		p.Kind = "openai" // as validate makes it
	}
	return []any{"provider", p}
}

func pluginContent(p PluginConfig) []any {
	p.At = Pos{}
	return []any{"plugin", p}
}

func graphContent(g GraphServer) []any {
	g.At = Pos{}
	return []any{"graph server", g}
}

// ruleItem is the item of an allow rule.
func ruleItem(at Pos, rule string) TrustItem {
	return TrustItem{At: at, What: fmt.Sprintf("[permissions] allow %q: runs without asking", rule), Digest: digest("permissions.allow", rule)}
}

// pluginTarget says what an MCP server entry starts or where it
// connects, with the headers and variables it is given as written, and
// the ${VAR}s in them that will stay empty because the user did not name
// them in [trust] env.
func (c *Config) pluginTarget(p PluginConfig) string {
	prog := Program{URL: p.URL}
	if p.Transport() == "stdio" {
		prog = Program{Command: append([]string{p.Command}, p.Args...)}
	}
	what := prog.target()
	pairs := func(m map[string]string) string {
		var out []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, k+"="+word(m[k]))
		}
		return clip(strings.Join(out, " "))
	}
	if len(p.Headers) > 0 {
		what += ", headers " + pairs(p.Headers)
	}
	if len(p.Env) > 0 {
		what += ", environment " + pairs(p.Env)
	}
	if p.ClientID != "" || p.ClientSecret != "" {
		what += ", OAuth client " + pairs(map[string]string{"client_id": p.ClientID, "client_secret": p.ClientSecret})
	}
	unnamed := map[string]bool{}
	lookup := c.lookupFor(p.At, unnamed)
	for _, v := range append(append([]string{p.Command, p.URL, p.ClientID, p.ClientSecret}, p.Args...), slices.Collect(maps.Values(p.Headers))...) {
		ExpandWith(v, lookup)
	}
	for _, v := range p.Env {
		ExpandWith(v, lookup)
	}
	if len(unnamed) > 0 {
		var names []string
		for _, n := range slices.Sorted(maps.Keys(unnamed)) {
			names = append(names, "${"+n+"}")
		}
		verb := " stay"
		if len(names) == 1 {
			verb = " stays"
		}
		what += "; " + strings.Join(names, ", ") + verb + " empty (not in your [trust] env)"
	}
	return what
}

// workspaceRootOf resolves [sandbox] workspace_root against dir, as the
// agent does.
func (c *Config) workspaceRootOf(dir string) string {
	return workspaceRoot(dir, c.ExpandSetting(c.Sandbox.WorkspaceRoot, c.Sandbox.rootAt))
}

// ExpandSetting expands ~ and ${VAR} in a value set at at (see Expand).
// A value of the workspace's own files expands only the variables the
// user named in [trust] env; any other ${VAR} there expands to nothing,
// or to its default.
func (c *Config) ExpandSetting(v string, at Pos) string {
	return ExpandWith(v, c.lookupFor(at, nil))
}

// lookupFor returns how ${VAR} is looked up in a value set at at, with
// refused collecting the variables a workspace's value may not expand
// (nil: not collected).
func (c *Config) lookupFor(at Pos, refused map[string]bool) func(string) (string, bool) {
	if !c.fromWorkspace(at) {
		return os.LookupEnv
	}
	return func(name string) (string, bool) {
		if !slices.Contains(c.TrustSettings.Env, name) {
			if refused != nil {
				refused[name] = true
			}
			return "", false
		}
		return os.LookupEnv(name)
	}
}

// ItemAt is where an entry of a list that adds up across layers
// (allow_write, forbid_read, skills paths, rules) was first set.
func (c *Config) ItemAt(table, key, value string) Pos {
	return c.itemAt[itemKey(table, key, value)]
}

// WorkspaceRootSetting is [sandbox] workspace_root expanded, "" when it
// is not set.
func (c *Config) WorkspaceRootSetting() string {
	if c.Sandbox.WorkspaceRoot == "" {
		return ""
	}
	return c.ExpandSetting(c.Sandbox.WorkspaceRoot, c.Sandbox.rootAt)
}

// ExpandItem expands an entry of a list that adds up across layers
// (allow_write, forbid_read, skills paths), by where it was set.
func (c *Config) ExpandItem(table, key, value string) string {
	return c.ExpandSetting(value, c.ItemAt(table, key, value))
}

// withholdFrom takes out of l, a layer of the workspace's own files read
// at path, what needs trust and has not got it — the entries
// workspaceTrust lists, whose digests are not among c.trusted — and the
// model references that lead to the providers taken out. Scalars taken
// out are recorded for withheldKey. Turning an MCP server off needs no
// trust and stays.
func (c *Config) withholdFrom(l *Config, path string) {
	dir := Canonical(filepath.Dir(path))
	untrusted := func(content ...any) bool { return !c.trusted[digest(content...)] }
	var gone []string // the providers taken out, and their models
	l.Providers = slices.DeleteFunc(l.Providers, func(p ProviderConfig) bool {
		if untrusted(providerContent(p)...) {
			gone = append(append(gone, p.Name), p.ModelList()...)
			return true
		}
		return false
	})
	l.Plugins = slices.DeleteFunc(l.Plugins, func(p PluginConfig) bool { return p.On() && untrusted(pluginContent(p)...) })
	l.Graph.Servers = slices.DeleteFunc(l.Graph.Servers, func(g GraphServer) bool { return untrusted(graphContent(g)...) })
	l.Permissions.Allow = slices.DeleteFunc(l.Permissions.Allow, func(r string) bool { return untrusted("permissions.allow", r) })
	l.Sandbox.AllowWrite = slices.DeleteFunc(l.Sandbox.AllowWrite, func(d string) bool { return untrusted("sandbox.allow_write", d) })

	keys := map[string]bool{}
	for key, ref := range map[string]string{
		"default_model":          l.DefaultModel,
		"agent.planner_model":    l.Agent.PlannerModel,
		"agent.summary_model":    l.Agent.SummaryModel,
		"agent.escalation_model": l.Agent.EscalationModel,
		"agent.subagent_model":   l.Agent.SubagentModel,
	} {
		name, _, _ := strings.Cut(ref, "/")
		keys[key] = ref != "" && (slices.Contains(gone, name) || slices.Contains(gone, ref))
	}
	for _, ls := range looseSettings {
		v := ls.value(l)
		keys[ls.key] = v != nil && untrusted(ls.key, v)
	}
	s := l.Sandbox
	if s.WorkspaceRoot != "" {
		outside := !within(workspaceRoot(dir, c.ExpandSetting(s.WorkspaceRoot, Pos{File: path})), dir)
		keys["sandbox.workspace_root"] = outside && untrusted("sandbox.workspace_root", s.WorkspaceRoot)
	}
	if f := l.Agent.SystemPromptFile; f != "" {
		if !filepath.IsAbs(f) {
			f = filepath.Join(filepath.Dir(path), f)
		}
		keys["agent.system_prompt_file"] = !within(Canonical(f), dir) && untrusted("agent.system_prompt_file", f)
	}
	l.withheldKeys = keys
}

// withheldKey reports whether withholdFrom took the setting key (a
// table's name and the key) out of l.
func (l *Config) withheldKey(key ...string) bool {
	return l.withheldKeys[strings.Join(key, ".")]
}
