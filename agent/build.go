package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/gitdir"
	"github.com/reasonix/reasonix/tools/history"
	"github.com/reasonix/reasonix/tools/hooks"
	"github.com/reasonix/reasonix/tools/mcp"
	"github.com/reasonix/reasonix/tools/memory"
	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// Options are the parts of an Agent that the front end decides.
type Options struct {
	// Context bounds starting the MCP servers: cancelling it (the user
	// pressing Ctrl-C) stops those still starting. Nil means no bound but
	// their own start timeouts.
	Context context.Context
	// Dir is the directory Reasonix was started in; the workspace root
	// unless [sandbox] workspace_root says otherwise.
	Dir string
	// Model overrides default_model (the --model flag).
	Model string
	// Approver asks the user about "ask" decisions; nil for unattended
	// runs, where they are refused unless the posture allows them.
	Approver permission.Approver
	// Plans approves plans made in plan mode; nil when no one can.
	Plans permission.PlanApprover
	// Asker puts the ask tool's questions to the user; nil when no one
	// can be asked, and the model proceeds on an assumption.
	Asker tools.Asker
	// Notify reports permission notices to the user.
	Notify func(string)
	// Refused hears of each call refused because it needed approval and
	// there is no Approver.
	Refused func(permission.Refusal)
	// FS replaces the disk (the LSP server's editor overlay).
	FS tools.FS
	// BeforeShell runs before every shell command, so that edits held
	// only in the editor's buffers reach the disk first; the note it
	// returns is shown to the model. Nil when there is no editor.
	BeforeShell func(ctx context.Context) (note string, err error)
	// Terminal runs shell commands in the editor's terminal, confined as
	// they would be without it; nil runs them in Reasonix's own pipes.
	Terminal tools.Terminal
	// Sink receives events.
	Sink func(Event)
	// Warn reports problems the user should see that do not stop the
	// agent: an MCP server that cannot start, a plugin setting refused.
	// nil sends them to Notify.
	Warn func(string)
	// Services shares project graphs and MCP servers among the agents
	// built with it; nil gives the agent its own, closed by Agent.Close.
	Services *Services
	// Version is the binary's version, reported to MCP servers.
	Version string
	// SignIn shows the user the authorization page of an MCP server that
	// wants a sign-in: the editor's window/showDocument, a browser. Nil
	// leaves such a server waiting for reasonix mcp login.
	SignIn mcp.Opener
}

