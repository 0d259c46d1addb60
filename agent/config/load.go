package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/reasonix/reasonix/agent/provider"
)

// Options says which layers Load reads.
type Options struct {
	// Dir is the workspace; its reasonix.toml is the project layer.
	Dir string
	// File is the --config flag's file, the highest file layer.
	File string
	// SkipUser leaves out the user file (tests, --no-user-config).
	SkipUser bool
	// TrustHash, when set, accepts the workspace's configuration if what
	// in it needs trust has this digest (WorkspaceTrust.Hash, or a prefix
	// of at least 12 hex digits): `reasonix run --trust`. A value that
	// does not match is an error, so that a changed repository fails a
	// script rather than running without what it expected.
	TrustHash string
}

// Load reads and merges every layer. What the workspace's own files bring
// that needs trust (see WorkspaceTrust) is left out unless the user
// trusted it; Config.Workspace says what and why. A configuration error
// carries the warnings gathered before it (see Error.Warnings).
func Load(opts Options) (*Config, error) {
	full := Defaults()
	if err := full.load(opts); err != nil {
		return nil, full.withWarnings(err)
	}
	t := full.workspaceTrust(opts.Dir)
	var trusted map[string]bool
	if len(t.Items) > 0 {
		trusted = trustedDigests(t.Dir)
		all := true
		for i := range t.Items {
			t.Items[i].Trusted = trusted[t.Items[i].Digest]
			all = all && t.Items[i].Trusted
		}
		switch {
		case opts.TrustHash != "" && t.matches(opts.TrustHash):
			t.Trusted, t.By = true, ByFlag
		case opts.TrustHash != "":
			// The workspace is where the mismatch is: a zero At would
			// blame the built-in defaults.
			return nil, &Error{At: Pos{File: t.Dir}, Msg: fmt.Sprintf("--trust %s does not match this workspace's configuration, whose digest is %s: review it with `reasonix trust`",
				opts.TrustHash, t.ShortHash()), Warnings: slices.Clone(full.Warnings)}
		case all:
			t.Trusted, t.By = true, ByRecord
		}
	}
	c := full
	if t.Untrusted() {
		// Load again, leaving out of the workspace's files what the user
		// has not trusted: entries they replaced by name come back as
		// the user's files had them.
		c = Defaults()
		c.withhold, c.trusted = true, trusted
		if err := c.load(opts); err != nil {
			return nil, c.withWarnings(err)
		}
	}
	if err := c.validate(); err != nil {
		return nil, c.withWarnings(err)
	}
	c.Workspace = t
	return c, nil
}

// load merges the layers of opts into c, without validating the result.
func (c *Config) load(opts Options) error {
	c.wsFiles = workspaceFiles(opts.Dir)
	if !opts.SkipUser {
		user, err := UserFile()
		if err != nil {
			return err
		}
		if err := c.loadFile(user, true); err != nil {
			return err
		}
	}
	if opts.Dir != "" {
		if err := c.loadFile(filepath.Join(opts.Dir, ProjectFileName), true); err != nil {
			return err
		}
	}
	if opts.File != "" {
		if err := c.loadFile(opts.File, false); err != nil {
			return err
		}
	}
	if opts.Dir != "" {
		c.loadMCPJSON(opts.Dir)
	}
	return nil
}

// loadFile overlays one file. A missing file is skipped when optional.
func (c *Config) loadFile(path string, optional bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		path = abs
	}
	return c.overlaySource(path, string(data))
}

// OverlayTOML applies TOML text as a layer above what is loaded; name is
// used in error messages. Editors' settings arrive this way.
func (c *Config) OverlayTOML(name, src string) error {
	if err := c.overlaySource(name, src); err != nil {
		return c.withWarnings(err)
	}
	if err := c.withWarnings(c.validate()); err != nil {
		return err
	}
	// The editor's settings are the user's word: a workspace's entry they
	// replace no longer needs trust, and one they add needs none.
	if c.Workspace.Dir != "" && !c.withhold {
		t := c.workspaceTrust(c.Workspace.Dir)
		t.Trusted, t.By = c.Workspace.Trusted, c.Workspace.By
		c.Workspace = t
	}
	return nil
}

