package config

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Security is the part of a configuration that decides what the agent may
// do without asking: the shell jail, where the file tools may write and
// what no tool may read, the permission rules and posture, the programs
// Reasonix starts or connects to on the agent's behalf, and where the
// model's API keys are sent.
//
// A shell command or a cloned repository can change these in a config
// file so that the next session is weaker. Reasonix keeps the Security of
// each workspace's last session and shows what Loosened since (see
// agent.ReviewConfig). It is stored as JSON; list entries and programs
// keep where they were set, so a removed deny rule can be traced to the
// file it was taken from.
type Security struct {
	Sandbox     SandboxSecurity    `json:"sandbox"`
	Permissions PermissionSecurity `json:"permissions"`
	// Plugins are the MCP servers, by name.
	Plugins map[string]Program `json:"plugins,omitempty"`
	// GraphServers are the configured language servers, by name.
	GraphServers map[string]Program `json:"graph_servers,omitempty"`
	// APIKeys are the providers that send a key, by name.
	APIKeys map[string]KeyUse `json:"api_keys,omitempty"`
	// Hooks are the hooks in force, by hookKey: programs run outside the
	// jail.
	Hooks map[string]Program `json:"hooks,omitempty"`
}

// SandboxSecurity is the security part of [sandbox].
type SandboxSecurity struct {
	Bash    string `json:"bash"` // enforce or off
	Network bool   `json:"network"`
	// ClientTerminal is [sandbox] client_terminal.
	ClientTerminal bool `json:"client_terminal,omitempty"`
	// WorkspaceRoot is the resolved, absolute root the file tools write
	// in.
	WorkspaceRoot string         `json:"workspace_root"`
	AllowWrite    map[string]Pos `json:"allow_write,omitempty"`
	ForbidRead    map[string]Pos `json:"forbid_read,omitempty"`

	bashAt, networkAt, rootAt, terminalAt Pos
}

// PermissionSecurity is [permissions]; rules by their text.
type PermissionSecurity struct {
	Mode     string         `json:"mode"`     // ask, allow or deny
	Approval string         `json:"approval"` // ask, auto or yolo
	Allow    map[string]Pos `json:"allow,omitempty"`
	Ask      map[string]Pos `json:"ask,omitempty"`
	Deny     map[string]Pos `json:"deny,omitempty"`

	modeAt, approvalAt Pos
}

// Program is a server Reasonix starts, or connects to, for the agent.
type Program struct {
	Off bool `json:"off,omitempty"`
	// Command is the program and its arguments, as configured (before
	// ${VAR} expansion); URL is a remote server's address.
	Command []string `json:"command,omitempty"`
	URL     string   `json:"url,omitempty"`
	// Env is a digest of the environment it is given, which can change
	// what a program runs (NODE_OPTIONS, LD_PRELOAD) but may hold secrets.
	Env string `json:"env,omitempty"`
	// Trusted are the tools whose read-only hint is believed: they run
	// without asking.
	Trusted []string `json:"trusted_read_only_tools,omitempty"`
	At      Pos      `json:"at"`
}

// KeyUse says where a provider sends the API key it reads.
type KeyUse struct {
	KeyEnv  string `json:"api_key_env"`
	BaseURL string `json:"base_url"`
	At      Pos    `json:"at"`
}