// Build assembles an Agent from configuration, step by step: the
// provider, the workspace root, the tools offered, the sandbox, the tools'
// environment, the permission gate, the system prompt, and then the
// services shared or owned (shell processes, the project graph, the MCP
// plugins). The built-in tools must be linked in (import tools/builtin) by
// the caller.
func Build(cfg *config.Config, opts Options) (*Agent, error) {
	prov, res, err := newProvider(cfg, opts.Model)
	if err != nil {
		return nil, err
	}
	root, err := workspaceRoot(cfg, opts.Dir)
	if err != nil {
		return nil, err
	}
	home, err := config.Home()
	if err != nil {
		return nil, err
	}
	reg, err := offeredTools(cfg)
	if err != nil {
		return nil, err
	}
	guard, jail := newSandbox(cfg, opts.Dir, root, home)
	env, disk := newEnv(cfg, opts, root, home, guard, jail)
	// The tools see the editor's documents when there is an editor.
	fsys := opts.FS
	if fsys == nil {
		fsys = disk
	}
	gate, err := newGate(cfg, opts, env, fsys)
	if err != nil {
		return nil, err
	}
	system, err := systemPrompt(cfg)
	if err != nil {
		return nil, err
	}
	summarizer, err := newSummarizer(cfg, res)
	if err != nil {
		return nil, err
	}
	escalation, err := newEscalation(cfg, res)
	if err != nil {
		return nil, err
	}

	a := &Agent{
		Provider:        prov,
		Model:           res.Model,
		ModelRef:        res.String(),
		Tools:           reg,
		Env:             env,
		Disk:            disk,
		Gate:            gate,
		Plans:           opts.Plans,
		MaxSteps:        cfg.Agent.MaxSteps,
		TokenBudget:     cfg.Agent.TokenBudget,
		Escalation:      escalation,
		CostBudget:      cfg.Agent.CostBudget,
		TaskMaxSteps:    cfg.Agent.TaskMaxSteps,
		TaskTokenBudget: cfg.Agent.TaskTokenBudget,
		PlannerMaxSteps: cfg.Agent.PlannerMaxSteps,
		NoRepair:        !config.On(cfg.Agent.Repair, true),
		ParallelMax:     ParallelFromEnv(),
		Temperature:     cfg.Agent.Temperature,
		MaxTokens:       cfg.Agent.MaxTokens,
		ReasoningEffort: cfg.Agent.ReasoningEffort,
		Sink:            opts.Sink,
		Store:           &Store{Dir: filepath.Join(home, "sessions")},
		SystemPrompt:    system,
		CommandDirs:     CommandDirs(root, home, userHome()),
		AgentDirs:       AgentDirs(root, home, userHome()),
		config:          cfg,
		models:          &models{},
		// Shell commands' changes are tracked for the agent's life.
		shells:     &shellTracking{},
		ownsShells: true,
	}
	if opts.Services != nil {
		// An editor rebuilds its agent when its settings change: the
		// tracking is the workspace's, kept across rebuilds, as its
		// language servers are. Other sandbox settings skip other
		// files, and get tracking of their own.
		if st, ok := opts.Services.shellTracking(root, cfg.Sandbox); ok {
			a.shells, a.ownsShells = st, false
		}
	}
	if a.ownsShells {
		// An agent dropped without being closed lets the watch go with
		// it (and its copies, which a running turn may still hold, then
		// list the workspace in full).
		runtime.AddCleanup(a, func(s *shellTracking) { s.close() }, a.shells)
	}
	if p, ok := res.Provider.PriceOf(res.Model); ok {
		a.Price = &p
	}
	a.ContextWindow, a.CompactRatio, a.Summarizer = res.Provider.ContextWindow, cfg.Agent.CompactRatio, summarizer
	keys := providerKeys(cfg)
	a.Secrets = secrets(keys)
	// Commands the agent runs do not inherit the keys.
	env.HideEnv = append(env.HideEnv, keys...)
	if hs := cfg.Hooks(); len(hs) > 0 {
		// The user's own programs, run as the user runs them: outside
		// the sandbox, in the workspace, without the model's keys.
		a.Hooks = &hooks.Runner{Hooks: hs, Dir: root, Env: tools.WithoutVars(os.Environ(), env.HideEnv)}
	}

	a.attachProcesses(opts, root, jail)
	a.ownsJail = jail != nil
	a.attachGraph(cfg, opts, root, fsys, keys)
	a.attachPlugins(cfg, opts, root)
	// Subagent is set before the planner, as the agents onModel makes
	// are copies of a: a session that /model switches to the planner's
	// model still runs its tasks on subagent_model.
	if ref := cfg.Agent.SubagentModel; ref != "" {
		if a.Subagent, err = a.onModel(ref); err != nil {
			a.Close()
			return nil, fmt.Errorf("subagent_model %q: %w", ref, err)
		}
	}
	if ref := cfg.Agent.PlannerModel; ref != "" {
		if a.Planner, err = a.onModel(ref); err != nil {
			a.Close()
			return nil, fmt.Errorf("planner_model %q: %w", ref, err)
		}
	}
	if _, ok := reg.Get("bash"); ok && env.Root != "" {
		// The workspace is listed while the user writes the first
		// prompt and the model answers it.
		a.shells.warm(env)
	}
	return a, nil
}

// newProvider resolves the model reference (default_model when ref is
// empty) and the provider's API key, and creates the provider. A missing
// key is not an error here but at the first request (see keyless).
func newProvider(cfg *config.Config, ref string) (provider.Provider, config.Resolved, error) {
	res, err := cfg.ResolveModel(ref)
	if err != nil {
		return nil, res, err
	}
	key, keyErr := res.Provider.APIKey()
	prov, err := provider.New(res.Provider.Kind, provider.Config{
		Name:    res.Provider.Name,
		BaseURL: res.Provider.BaseURL,
		Model:   res.Model,
		APIKey:  key,
		Options: res.Provider.Options,
	})
	if err != nil {
		return nil, res, &config.Error{At: res.Provider.At, Msg: err.Error()}
	}
	if keyErr != nil {
		prov = &keyless{Provider: prov, err: noKeyError{keyErr}}
	}
	return prov, res, nil
}

