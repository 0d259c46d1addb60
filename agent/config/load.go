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
		if f := userClaudeSettings(); f != "" {
			c.loadClaudeSettings(f)
		}
	}
	if opts.Dir != "" {
		if err := c.loadFile(filepath.Join(opts.Dir, ProjectFileName), true); err != nil {
			return err
		}
		for _, f := range workspaceClaudeSettings(opts.Dir) {
			c.loadClaudeSettings(f)
		}
	}
	if opts.File != "" {
		if err := c.loadFile(opts.File, false); err != nil {
			return err
		}
	}
	// MCP servers in Claude Code's shape, in its precedence, a name
	// taken by [[plugins]] or an earlier one left out: the local scope of
	// `claude mcp add` (the user's, for this workspace), the project's
	// .mcp.json, then the user scope.
	var st *claudeState
	if !opts.SkipUser {
		st = c.readClaudeState()
	}
	c.addClaudeLocal(st, opts.Dir)
	if opts.Dir != "" {
		c.loadMCPJSON(opts.Dir)
	}
	c.addClaudeUser(st)
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
	if e := c.Agent.ReasoningEffort; e != "" && !ValidEffort(e) {
		return &Error{At: c.Agent.reasoningEffortAt, Msg: fmt.Sprintf("[agent] reasoning_effort must be low, medium or high, not %q", e)}
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
	switch c.Tools.Profile {
	case "", "full", "lean":
	default:
		return &Error{At: c.Tools.profileAt, Msg: fmt.Sprintf("[tools] profile must be full or lean, not %q", c.Tools.Profile)}
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