// Security returns the security settings of c for the workspace dir.
func (c *Config) Security(dir string) Security {
	s := Security{
		Sandbox: SandboxSecurity{
			Bash:           cmp.Or(c.Sandbox.Bash, "enforce"),
			Network:        c.Sandbox.Network,
			ClientTerminal: c.Sandbox.ClientTerminal,
			WorkspaceRoot:  workspaceRoot(dir, c.WorkspaceRootSetting()),
			AllowWrite:     c.items("sandbox", "allow_write", c.Sandbox.AllowWrite),
			ForbidRead:     c.items("sandbox", "forbid_read", c.Sandbox.ForbidRead),
			bashAt:         c.Sandbox.bashAt,
			networkAt:      c.Sandbox.networkAt,
			terminalAt:     c.Sandbox.terminalAt,
			rootAt:         c.Sandbox.rootAt,
		},
		Permissions: PermissionSecurity{
			Mode:       cmp.Or(c.Permissions.Mode, "ask"),
			Approval:   cmp.Or(c.Permissions.Approval, "ask"),
			Allow:      c.items("permissions", "allow", c.Permissions.Allow),
			Ask:        c.items("permissions", "ask", c.Permissions.Ask),
			Deny:       c.items("permissions", "deny", c.Permissions.Deny),
			modeAt:     c.permModeAt,
			approvalAt: c.approvalAt,
		},
	}
	for _, p := range c.Plugins {
		prog := Program{Off: !p.On(), URL: p.URL, Env: envDigest(p.Env), At: p.At}
		if p.Transport() == "stdio" {
			prog.URL = ""
			prog.Command = append([]string{p.Command}, p.Args...)
		}
		prog.Trusted = slices.Sorted(slices.Values(p.TrustedReadOnlyTools))
		s.Plugins = put(s.Plugins, p.Name, prog)
	}
	for _, g := range c.Graph.Servers {
		s.GraphServers = put(s.GraphServers, g.Name, Program{Command: g.Command, At: g.At})
	}
	for _, e := range c.hookList {
		s.Hooks = put(s.Hooks, hookKey(e.hook), Program{Command: []string{e.hook.Command}, At: e.at})
	}
	for _, p := range c.Providers {
		if p.APIKeyEnv == "" {
			continue
		}
		at := p.keyAt
		if at.File == "" {
			at = p.At
		}
		s.APIKeys = put(s.APIKeys, p.Name, KeyUse{KeyEnv: p.APIKeyEnv, BaseURL: strings.TrimRight(p.BaseURL, "/"), At: at})
	}
	return s
}

func put[V any](m map[string]V, k string, v V) map[string]V {
	if m == nil {
		m = map[string]V{}
	}
	m[k] = v
	return m
}

// items maps each entry of a list to where it was first set.
func (c *Config) items(table, key string, list []string) map[string]Pos {
	var out map[string]Pos
	for _, v := range list {
		out = put(out, v, c.itemAt[itemKey(table, key, v)])
	}
	return out
}

// workspaceRoot resolves [sandbox] workspace_root, expanded, against dir
// as the agent does.
func workspaceRoot(dir, setting string) string {
	root := dir
	if setting != "" {
		root = setting
		if !filepath.IsAbs(root) {
			root = filepath.Join(dir, root)
		}
	}
	return Canonical(root)
}