// A keyless provider stands for one whose API key is not set. The agent
// is built all the same, so that what asks no model — /help, /trust,
// /mcp, listing commands — works before the user has a key; the key is
// demanded when a request would be sent: a turn fails before it starts
// (Agent.modelReady), anything else at its first request, with the error
// that names the variable to set.
type keyless struct {
	provider.Provider
	err error
}

func (k *keyless) Stream(context.Context, provider.Request, func(provider.Chunk)) (provider.Response, error) {
	return provider.Response{}, k.err
}

// ErrNoKey is in the chain of the error of a turn or request that needs
// a model whose API key is not set, for front ends that ask for the key
// in their own way (ACP's authentication).
var ErrNoKey = errors.New("no API key")

// noKeyError is the configuration's missing-key error, worded as it is,
// that also matches ErrNoKey.
type noKeyError struct{ err error }

func (e noKeyError) Error() string        { return e.err.Error() }
func (e noKeyError) Unwrap() error        { return e.err }
func (e noKeyError) Is(target error) bool { return target == ErrNoKey }

// modelReady returns the missing-key error of the first model a turn may
// ask (the session's, the planner's, the task helpers', the
// escalation's, the summarizer's) whose key is not set, so that a turn that cannot run fails before it
// starts rather than after the prompt is logged.
func (a *Agent) modelReady() error {
	provs := []provider.Provider{a.Provider}
	if a.Planner != nil {
		provs = append(provs, a.Planner.Provider)
	}
	if a.Subagent != nil {
		provs = append(provs, a.Subagent.Provider)
	}
	if a.Escalation != nil {
		provs = append(provs, a.Escalation.Provider)
	}
	if a.Summarizer != nil {
		provs = append(provs, a.Summarizer.Provider)
	}
	for _, p := range provs {
		if k, ok := p.(*keyless); ok {
			return k.err
		}
	}
	return nil
}

// newEscalation builds the model of [agent] escalation_model, or returns
// nil when it is unset or names the session's own model.
func newEscalation(cfg *config.Config, session config.Resolved) (*Escalation, error) {
	res, ok, err := cfg.EscalationModel()
	if err != nil || !ok || res.String() == session.String() {
		return nil, err
	}
	prov, res, price, err := otherModel(cfg, res)
	if err != nil {
		return nil, err
	}
	return &Escalation{Provider: prov, Model: res.Model, ModelRef: res.String(), Price: price}, nil
}

// otherModel builds the provider of a model other than the session's,
// with its price (nil when unknown).
func otherModel(cfg *config.Config, ref config.Resolved) (provider.Provider, config.Resolved, *config.Price, error) {
	prov, res, err := newProvider(cfg, ref.String())
	if err != nil {
		return nil, res, nil, err
	}
	if p, ok := res.Provider.PriceOf(res.Model); ok {
		return prov, res, &p, nil
	}
	return prov, res, nil, nil
}

// newSummarizer builds the model of [agent] summary_model, or returns nil
// when it is unset or names the session's own model.
func newSummarizer(cfg *config.Config, session config.Resolved) (*Summarizer, error) {
	res, ok, err := cfg.SummaryModel()
	if err != nil || !ok || res.String() == session.String() {
		return nil, err
	}
	prov, res, price, err := otherModel(cfg, res)
	if err != nil {
		return nil, err
	}
	sm := &Summarizer{Provider: prov, Model: res.Model, ModelRef: res.String(), Window: res.Provider.ContextWindow, Price: price}
	return sm, nil
}

// workspaceRoot is the directory the agent works in: dir, unless
// [sandbox] workspace_root names another (relative to dir), as an
// absolute path with symbolic links resolved.
func workspaceRoot(cfg *config.Config, dir string) (string, error) {
	root := dir
	if setting := cfg.WorkspaceRootSetting(); setting != "" {
		root = setting
		if !filepath.IsAbs(root) {
			root = filepath.Join(dir, root)
		}
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("workspace root %s is not a directory", root)
	}
	return root, nil
}