// withWarnings attaches c's warnings to a configuration error.
func (c *Config) withWarnings(err error) error {
	var ce *Error
	if errors.As(err, &ce) && len(c.Warnings) > 0 {
		ce.Warnings = slices.Clone(c.Warnings)
	}
	return err
}

func (c *Config) overlaySource(path, src string) error {
	var layer Config
	md, err := toml.Decode(src, &layer)
	loc := newLocator(src)
	if err != nil {
		return decodeError(path, src, loc, err)
	}
	for _, k := range md.Undecoded() {
		table, key := splitKey(k)
		at := Pos{File: path, Line: loc.find(table, 0, key)}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: unknown setting %q (ignored)", at, k.String()))
	}
	c.overlay(&layer, md, path, loc)
	c.Files = append(c.Files, path)
	return nil
}

// decodeError places an error of the TOML decoder at its line: a syntax
// error, or a value of the wrong type for its setting.
func decodeError(path, src string, loc *locator, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		// Count lines up to the offending byte: the decoder reports an
		// error at a line's end as being on the next line.
		line := pe.Position.Line
		if start := pe.Position.Start; start > 0 && start <= len(src) {
			line = 1 + strings.Count(src[:start], "\n")
		}
		return &Error{At: Pos{File: path, Line: line}, Msg: "invalid TOML: " + pe.Message}
	}
	// A type mismatch is a plain error whose text alone names the key
	// and, when the decoder knows it, the line.
	m := typeError.FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{At: Pos{File: path}, Msg: "invalid config: " + strings.TrimPrefix(err.Error(), "toml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	key := m[2]
	parts := strings.Split(key, ".")
	if n := entryLine(src, loc, parts, m[3]); n > 0 {
		line = n
	} else if line == 0 {
		table, last := splitKey(parts)
		line = loc.find(table, 0, last)
	}
	return &Error{At: Pos{File: path, Line: line},
		Msg: fmt.Sprintf("%q must be %s, not %s", key, tomlType(m[4]), tomlType(m[3]))}
}

// typeError matches the decoder's error for a value of the wrong type:
// the line (when known), the key, the value's Go type and the setting's.
var typeError = regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "([^"]*)"\): incompatible types: TOML value has type (.+); destination has type (.+)$`)

// entryLine finds the line of a setting of an array of tables
// ([[providers]] name = …) whose value has the Go type valueType. The
// decoder names the line of the key's last definition, which is another
// entry's when several define it. It returns 0 for other keys.
func entryLine(src string, loc *locator, key []string, valueType string) int {
	if len(key) != 2 {
		return 0
	}
	var raw map[string]any
	if _, err := toml.Decode(src, &raw); err != nil {
		return 0
	}
	entries, _ := raw[key[0]].([]map[string]any)
	for i, e := range entries {
		if v, ok := e[key[1]]; ok && strings.ReplaceAll(fmt.Sprintf("%T", v), "interface {}", "any") == valueType {
			return loc.find(key[0], i, key[1])
		}
	}
	return 0
}

// tomlType names a type of the decoder's messages as the TOML spec does.
func tomlType(goType string) string {
	switch {
	case goType == "int64" || goType == "integer":
		return "an integer"
	case goType == "float64" || goType == "float":
		return "a float"
	case goType == "bool" || goType == "boolean":
		return "a boolean"
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "[]") || goType == "slice":
		return "an array"
	case strings.HasPrefix(goType, "map[") || goType == "map":
		return "a table"
	case strings.HasPrefix(goType, "time.") || strings.HasPrefix(goType, "toml.Local"):
		return "a date or time"
	}
	return goType
}

// splitKey separates a key into its table and last component.
func splitKey(k toml.Key) (string, string) {
	if len(k) == 0 {
		return "", ""
	}
	return strings.Join(k[:len(k)-1], "."), k[len(k)-1]
}

