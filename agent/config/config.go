// Package config configures the whole binary: it loads Reasonix's TOML
// configuration, which the commands, the language server, the agent, its
// tools and sandbox, the project graph and the MCP plugins all take their
// settings from. Layers apply in this order, later ones winning: built-in
// defaults, the user file ($HOME/.reasonix/config.toml), the project file
// (./reasonix.toml), the file named by --config, and settings pushed by an
// editor. Every value remembers where it came from, so errors can name the
// file and line.
//
// It lives under agent because the repository's top level is fixed and
// agent.Build is where configuration becomes the running parts. The
// packages below agent (tools and those under it, graph) never import
// it: the agent hands them their settings in their own types.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/reasonix/reasonix/tools/hooks"
)

// Config is the merged configuration.
type Config struct {
	DefaultModel string           `toml:"default_model"`
	Providers    []ProviderConfig `toml:"providers"`
	Agent        AgentConfig      `toml:"agent"`
	Tools        ToolsConfig      `toml:"tools"`
	Permissions  PermissionConfig `toml:"permissions"`
	Sandbox      SandboxConfig    `toml:"sandbox"`
	Graph        GraphConfig      `toml:"graph"`
	Skills       SkillsConfig     `toml:"skills"`
	Plugins      []PluginConfig   `toml:"plugins"`
	// TrustSettings is [trust], taken from the user's own files only.
	TrustSettings TrustConfig `toml:"trust"`
	// HookSettings is a layer's [hooks], as decoded; the hooks merged
	// from every source are Hooks().
	HookSettings hooks.Settings `toml:"hooks"`

	// Review says what becomes of the agent's file changes in an editor:
	// "apply" sends them into the buffers at once, "propose" keeps them
	// as proposals the user accepts or rejects hunk by hunk. Empty lets
	// the editor decide (reasonix lsp: propose, unless the client has a
	// review panel of its own).
	Review string `toml:"review"`

	// Files lists the files that were loaded, lowest precedence first.
	Files []string `toml:"-"`
	// Warnings collects problems worth telling the user that do not stop
	// Reasonix from running, such as unknown keys.
	Warnings []string `toml:"-"`
	// Workspace says what the workspace's own files bring that needs the
	// user's trust, and whether it is in force (see WorkspaceTrust).
	Workspace WorkspaceTrust `toml:"-"`
	// wsFiles are the workspace's own config files (workspaceFiles);
	// withhold leaves out of them what needs trust.
	wsFiles  []string
	withhold bool
	// trusted holds the digests of the entries the user trusted, which
	// withhold keeps.
	trusted map[string]bool
	// hookList holds the hooks in force (hooks.go).
	hookList []hookEntry
	// withheldKeys, in a layer being merged, are the settings withheld
	// for want of trust (withholdFrom).
	withheldKeys map[string]bool
	// defaultModelAt, permModeAt and approvalAt record where those values
	// were set.
	defaultModelAt, permModeAt, approvalAt, reviewAt Pos
	// itemAt records where each entry of the lists that add up across
	// layers (allow, ask, deny, allow_write, forbid_read) was first set,
	// by itemKey.
	itemAt map[string]Pos
}

// ProviderConfig is one [[providers]] entry: a vendor endpoint offering one
// or more models.
type ProviderConfig struct {
	Name          string           `toml:"name"`
	Kind          string           `toml:"kind"`
	BaseURL       string           `toml:"base_url"`
	Model         string           `toml:"model"`
	Models        []string         `toml:"models"`
	Default       string           `toml:"default"`
	APIKeyEnv     string           `toml:"api_key_env"`
	ContextWindow int              `toml:"context_window"`
	Price         *Price           `toml:"price"`
	Prices        map[string]Price `toml:"prices"`
	// Options holds kind-specific settings, passed to the provider as is.
	Options map[string]any `toml:"options"`

	// At is where the entry was declared.
	At Pos `toml:"-"`
	// keyAt and kindAt are where api_key_env and kind were set.
	keyAt, kindAt Pos
}