// OpenMemory returns the memory a session started in dir would have:
// the user's notes and those of the workspace root, read under the same
// sandbox. For front ends that list it.
func OpenMemory(cfg *config.Config, dir string) (*memory.Store, error) {
	root, err := workspaceRoot(cfg, dir)
	if err != nil {
		return nil, err
	}
	home, err := config.Home()
	if err != nil {
		return nil, err
	}
	guard, _ := newSandbox(cfg, dir, root, home)
	return memory.New(home, root, guard.CheckRead), nil
}

// needsGraph reports whether t works on the project graph (its family
// is graph, or it says so): such tools are not offered when [graph] is
// turned off.
func needsGraph(t tools.Tool) bool {
	if g, ok := t.(tools.GraphUser); ok && g.UsesGraph() {
		return true
	}
	d, ok := t.(tools.Describer)
	return ok && d.Traits().Family == permission.FamilyGraph
}

// offeredTools is the registry of the tools the agent offers: the built-in
// ones of [tools] profile that [tools] enabled allows, less those that
// need a project graph when [graph] is turned off, then exit_plan_mode
// and todo_write, and task unless [tools] enabled lists tools and not it — or, in the
// lean profile, unless it lists task.
func offeredTools(cfg *config.Config) (*tools.Registry, error) {
	enabled := slices.DeleteFunc(slices.Clone(cfg.Tools.Enabled), func(n string) bool { return n == taskName })
	listsTask := len(enabled) < len(cfg.Tools.Enabled)
	withTask := len(cfg.Tools.Enabled) == 0 || listsTask
	builtins, err := tools.DefaultRegistry(enabled)
	if cfg.Tools.Profile == tools.ProfileLean {
		builtins, err = tools.LeanRegistry(enabled)
		withTask = listsTask
	}
	if err != nil {
		return nil, err
	}
	graphOn := config.On(cfg.Graph.Enabled, true)
	offered, err := builtins.Pick(func(t tools.Tool) bool { return graphOn || !needsGraph(t) })
	if err != nil {
		return nil, err
	}
	if withTask {
		return offered.With(ExitPlanTool(), TodoTool(), TaskTool())
	}
	return offered.With(ExitPlanTool(), TodoTool())
}

// newSandbox returns the guard over the tools' file access — writes within
// the workspace root, Reasonix's home and [sandbox] allow_write; no reads
// of the user's secrets or of [sandbox] forbid_read; Reasonix's control
// files protected — and the jail of shell commands, nil when [sandbox]
// bash = "off". dir is where Reasonix was started.
func newSandbox(cfg *config.Config, dir, root, home string) (*sandbox.Policy, *sandbox.Jail) {
	writeRoots := []string{root, home}
	for _, d := range cfg.Sandbox.AllowWrite {
		writeRoots = append(writeRoots, absUnder(root, cfg.ExpandItem("sandbox", "allow_write", d)))
	}
	userHome, _ := os.UserHomeDir()
	forbid := append(sandbox.HomeDefaults(userHome), sandbox.SystemSecrets()...)
	// Reasonix's own key file, where a key may be saved, and the MCP
	// servers' sign-ins.
	forbid = append(forbid, filepath.Join(home, ".env"), mcpAuthDir(home))
	for _, d := range cfg.Sandbox.ForbidRead {
		forbid = append(forbid, absUnder(root, cfg.ExpandItem("sandbox", "forbid_read", d)))
	}
	guard := sandbox.New(writeRoots, forbid)
	// The workspace's and the user's Reasonix files, wherever Reasonix
	// was started from, and the repositories' git directories.
	guard.Protect(cfg.ControlPaths(home, root, dir)...)
	guard.ProtectGit(slices.Concat(gitdir.Dirs(root), gitdir.Dirs(dir))...)
	var jail *sandbox.Jail
	if cfg.Sandbox.Bash != "off" {
		jail = sandbox.NewJail(guard, cfg.Sandbox.Network)
		// Out of the commands' reach, as Reasonix's directory is.
		jail.Layers = filepath.Join(home, "layers")
	}
	return guard, jail
}