func envDigest(env map[string]string) string {
	if len(env) == 0 {
		return ""
	}
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(env)) {
		fmt.Fprintf(h, "%q=%q\n", k, env[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// A Change is one way a configuration lets the agent do more than
// another: At is where the new value is set, or, for an entry no longer
// listed, where it was.
type Change struct {
	At   Pos
	What string
}

func (c Change) String() string { return c.At.String() + ": " + c.What }

// Loosened lists the ways cur lets the agent do more than old: the jail
// or its network rule off, a wider workspace root, a new writable
// directory, a readable secret location, a laxer mode or posture, a new
// allow rule, a removed ask or deny rule, a program started or changed,
// an API key sent to a new address. What tightens is not listed.
func Loosened(old, cur Security) []Change {
	var out []Change
	add := func(at Pos, format string, args ...any) {
		out = append(out, Change{At: at, What: fmt.Sprintf(format, args...)})
	}
	o, s := old.Sandbox, cur.Sandbox
	if o.Bash != "off" && s.Bash == "off" {
		add(s.bashAt, `[sandbox] bash = "off": shell commands run unconfined`)
	}
	if !o.Network && s.Network {
		add(s.networkAt, "[sandbox] network = true: shell commands may use the network")
	}
	if !o.ClientTerminal && s.ClientTerminal {
		add(s.terminalAt, "[sandbox] client_terminal = true: an ACP client's terminal runs shell commands, without the namespaces that isolate them")
	}
	if !within(s.WorkspaceRoot, o.WorkspaceRoot) {
		add(s.rootAt, "[sandbox] workspace_root = %q: the file tools may write there", s.WorkspaceRoot)
	}
	added(o.AllowWrite, s.AllowWrite, func(v string, at Pos) { add(at, "[sandbox] allow_write adds %q", v) })
	added(s.ForbidRead, o.ForbidRead, func(v string, at Pos) { add(at, "[sandbox] forbid_read no longer has %q", v) })

	op, p := old.Permissions, cur.Permissions
	if rank(modes, p.Mode) > rank(modes, op.Mode) {
		add(p.modeAt, "[permissions] mode = %q (was %q)", p.Mode, op.Mode)
	}
	if rank(postures, p.Approval) > rank(postures, op.Approval) {
		add(p.approvalAt, "[permissions] approval = %q (was %q)", p.Approval, op.Approval)
	}
	added(op.Allow, p.Allow, func(v string, at Pos) { add(at, "[permissions] allow adds %q", v) })
	added(p.Ask, op.Ask, func(v string, at Pos) { add(at, "[permissions] ask no longer has %q", v) })
	added(p.Deny, op.Deny, func(v string, at Pos) { add(at, "[permissions] deny no longer has %q", v) })

	out = append(out, loosenedPrograms("MCP server", old.Plugins, cur.Plugins)...)
	out = append(out, loosenedPrograms("language server", old.GraphServers, cur.GraphServers)...)
	out = append(out, loosenedPrograms("hook", old.Hooks, cur.Hooks)...)

	sent := map[[2]string]bool{}
	for _, k := range old.APIKeys {
		sent[[2]string{k.KeyEnv, k.BaseURL}] = true
	}
	for _, name := range slices.Sorted(maps.Keys(cur.APIKeys)) {
		if k := cur.APIKeys[name]; !sent[[2]string{k.KeyEnv, k.BaseURL}] {
			add(k.At, "provider %q sends $%s to %s", name, k.KeyEnv, k.BaseURL)
		}
	}
	return out
}

// Orders from strictest to laxest.
var (
	modes    = []string{"deny", "ask", "allow"}
	postures = []string{"ask", "auto", "yolo"}
)

// rank places v in order; an unknown value counts as the laxest.
func rank(order []string, v string) int {
	if i := slices.Index(order, v); i >= 0 {
		return i
	}
	return len(order)
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// added calls f, in order, for each entry of cur not in old.
func added(old, cur map[string]Pos, f func(v string, at Pos)) {
	for _, v := range slices.Sorted(maps.Keys(cur)) {
		if _, ok := old[v]; !ok {
			f(v, cur[v])
		}
	}
}

// loosenedPrograms lists the programs of cur that run and did not run as
// they do now in old, and the tools they newly trust.
func loosenedPrograms(kind string, old, cur map[string]Program) []Change {
	var out []Change
	add := func(at Pos, format string, args ...any) {
		out = append(out, Change{At: at, What: fmt.Sprintf(format, args...)})
	}
	for _, name := range slices.Sorted(maps.Keys(cur)) {
		p := cur[name]
		if p.Off {
			continue
		}
		o, had := old[name]
		switch {
		case !had:
			add(p.At, "new %s %q %s", kind, name, p.target())
		case o.Off:
			add(p.At, "%s %q is turned on and %s", kind, name, p.target())
		case !slices.Equal(o.Command, p.Command) || o.URL != p.URL:
			add(p.At, "%s %q now %s", kind, name, p.target())
		case o.Env != p.Env:
			add(p.At, "%s %q runs with a changed environment", kind, name)
		}
		for _, tool := range p.Trusted {
			if !slices.Contains(o.Trusted, tool) {
				add(p.At, "%s %q trusts %q as read-only: it runs without asking", kind, name, tool)
			}
		}
	}
	return out
}

// target says what a program runs or where it connects, quoting what
// would be ambiguous and cutting what is long.
func (p Program) target() string {
	if len(p.Command) == 0 {
		return "connects to " + clip(word(p.URL))
	}
	words := make([]string, len(p.Command))
	for i, w := range p.Command {
		words[i] = word(w)
	}
	return "runs " + clip(strings.Join(words, " "))
}

// word quotes w when it is empty, has spaces or quotes, or has characters
// that would not show as themselves.
func word(w string) string {
	if w == "" || strings.ContainsAny(w, " \t\"'\\") || strconv.Quote(w) != `"`+w+`"` {
		return strconv.Quote(w)
	}
	return w
}

func clip(s string) string {
	const max = 200
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