// Price is the cost of a model in US dollars per million tokens.
type Price struct {
	InputCacheHit  float64 `toml:"input_cache_hit" json:"input_cache_hit"`
	InputCacheMiss float64 `toml:"input_cache_miss" json:"input_cache_miss"`
	Output         float64 `toml:"output" json:"output"`
}

// Cost is the price of the given token counts.
func (p Price) Cost(hit, miss, output int) float64 {
	return (float64(hit)*p.InputCacheHit + float64(miss)*p.InputCacheMiss + float64(output)*p.Output) / 1e6
}

// AgentConfig is the [agent] table.
type AgentConfig struct {
	// MaxSteps bounds the model requests of one turn; 0 means no limit.
	MaxSteps         int      `toml:"max_steps"`
	SystemPrompt     string   `toml:"system_prompt"`
	SystemPromptFile string   `toml:"system_prompt_file"`
	PlannerModel     string   `toml:"planner_model"`
	Temperature      *float64 `toml:"temperature"`
	MaxTokens        int      `toml:"max_tokens"`
	// TokenBudget stops a session whose prompt plus completion tokens,
	// summed over all its requests, reach it; 0 means no budget.
	TokenBudget int `toml:"token_budget"`
	// CostBudget stops a session whose cost in USD reaches it, when the
	// model has a price; 0 means no budget.
	CostBudget float64 `toml:"cost_budget"`
	// CompactRatio is the share of the model's context window at which a
	// session is compacted: when a request's prompt reaches it, the next
	// one is preceded by a compaction. Default 0.8.
	CompactRatio float64 `toml:"compact_ratio"`
	// SummaryModel is a model reference for the model that writes a
	// compaction's summary; empty means the session's own model.
	SummaryModel string `toml:"summary_model"`
	// EscalationModel is a model reference for the stronger model a
	// request is sent to again when the model answers <<<NEEDS_PRO>>>;
	// "" means none.
	EscalationModel string `toml:"escalation_model"`
	// TaskMaxSteps bounds the model requests of one sub-task (the task
	// tool); 0 means max_steps. TaskTokenBudget bounds its tokens; 0
	// means no budget.
	TaskMaxSteps    int `toml:"task_max_steps"`
	TaskTokenBudget int `toml:"task_token_budget"`
	// PlannerMaxSteps bounds the planner's model requests
	// (planner_model); 0 means max_steps.
	PlannerMaxSteps int `toml:"planner_max_steps"`
	// Repair turns the tool-call repair passes (storm, scavenge,
	// truncation) on or off; unset means on.
	Repair *bool `toml:"repair"`
	// CheckEdits checks a turn's changed files with the project graph's
	// language servers before the turn ends, and gives errors the turn
	// introduced to the model for one repair round; unset means on
	// wherever a language server is configured for the file.
	CheckEdits *bool `toml:"check_edits"`
	// SubagentModel is a model reference for the helpers of the task
	// tool, unless a custom agent's file names its own; "" means the
	// session's model.
	SubagentModel string `toml:"subagent_model"`
	// ReasoningEffort is sent with each request of a turn as the
	// request's reasoning_effort: low, medium or high; "" sends none,
	// and the provider's default applies. /effort changes it for a
	// session.
	ReasoningEffort string `toml:"reasoning_effort"`

	compactRatioAt, summaryModelAt, escalationModelAt, systemPromptFileAt, reasoningEffortAt Pos
}

// ToolsConfig is the [tools] table.
type ToolsConfig struct {
	// Enabled restricts the built-in tools; empty means all.
	Enabled []string `toml:"enabled"`
	// Profile is the set of built-in tools offered and how they are
	// described: "full" (also when empty) or "lean", a few tools with
	// short descriptions for models with small context windows.
	Profile            string `toml:"profile"`
	BashTimeoutSeconds int    `toml:"bash_timeout_seconds"`
	// MCPCallTimeoutSeconds bounds an MCP tool call when its plugin sets
	// no bound of its own; 0 means the default (300 s).
	MCPCallTimeoutSeconds int `toml:"mcp_call_timeout_seconds"`

	profileAt Pos
}