// newEnv returns the environment the tools run in, and the disk beneath
// the guard. Its FS is set by newGate, its services by the attach steps.
func newEnv(cfg *config.Config, opts Options, root, home string, guard *sandbox.Policy, jail *sandbox.Jail) (*tools.Env, tools.DiskFS) {
	disk := tools.DiskFS{Roots: guard.WriteRoots}
	env := &tools.Env{
		Root:        root,
		Home:        home,
		Asker:       opts.Asker,
		Guard:       guard,
		BashTimeout: time.Duration(cfg.Tools.BashTimeoutSeconds) * time.Second,
		BeforeShell: opts.BeforeShell,
		Terminal:    opts.Terminal,
		Control:     &tools.ControlWatch{Paths: watched(guard.Control, home), GitDirs: guard.GitDirs, Root: root, Disk: disk},
	}
	if jail != nil {
		env.Jail = jail
	}
	if home != "" {
		env.History = history.New(filepath.Join(home, "sessions"), env.CheckRead)
	}
	env.Skills = skillConfig(cfg, root, home, userHome())
	if opts.Approver != nil {
		env.EscalateUnconfined = escalation(withNotification(opts.Approver))
	}
	return env, disk
}

// newGate returns the permission gate of [permissions], whose grants are
// written to the project's reasonix.toml, and puts the tools' writes
// through it: env's FS becomes fsys behind the write seam.
func newGate(cfg *config.Config, opts Options, env *tools.Env, fsys tools.FS) (*permission.Checker, error) {
	policy, err := permission.NewPolicy(cfg.Permissions.Mode, cfg.Permissions.Allow, cfg.Permissions.Ask, cfg.Permissions.Deny)
	if err != nil {
		return nil, fmt.Errorf("[permissions]: %w", err)
	}
	policy.Root = env.Root
	posture, err := permission.ParsePosture(cfg.Permissions.Approval)
	if err != nil {
		return nil, fmt.Errorf("[permissions]: %w", err)
	}
	projectFile := filepath.Join(env.Root, config.ProjectFileName)
	gate := &permission.Checker{
		Policy:   policy,
		Posture:  posture,
		Approver: withNotification(opts.Approver),
		Notify:   opts.Notify,
		Refused:  opts.Refused,
		Persist:  func(rule string) error { return config.AppendRule(projectFile, "allow", rule) },
	}
	// A grant written to reasonix.toml is the user's word: the record of
	// the configuration, and the watch over control files, take it in.
	persist := recordingGrants(gate.Persist, env.Root)
	gate.Persist = func(rule string) error {
		err := persist(rule)
		env.Control.Accept(projectFile)
		return err
	}
	if rules := gate.ReadRules(); rules != nil {
		// Walks, listings and confined reads keep to the rules about
		// reading too.
		env.ReadRules = rules
	}
	env.FS = &writeSeam{FS: fsys, env: env, policy: policy, gate: gate}
	return gate, nil
}

// systemPrompt is [agent] system_prompt, or the contents of
// system_prompt_file when that is set; empty means the built-in prompt,
// the lean profile's own short one for that profile.
func systemPrompt(cfg *config.Config) (string, error) {
	f := cfg.Agent.SystemPromptFile
	if f == "" {
		if cfg.Agent.SystemPrompt == "" && cfg.Tools.Profile == tools.ProfileLean {
			return leanSystemPrompt, nil
		}
		return cfg.Agent.SystemPrompt, nil
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return "", fmt.Errorf("[agent] system_prompt_file: %w", err)
	}
	return string(b), nil
}

// secrets are the values of the named environment variables that are
// set: the providers' keys, which must not reach the model.
func secrets(names []string) []Secret {
	var out []Secret
	for _, name := range names {
		if v := os.Getenv(name); v != "" {
			out = append(out, Secret{Name: name, Value: v})
		}
	}
	return out
}