// overlay merges the keys a layer defines over c. Scalars replace; rule
// lists add up (a deny rule anywhere still denies); providers and plugins
// replace entries of the same name and add new ones.
func (c *Config) overlay(l *Config, md toml.MetaData, path string, loc *locator) {
	set := func(key ...string) bool { return md.IsDefined(key...) }
	ws := c.fromWorkspace(Pos{File: path})
	if ws && set("trust") {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: [trust] is read only from your own configuration (ignored)", Pos{File: path, Line: loc.find("trust", 0, "")}))
	} else if set("trust", "env") {
		c.TrustSettings.Env = append(c.TrustSettings.Env, l.TrustSettings.Env...)
	}
	if ws && c.withhold {
		c.withholdFrom(l, path)
		set = func(key ...string) bool { return md.IsDefined(key...) && !l.withheldKey(key...) }
	}
	if set("default_model") {
		c.DefaultModel = l.DefaultModel
		c.defaultModelAt = Pos{File: path, Line: loc.find("", 0, "default_model")}
	}
	if set("review") {
		c.Review = l.Review
		c.reviewAt = Pos{File: path, Line: loc.find("", 0, "review")}
	}
	for i := range l.Providers {
		p := l.Providers[i]
		p.At = Pos{File: path, Line: loc.find("providers", i, "")}
		p.keyAt = Pos{File: path, Line: loc.find("providers", i, "api_key_env")}
		p.kindAt = Pos{File: path, Line: loc.find("providers", i, "kind")}
		c.putProvider(p)
	}
	a := &c.Agent
	if set("agent", "max_steps") {
		a.MaxSteps = l.Agent.MaxSteps
	}
	if set("agent", "system_prompt") {
		a.SystemPrompt = l.Agent.SystemPrompt
	}
	if set("agent", "system_prompt_file") {
		a.SystemPromptFile = l.Agent.SystemPromptFile
		if a.SystemPromptFile != "" && !filepath.IsAbs(a.SystemPromptFile) {
			a.SystemPromptFile = filepath.Join(filepath.Dir(path), a.SystemPromptFile)
		}
		a.systemPromptFileAt = Pos{File: path, Line: loc.find("agent", 0, "system_prompt_file")}
	}
	if set("agent", "planner_model") {
		a.PlannerModel = l.Agent.PlannerModel
	}
	if set("agent", "temperature") {
		a.Temperature = l.Agent.Temperature
	}
	if set("agent", "max_tokens") {
		a.MaxTokens = l.Agent.MaxTokens
	}
	if set("agent", "token_budget") {
		a.TokenBudget = l.Agent.TokenBudget
	}
	if set("agent", "cost_budget") {
		a.CostBudget = l.Agent.CostBudget
	}
	if set("agent", "compact_ratio") {
		a.CompactRatio = l.Agent.CompactRatio
		a.compactRatioAt = Pos{File: path, Line: loc.find("agent", 0, "compact_ratio")}
	}
	if set("agent", "escalation_model") {
		a.EscalationModel = l.Agent.EscalationModel
		a.escalationModelAt = Pos{File: path, Line: loc.find("agent", 0, "escalation_model")}
	}
	if set("agent", "summary_model") {
		a.SummaryModel = l.Agent.SummaryModel
		a.summaryModelAt = Pos{File: path, Line: loc.find("agent", 0, "summary_model")}
	}
	if set("agent", "task_max_steps") {
		a.TaskMaxSteps = l.Agent.TaskMaxSteps
	}
	if set("agent", "task_token_budget") {
		a.TaskTokenBudget = l.Agent.TaskTokenBudget
	}
	if set("agent", "planner_max_steps") {
		a.PlannerMaxSteps = l.Agent.PlannerMaxSteps
	}
	if set("agent", "repair") {
		a.Repair = l.Agent.Repair
	}
	if set("agent", "check_edits") {
		a.CheckEdits = l.Agent.CheckEdits
	}
	if set("tools", "enabled") {
		c.Tools.Enabled = l.Tools.Enabled
	}
	if set("tools", "mcp_call_timeout_seconds") {
		c.Tools.MCPCallTimeoutSeconds = l.Tools.MCPCallTimeoutSeconds
	}
	if set("tools", "bash_timeout_seconds") {
		c.Tools.BashTimeoutSeconds = l.Tools.BashTimeoutSeconds
	}
	p := &c.Permissions
	if set("permissions", "mode") {
		p.Mode = l.Permissions.Mode
		c.permModeAt = Pos{File: path, Line: loc.find("permissions", 0, "mode")}
	}
	if set("permissions", "approval") {
		p.Approval = l.Permissions.Approval
		c.approvalAt = Pos{File: path, Line: loc.find("permissions", 0, "approval")}
	}
	p.Allow = c.addItems(p.Allow, l.Permissions.Allow, path, loc, "permissions", "allow")
	p.Ask = c.addItems(p.Ask, l.Permissions.Ask, path, loc, "permissions", "ask")
	p.Deny = c.addItems(p.Deny, l.Permissions.Deny, path, loc, "permissions", "deny")
	s := &c.Sandbox
	if set("sandbox", "workspace_root") {
		s.WorkspaceRoot = l.Sandbox.WorkspaceRoot
		s.rootAt = Pos{File: path, Line: loc.find("sandbox", 0, "workspace_root")}
	}
	s.AllowWrite = c.addItems(s.AllowWrite, l.Sandbox.AllowWrite, path, loc, "sandbox", "allow_write")
	s.ForbidRead = c.addItems(s.ForbidRead, l.Sandbox.ForbidRead, path, loc, "sandbox", "forbid_read")
	if set("sandbox", "bash") {
		s.Bash = l.Sandbox.Bash
		s.bashAt = Pos{File: path, Line: loc.find("sandbox", 0, "bash")}
	}
	if set("sandbox", "network") {
		s.Network = l.Sandbox.Network
		s.networkAt = Pos{File: path, Line: loc.find("sandbox", 0, "network")}
	}
	if set("sandbox", "client_terminal") {
		s.ClientTerminal = l.Sandbox.ClientTerminal
		s.terminalAt = Pos{File: path, Line: loc.find("sandbox", 0, "client_terminal")}
	}
	k := &c.Skills
	k.Paths = c.addItems(k.Paths, l.Skills.Paths, path, loc, "skills", "paths")
	k.ExcludedPaths = c.addItems(k.ExcludedPaths, l.Skills.ExcludedPaths, path, loc, "skills", "excluded_paths")
	k.DisabledSkills = c.addItems(k.DisabledSkills, l.Skills.DisabledSkills, path, loc, "skills", "disabled_skills")
	g := &c.Graph
	if set("graph", "enabled") {
		g.Enabled = l.Graph.Enabled
	}
	if set("graph", "verify_after_edit") {
		g.VerifyAfterEdit = l.Graph.VerifyAfterEdit
	}
	if set("graph", "settle_ms") {
		g.SettleMS = l.Graph.SettleMS
	}
	for i, srv := range l.Graph.Servers {
		srv.At = Pos{File: path, Line: loc.find("graph.servers", i, "")}
		replaced := false
		for i := range g.Servers {
			if g.Servers[i].Name == srv.Name {
				g.Servers[i], replaced = srv, true
			}
		}
		if !replaced {
			g.Servers = append(g.Servers, srv)
		}
	}
	for i := range l.Plugins {
		pl := l.Plugins[i]
		pl.At = Pos{File: path, Line: loc.find("plugins", i, "")}
		c.putPlugin(pl)
	}
}