// PermissionConfig is the [permissions] table.
type PermissionConfig struct {
	// Mode is the fallback for tools that change things: ask, allow or deny.
	Mode string `toml:"mode"`
	// Approval is the posture: ask (follow the rules), auto (allow what
	// only the mode fallback would ask) or yolo (allow all but denials).
	Approval string   `toml:"approval"`
	Allow    []string `toml:"allow"`
	Ask      []string `toml:"ask"`
	Deny     []string `toml:"deny"`
}

// SandboxConfig is the [sandbox] table.
type SandboxConfig struct {
	WorkspaceRoot string   `toml:"workspace_root"`
	AllowWrite    []string `toml:"allow_write"`
	ForbidRead    []string `toml:"forbid_read"`
	// Bash is "enforce" (also when empty) to run bash commands in the OS
	// sandbox, or "off" to run them unconfined.
	Bash string `toml:"bash"`
	// Network lets sandboxed bash commands use the network.
	Network bool `toml:"network"`
	// ClientTerminal lets an ACP client that offers a terminal run the
	// bash tool's commands there. They are confined by Landlock but not
	// isolated by namespaces (docs/SECURITY.md), so it is off unless
	// chosen; commands run unconfined (bash = "off") go to the terminal
	// anyway, as they lose nothing there.
	ClientTerminal bool `toml:"client_terminal"`

	bashAt, networkAt, rootAt, terminalAt Pos
}

// SkillsConfig is [skills]. Its lists add up across layers; relative
// paths are under the workspace root, and ~ and ${VAR} are expanded.
type SkillsConfig struct {
	// Paths are more directories of skills, after the project's and
	// before the user's.
	Paths []string `toml:"paths"`
	// ExcludedPaths hides the skill roots and skill folders at or under
	// them, without deleting anything.
	ExcludedPaths []string `toml:"excluded_paths"`
	// DisabledSkills names skills offered nowhere: not in the prompt, not
	// as slash commands, not to the skill tool.
	DisabledSkills []string `toml:"disabled_skills"`
}

// GraphConfig is the [graph] table: the language servers the agent
// navigates code with.
type GraphConfig struct {
	// Enabled turns the project graph on; default true.
	Enabled *bool `toml:"enabled"`
	// VerifyAfterEdit appends a changed file's new diagnostics to the
	// edit's result; default true.
	VerifyAfterEdit *bool `toml:"verify_after_edit"`
	// SettleMS bounds the wait for diagnostics after an edit; 0 means the
	// default.
	SettleMS int `toml:"settle_ms"`
	// TestProposals runs the Go tests that reach a turn's changes, on the
	// changed text, before the turn ends; default true. They run only
	// where the bash tool would run `go test` without asking.
	TestProposals *bool `toml:"test_proposals"`
	// Servers add to, or replace by name, the built-in servers (gopls,
	// pyright, typescript-language-server).
	Servers []GraphServer `toml:"servers"`
}

// GraphServer is one [[graph.servers]] entry.
type GraphServer struct {
	Name        string   `toml:"name"`
	Command     []string `toml:"command"`
	Extensions  []string `toml:"extensions"`
	RootMarkers []string `toml:"root_markers"`
	// InitializationOptions are sent to the server as they are.
	InitializationOptions map[string]any `toml:"initialization_options"`

	// At is where the entry was declared.
	At Pos `toml:"-"`
}

// Efforts are the values of [agent] reasoning_effort and /effort, from
// least to most.
var Efforts = []string{"low", "medium", "high"}

// ValidEffort reports whether e is one of Efforts.
func ValidEffort(e string) bool { return slices.Contains(Efforts, e) }