// attachProcesses gives the agent the host its shell commands run under
// and the list of their background jobs. What commands leave running ends
// with the session — with the editor's server, or the removal of the
// workspace folder, when it shares its services among agents.
func (a *Agent) attachProcesses(opts Options, root string, jail *sandbox.Jail) {
	if _, ok := a.Tools.Get("bash_output"); ok {
		// Background jobs only where their output can be read; shared
		// with the workspace's later agents where services are.
		var shared bool
		if opts.Services != nil {
			a.Env.Jobs, shared = opts.Services.jobs(root)
		}
		if !shared {
			a.Env.Jobs, a.ownsJobs = &tools.Jobs{}, true
		}
	}
	mkHost := func() *sandbox.Host { return sandbox.NewHost(jail) }
	if opts.Services != nil {
		a.Env.Procs = opts.Services.processHost(root, jail, mkHost)
		return
	}
	a.Env.Procs = mkHost()
	a.ownsProcs = true
}

// attachGraph gives the agent the project graph of root, unless [graph] is
// turned off: shared through opts.Services, or its own. Its language
// servers do not inherit the environment variables hideEnv names.
func (a *Agent) attachGraph(cfg *config.Config, opts Options, root string, fsys tools.FS, hideEnv []string) {
	if !config.On(cfg.Graph.Enabled, true) {
		return
	}
	mk := func() tools.ProjectGraph { return newProjectGraph(root, fsys, cfg.Graph, hideEnv) }
	if opts.Services != nil {
		a.Env.Graph = opts.Services.graph(root, cfg.Graph, mk)
	} else {
		a.Env.Graph = mk()
		a.ownsGraph = true
	}
	a.VerifyAfterEdit = a.Env.Graph != nil && config.On(cfg.Graph.VerifyAfterEdit, true)
	a.CheckEdits = a.Env.Graph != nil && config.On(cfg.Agent.CheckEdits, true)
	a.TestEdits = a.Env.Graph != nil && config.On(cfg.Graph.TestProposals, true)
}

// attachPlugins starts, or takes from opts.Services, the MCP servers of
// [[plugins]], and tells the user (opts.Warn, else opts.Notify) of their
// problems and of a server that changes its tools.
func (a *Agent) attachPlugins(cfg *config.Config, opts Options, root string) {
	if len(cfg.Plugins) == 0 {
		return
	}
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
		if opts.Notify != nil {
			warn = opts.Notify
		}
	}
	if opts.Services != nil {
		ctx := opts.Services.startContext()
		a.Plugins = opts.Services.pluginManager(root, cfg.Plugins, func() *mcp.Manager {
			return StartPlugins(ctx, cfg, root, opts.Version, opts.SignIn, warn)
		})
	} else {
		a.Plugins = StartPlugins(cmp.Or(opts.Context, context.Background()), cfg, root, opts.Version, opts.SignIn, warn)
		a.ownsPlugins = true
	}
	if a.Plugins != nil {
		a.Plugins.OnToolsChanged(func(server string) {
			warn(fmt.Sprintf("MCP server %q changed its tools; sessions started from now on offer the new list", server))
		})
	}
}

// escalation asks the user, through the same approver as every permission
// question, whether a command the shell sandbox may have blocked should
// run again outside it. Only "no" (or no answer) refuses; the answer is
// never remembered, since it is about one command's failure.
func escalation(ap permission.Approver) func(ctx context.Context, command, reason string) bool {
	return func(ctx context.Context, command, reason string) bool {
		args, _ := json.Marshal(map[string]string{"command": command})
		ans, err := ap.Approve(ctx, permission.Prompt{
			Request:    permission.Request{Tool: "bash", Args: args},
			Scope:      "this command, once, outside the sandbox",
			Why:        reason,
			Escalation: reason,
		})
		return err == nil && ans != permission.AnswerDeny
	}
}

// watched returns the control paths to keep unchanged around commands:
// all of them, but of Reasonix's own directory, which holds the sessions
// Reasonix writes meanwhile, only the user config file.
func watched(control []string, home string) []string {
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	var out []string
	for _, c := range control {
		if c != home {
			out = append(out, c)
		}
	}
	if user, err := config.UserFile(); err == nil {
		out = append(out, user)
	}
	return out
}

// userHome is the user's home directory, "" when there is none.
func userHome() string {
	h, _ := os.UserHomeDir()
	return h
}

func absUnder(root, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}

// WorkspaceRoot is the workspace a session started in dir works in, as
// its header records it: for front ends that look sessions up by
// workspace.
func WorkspaceRoot(cfg *config.Config, dir string) (string, error) { return workspaceRoot(cfg, dir) }