// addItems appends a layer's entries of the list table.key to list and
// remembers where each was first set.
func (c *Config) addItems(list, layer []string, path string, loc *locator, table, key string) []string {
	for _, v := range layer {
		k := itemKey(table, key, v)
		if _, ok := c.itemAt[k]; ok {
			continue
		}
		if c.itemAt == nil {
			c.itemAt = map[string]Pos{}
		}
		c.itemAt[k] = Pos{File: path, Line: loc.findItem(table, key, v)}
	}
	return append(list, layer...)
}

func itemKey(table, key, value string) string { return table + "." + key + "\x00" + value }

func (c *Config) putProvider(p ProviderConfig) {
	for i := range c.Providers {
		if c.Providers[i].Name == p.Name && p.Name != "" {
			c.Providers[i] = p
			return
		}
	}
	c.Providers = append(c.Providers, p)
}

func (c *Config) putPlugin(p PluginConfig) {
	for i := range c.Plugins {
		if c.Plugins[i].Name == p.Name && p.Name != "" {
			c.Plugins[i] = p
			return
		}
	}
	c.Plugins = append(c.Plugins, p)
}

// validate checks the merged configuration.
func (c *Config) validate() error {
	seen := map[string]bool{}
	for i := range c.Providers {
		p := &c.Providers[i]
		if p.Name == "" {
			return &Error{At: p.At, Msg: "a [[providers]] entry has no name"}
		}
		if strings.ContainsAny(p.Name, "/ ") {
			return &Error{At: p.At, Msg: fmt.Sprintf("provider name %q may not contain '/' or spaces", p.Name)}
		}
		if seen[p.Name] {
			return &Error{At: p.At, Msg: fmt.Sprintf("provider %q is declared twice", p.Name)}
		}
		seen[p.Name] = true
		if p.Kind == "" {
			p.Kind = "openai"
		}
		if !provider.Known(p.Kind) {
			return &Error{At: p.kindAt, Msg: fmt.Sprintf("provider %q has unknown kind %q (known kinds: %s)", p.Name, p.Kind, strings.Join(provider.Kinds(), ", "))}
		}
		if p.BaseURL == "" {
			return &Error{At: p.At, Msg: fmt.Sprintf("provider %q has no base_url", p.Name)}
		}
		if p.DefaultModel() == "" {
			return &Error{At: p.At, Msg: fmt.Sprintf("provider %q declares no model (set model, or models and default)", p.Name)}
		}
		if p.Default != "" && len(p.Models) > 0 && !contains(p.Models, p.Default) {
			return &Error{At: p.At, Msg: fmt.Sprintf("provider %q: default %q is not in models %v", p.Name, p.Default, p.Models)}
		}
		if p.ContextWindow < 0 {
			return &Error{At: p.At, Msg: fmt.Sprintf("provider %q: context_window must not be negative (0 turns compaction off)", p.Name)}
		}
	}
	if r := c.Agent.CompactRatio; !(r > 0 && r <= 1) {
		return &Error{At: c.Agent.compactRatioAt, Msg: fmt.Sprintf("[agent] compact_ratio must be above 0 and at most 1, not %v", r)}
	}
	switch c.Review {
	case "", "apply", "propose":
	default:
		return &Error{At: c.reviewAt, Msg: fmt.Sprintf("review must be apply or propose, not %q", c.Review)}
	}
	switch c.Permissions.Mode {
	case "", "ask", "allow", "deny":
	default:
		return &Error{At: c.permModeAt, Msg: fmt.Sprintf("[permissions] mode must be ask, allow or deny, not %q", c.Permissions.Mode)}
	}
	switch c.Permissions.Approval {
	case "", "ask", "auto", "yolo":
	default:
		return &Error{At: c.approvalAt, Msg: fmt.Sprintf("[permissions] approval must be ask, auto or yolo, not %q", c.Permissions.Approval)}
	}
	switch c.Sandbox.Bash {
	case "", "enforce", "off":
	default:
		return &Error{At: c.Sandbox.bashAt, Msg: fmt.Sprintf("[sandbox] bash must be enforce or off, not %q", c.Sandbox.Bash)}
	}
	if c.Agent.MaxSteps < 0 || c.Agent.TokenBudget < 0 || c.Agent.CostBudget < 0 || c.Agent.TaskMaxSteps < 0 || c.Agent.TaskTokenBudget < 0 || c.Agent.PlannerMaxSteps < 0 ||
		c.Tools.BashTimeoutSeconds < 0 || c.Tools.MCPCallTimeoutSeconds < 0 {
		return &Error{Msg: "max_steps, token_budget, cost_budget, task_max_steps, task_token_budget, planner_max_steps, bash_timeout_seconds and mcp_call_timeout_seconds must not be negative"}
	}
	seenPlugin := map[string]bool{}
	for _, p := range c.Plugins {
		if p.Name == "" {
			return &Error{At: p.At, Msg: "a [[plugins]] entry has no name"}
		}
		if seenPlugin[p.Name] {
			return &Error{At: p.At, Msg: fmt.Sprintf("plugin %q is declared twice", p.Name)}
		}
		seenPlugin[p.Name] = true
		if !p.On() {
			continue // nothing else of it is used
		}
		if err := p.check(); err != nil {
			return &Error{At: p.At, Msg: fmt.Sprintf("plugin %q: %v", p.Name, err)}
		}
	}
	return nil
}