// On reports whether a *bool setting is on, given its default.
func On(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// PluginConfig is one [[plugins]] entry, an MCP server.
type PluginConfig struct {
	Name string `toml:"name"`
	// Enabled false keeps the server configured but not started; an entry
	// with just a name and enabled = false turns off a .mcp.json server.
	Enabled *bool             `toml:"enabled"`
	Type    string            `toml:"type"`
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`

	StartTimeoutSeconds  int            `toml:"start_timeout_seconds"` // connecting and listing; 0 = 30 s
	CallTimeoutSeconds   int            `toml:"call_timeout_seconds"`
	ToolTimeoutSeconds   map[string]int `toml:"tool_timeout_seconds"`
	TrustedReadOnlyTools []string       `toml:"trusted_read_only_tools"`
	// EnabledTools, when set, are the only tools of the server offered to
	// the model; DisabledTools are never offered. Both by the server's
	// own tool names.
	EnabledTools  []string `toml:"enabled_tools"`
	DisabledTools []string `toml:"disabled_tools"`

	At Pos `toml:"-"`
}

// On reports whether the plugin is enabled (the default).
func (p PluginConfig) On() bool { return On(p.Enabled, true) }

// Pos is a place in a config file. A zero Pos means a built-in default.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	switch {
	case p.File == "":
		return "built-in defaults"
	case p.Line == 0:
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// MarshalText writes the position as "file:line" ("" for the built-in
// defaults), the form it is shown in.
func (p Pos) MarshalText() ([]byte, error) {
	if p.File == "" {
		return nil, nil
	}
	return []byte(p.String()), nil
}

// UnmarshalText reads what MarshalText wrote.
func (p *Pos) UnmarshalText(b []byte) error {
	s := string(b)
	*p = Pos{File: s}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		if n, err := strconv.Atoi(s[i+1:]); err == nil && n > 0 {
			*p = Pos{File: s[:i], Line: n}
		}
	}
	return nil
}

// Error is a configuration problem at a known place.
type Error struct {
	At  Pos
	Msg string
	// Warnings are those of the layers read before the problem was found.
	// They may explain it: a misspelt key is ignored with a warning, and
	// the error is then about the setting it was meant to be.
	Warnings []string
}

func (e *Error) Error() string { return e.At.String() + ": " + e.Msg }

// Explain returns err followed, one a line, by the warnings that may
// explain it, for front ends that show a single message (an editor's
// error notice) rather than warning lines before the error as the CLI
// does. The warnings are err's own (Error.Warnings) when it carries some,
// else those given: the configuration's, when err came later, from
// building on it. errors.Is and errors.As still see err.
func Explain(err error, warnings []string) error {
	if ce := (*Error)(nil); errors.As(err, &ce) && len(ce.Warnings) > 0 {
		warnings = ce.Warnings
	}
	if err == nil || len(warnings) == 0 {
		return err
	}
	return &explained{err: err, warnings: warnings}
}

// explained is an error told with its warnings (Explain).
type explained struct {
	err      error
	warnings []string
}

func (e *explained) Error() string {
	var b strings.Builder
	b.WriteString(e.err.Error())
	for _, w := range e.warnings {
		b.WriteString("\nwarning: " + w)
	}
	return b.String()
}

func (e *explained) Unwrap() error { return e.err }

// Home is the directory of Reasonix's user files: $REASONIX_HOME when set,
// else ~/.reasonix (%AppData%\reasonix on Windows).
func Home() (string, error) {
	if h := os.Getenv("REASONIX_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("AppData"); d != "" {
			return filepath.Join(d, "reasonix"), nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the home directory: %w", err)
	}
	return filepath.Join(home, ".reasonix"), nil
}

// UserFile is the path of the user config file.
func UserFile() (string, error) {
	h, err := Home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "config.toml"), nil
}

// ProjectFileName is the project config file, looked up in the workspace
// root.
const ProjectFileName = "reasonix.toml"

// Provider returns the provider with the given name.
func (c *Config) Provider(name string) (*ProviderConfig, bool) {
	for i := range c.Providers {
		if c.Providers[i].Name == name {
			return &c.Providers[i], true
		}
	}
	return nil, false
}

// ModelList is every model the provider offers, its default first.
func (p *ProviderConfig) ModelList() []string {
	var out []string
	if d := p.DefaultModel(); d != "" {
		out = append(out, d)
	}
	for _, m := range append([]string{p.Model}, p.Models...) {
		if m != "" && !contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// DefaultModel is the model used when the provider is named alone.
func (p *ProviderConfig) DefaultModel() string {
	switch {
	case p.Default != "":
		return p.Default
	case p.Model != "":
		return p.Model
	case len(p.Models) > 0:
		return p.Models[0]
	}
	return ""
}

// PriceOf returns the price of model on this provider: a per-model entry,
// else the provider's price, else DeepSeek's list price for DeepSeek
// models. ok is false when nothing is known.
func (p *ProviderConfig) PriceOf(model string) (Price, bool) {
	if pr, ok := p.Prices[model]; ok {
		return pr, true
	}
	if p.Price != nil {
		return *p.Price, true
	}
	pr, ok := deepseekPrices[model]
	return pr, ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Resolved is a model reference resolved to a provider and model.
type Resolved struct {
	Provider *ProviderConfig
	Model    string
}

// String renders the reference in its explicit provider/model form.
func (r Resolved) String() string { return r.Provider.Name + "/" + r.Model }

// ResolveModel resolves a model reference: a provider name (its default
// model), a bare model name (the first provider offering it), or an
// explicit provider/model. An empty ref means default_model.
func (c *Config) ResolveModel(ref string) (Resolved, error) {
	return c.resolveModel(ref, Pos{File: "--model"})
}

// SummaryModel resolves [agent] summary_model, the model that writes a
// compaction's summary; ok is false when it is not set, and the session's
// own model writes it.
func (c *Config) SummaryModel() (res Resolved, ok bool, err error) {
	if c.Agent.SummaryModel == "" {
		return Resolved{}, false, nil
	}
	res, err = c.resolveModel(c.Agent.SummaryModel, c.Agent.summaryModelAt)
	return res, err == nil, err
}

// EscalationModel resolves [agent] escalation_model; ok is false when it
// is unset.
func (c *Config) EscalationModel() (res Resolved, ok bool, err error) {
	if c.Agent.EscalationModel == "" {
		return Resolved{}, false, nil
	}
	res, err = c.resolveModel(c.Agent.EscalationModel, c.Agent.escalationModelAt)
	return res, err == nil, err
}

// resolveModel resolves ref, naming at in its errors.
func (c *Config) resolveModel(ref string, at Pos) (Resolved, error) {
	if ref == "" {
		ref, at = c.DefaultModel, c.defaultModelAt
		if ref == "" {
			if len(c.Providers) == 0 {
				return Resolved{}, &Error{At: at, Msg: "no providers are configured"}
			}
			p := &c.Providers[0]
			return Resolved{Provider: p, Model: p.DefaultModel()}, nil
		}
	}
	if p, ok := c.Provider(ref); ok {
		if p.DefaultModel() == "" {
			return Resolved{}, &Error{At: p.At, Msg: fmt.Sprintf("provider %q declares no model", p.Name)}
		}
		return Resolved{Provider: p, Model: p.DefaultModel()}, nil
	}
	if name, model, ok := strings.Cut(ref, "/"); ok {
		if p, ok := c.Provider(name); ok && model != "" {
			return Resolved{Provider: p, Model: model}, nil
		}
	}
	for i := range c.Providers {
		if contains(c.Providers[i].ModelList(), ref) {
			return Resolved{Provider: &c.Providers[i], Model: ref}, nil
		}
	}
	var known []string
	for _, p := range c.Providers {
		known = append(known, fmt.Sprintf("%s (%s)", p.Name, strings.Join(p.ModelList(), ", ")))
	}
	return Resolved{}, &Error{At: at, Msg: fmt.Sprintf("model %q matches no provider name, model, or provider/model; configured: %s", ref, strings.Join(known, "; "))}
}

// APIKey reads the provider's key from the environment variable its
// api_key_env names. A provider without api_key_env needs no key.
func (p *ProviderConfig) APIKey() (string, error) {
	if p.APIKeyEnv == "" {
		return "", nil
	}
	if v := strings.TrimSpace(os.Getenv(p.APIKeyEnv)); v != "" {
		return v, nil
	}
	at := p.keyAt
	if at.File == "" {
		at = p.At
	}
	return "", &Error{At: at, Msg: fmt.Sprintf("provider %q needs an API key: set the environment variable %s", p.Name, p.APIKeyEnv)}
}
