package acp

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/tools"
)

// The modes a session offers. Ask follows the permission rules (asking
// before changes), auto allows what only the mode fallback would ask,
// plan keeps the session read-only until the user approves a plan: the
// [permissions] approval posture and the plan mode of the language
// server, under the names editors show in their mode picker.
const (
	modeAsk  = "ask"
	modeAuto = "auto"
	// modeYolo is offered only when the configuration chose it: a
	// client cannot loosen the posture that far.
	modeYolo = "yolo"
	modePlan = "plan"
)

// modelConfigID is the configuration option that picks the model.
const modelConfigID = "model"

// session is one ACP session: an agent session, the agents that run its
// turns (one per approval posture, built on first use from the same
// configuration, sharing the connection's services), and what its
// running turn has announced.
type session struct {
	s   *Server
	cwd string
	// mcp is the client's MCP servers as a config layer.
	mcp string
	fs  *clientFS

	mu sync.Mutex // guards every field below
	// id is the agent session's, set once the session is made; sess is
	// that session.
	id string
	// agents by posture ("" for the configured one).
	agents map[string]*agent.Agent
	cfg    *config.Config
	sess   *agent.Session
	// mode is the mode the user picked; posture the approval posture
	// ask and auto stand for (plan keeps the one before it); base the
	// configured posture, whose agent is agents[""].
	mode, posture, base string
	// cancel stops the running turn; nil when idle. idle is closed when
	// that turn ends.
	cancel context.CancelFunc
	idle   chan struct{}
	// calls are the tool calls of the running turn, by id.
	calls map[string]*callState
	// open are the calls started and not finished, in order, to find the
	// one a permission question is about.
	open []string
	// notes are told the user once the client knows the session.
	notes []string
	// warned are the configuration warnings told (tellWarnings).
	warned []string
	// trustAsked is set once the session asked whether to trust the
	// folder's configuration (offerTrust).
	trustAsked bool
}

// callState is what a tool call announced.
type callState struct {
	name  string
	kind  acpsdk.ToolKind
	paths []string
}

// buildConfig loads the configuration of cwd, with the client's MCP
// servers and, when posture is set, the approval posture above it. What
// the files loosened since the last session (agent.ReviewConfig) is told
// the user when the session starts (notes).
func (ss *session) buildConfig(posture string) (*config.Config, error) {
	s, cwd, mcpLayer := ss.s, ss.cwd, ss.mcp
	// A failed configuration's warnings go with its error, which the
	// client shows: an unknown (misspelt) setting is often what the error
	// is about. OverlayTOML's errors carry them too.
	cfg, err := config.Load(config.Options{Dir: cwd, File: s.opts.ConfigFile})
	if err != nil {
		return nil, config.Explain(err, nil)
	}
	for _, msg := range agent.ReviewConfig(cfg, cwd) {
		s.log.Warn("config", "review", msg)
		ss.mu.Lock()
		ss.notes = append(ss.notes, msg)
		ss.mu.Unlock()
	}
	if mcpLayer != "" {
		if err := cfg.OverlayTOML("session/new mcpServers", mcpLayer); err != nil {
			return nil, config.Explain(err, nil)
		}
	}
	if posture != "" {
		if err := cfg.OverlayTOML("session mode", fmt.Sprintf("[permissions]\napproval = %q\n", posture)); err != nil {
			return nil, config.Explain(err, nil)
		}
	}
	return cfg, nil
}

// agentFor returns the session's agent for a posture, building it on
// first use.
func (ss *session) agentFor(posture string) (*agent.Agent, error) {
	ss.mu.Lock()
	if posture == ss.base {
		posture = ""
	}
	a, ok := ss.agents[posture]
	ss.mu.Unlock()
	if ok {
		return a, nil
	}
	cfg, err := ss.buildConfig(posture)
	if err != nil {
		return nil, err
	}
	s := ss.s
	var term tools.Terminal
	if s.client().Terminal && clientTerminalAllowed(cfg) {
		term = &terminal{ss: ss}
	}
	a, err = agent.Build(cfg, agent.Options{
		Context:  s.ctx,
		Dir:      ss.cwd,
		Approver: &approver{ss: ss},
		Plans:    &approver{ss: ss},
		Asker:    &asker{ss: ss},
		Notify:   func(msg string) { ss.thought("Reasonix: " + msg) },
		FS:       ss.fs,
		Terminal: term,
		Sink:     s.event,
		Warn:     func(msg string) { ss.thought("Reasonix: " + msg) },
		Services: s.services,
		Version:  s.opts.Version,
	})
	if err != nil {
		return nil, config.Explain(err, cfg.Warnings)
	}
	ss.tellWarnings(cfg.Warnings)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if prev, ok := ss.agents[posture]; ok {
		a.Close()
		return prev, nil
	}
	ss.agents[posture] = a
	if posture == "" {
		ss.cfg = cfg
	}
	return a, nil
}

// tellWarnings tells the user, as thoughts, the configuration warnings
// the session has not told yet: its agents, one a posture, load the same
// files, and each warning is told once.
func (ss *session) tellWarnings(warnings []string) {
	for _, w := range warnings {
		ss.s.log.Warn("config", "warning", w)
		ss.mu.Lock()
		told := slices.Contains(ss.warned, w)
		if !told {
			ss.warned = append(ss.warned, w)
		}
		ss.mu.Unlock()
		if !told {
			ss.thought("Reasonix: warning: " + w)
		}
	}
}

// mcpLayer renders the client's MCP servers as [[plugins]] entries, so
// they start like configured plugins.
func mcpLayer(servers []acpsdk.McpServer) (string, error) {
	type plugin struct {
		Name    string            `toml:"name"`
		Type    string            `toml:"type,omitempty"`
		Command string            `toml:"command,omitempty"`
		Args    []string          `toml:"args,omitempty"`
		Env     map[string]string `toml:"env,omitempty"`
		URL     string            `toml:"url,omitempty"`
		Headers map[string]string `toml:"headers,omitempty"`
	}
	var plugins []plugin
	for _, m := range servers {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			plugins = append(plugins, plugin{Name: m.Stdio.Name, Type: "stdio", Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env})
		case m.Http != nil:
			plugins = append(plugins, plugin{Name: m.Http.Name, Type: "http", URL: m.Http.Url, Headers: headers(m.Http.Headers)})
		case m.Sse != nil:
			plugins = append(plugins, plugin{Name: m.Sse.Name, Type: "sse", URL: m.Sse.Url, Headers: headers(m.Sse.Headers)})
		default:
			return "", acpsdk.NewInvalidParams(map[string]any{"error": "an MCP server of a transport this agent does not offer (acp)"})
		}
	}
	if len(plugins) == 0 {
		return "", nil
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"plugins": plugins}); err != nil {
		return "", fmt.Errorf("mcpServers: %w", err)
	}
	return buf.String(), nil
}

func headers(hs []acpsdk.HttpHeader) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

// open makes a session of cwd: a new one when id is empty, else the saved
// session id, resumed.
func (s *Server) open(cwd string, servers []acpsdk.McpServer, id string) (*session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, acpsdk.NewInvalidParams(map[string]any{"error": "cwd must be an absolute path"})
	}
	layer, err := mcpLayer(servers)
	if err != nil {
		return nil, err
	}
	ss := &session{s: s, cwd: filepath.Clean(cwd), mcp: layer, agents: map[string]*agent.Agent{}, calls: map[string]*callState{}}
	ss.fs = newClientFS(ss)
	a, err := ss.agentFor("")
	if err != nil {
		return nil, requestError(err)
	}
	var sess *agent.Session
	if id == "" {
		sess, err = a.NewSession()
	} else {
		sess, err = a.Resume(id)
	}
	if err != nil {
		ss.close()
		if id != "" {
			return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		return nil, requestError(err)
	}
	ss.mu.Lock()
	ss.id, ss.sess = sess.ID, sess
	ss.base = ss.cfg.Permissions.Approval
	if ss.base == "" {
		ss.base = modeAsk
	}
	ss.mode, ss.posture = ss.base, ss.base
	ss.mu.Unlock()
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ss.close()
		return nil, requestError(errClosing)
	}
	prev := s.live[ss.id]
	s.live[ss.id] = ss
	s.mu.Unlock()
	if prev != nil {
		// The same saved session opened again: the newer wins.
		prev.close()
	}
	return ss, nil
}

// NewSession starts a session in cwd with the client's MCP servers.
func (s *Server) NewSession(_ context.Context, p acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	ss, err := s.open(p.Cwd, p.McpServers, "")
	if err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	go ss.announce()
	modes, opts := ss.state()
	return acpsdk.NewSessionResponse{SessionId: acpsdk.SessionId(ss.id), Modes: modes, ConfigOptions: opts, Models: ss.models()}, nil
}

// LoadSession opens a saved session and replays its conversation as
// session/update notifications before answering.
func (s *Server) LoadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	if p.SessionId == "" {
		return acpsdk.LoadSessionResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": "sessionId is required"})
	}
	ss, err := s.open(p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	ss.replay(ctx)
	go ss.announce()
	modes, opts := ss.state()
	return acpsdk.LoadSessionResponse{Modes: modes, ConfigOptions: opts, Models: ss.models()}, nil
}

// ResumeSession opens a saved session without replaying it.
func (s *Server) ResumeSession(_ context.Context, p acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	ss, err := s.open(p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return acpsdk.ResumeSessionResponse{}, err
	}
	modes, opts := ss.state()
	return acpsdk.ResumeSessionResponse{Modes: modes, ConfigOptions: opts, Models: ss.models()}, nil
}

// ListSessions lists the saved sessions, of cwd when given, most recent
// first.
func (s *Server) ListSessions(_ context.Context, p acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	dir := ""
	if p.Cwd != nil {
		dir = filepath.Clean(*p.Cwd)
	}
	store, err := s.store()
	if err != nil {
		return acpsdk.ListSessionsResponse{}, requestError(err)
	}
	list, err := store.List()
	if err != nil {
		return acpsdk.ListSessionsResponse{}, requestError(err)
	}
	out := acpsdk.ListSessionsResponse{Sessions: []acpsdk.SessionInfo{}}
	for _, sum := range list {
		if dir != "" && sum.Root != dir {
			continue
		}
		info := acpsdk.SessionInfo{SessionId: acpsdk.SessionId(sum.ID), Cwd: sum.Root,
			UpdatedAt: acpsdk.Ptr(sum.Updated.UTC().Format(time.RFC3339))}
		if sum.Title != "" {
			info.Title = acpsdk.Ptr(sum.Title)
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

// store is the session store every agent of this binary writes to.
func (s *Server) store() (*agent.Store, error) {
	home, err := config.Home()
	if err != nil {
		return nil, err
	}
	return &agent.Store{Dir: filepath.Join(home, "sessions")}, nil
}

// CloseSession stops the session's turn and closes it.
func (s *Server) CloseSession(_ context.Context, p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acpsdk.CloseSessionResponse{}, err
	}
	s.mu.Lock()
	delete(s.live, ss.id)
	s.mu.Unlock()
	ss.close()
	return acpsdk.CloseSessionResponse{}, nil
}

// Cancel stops the session's running turn; its prompt answers cancelled.
func (s *Server) Cancel(_ context.Context, p acpsdk.CancelNotification) error {
	if ss, err := s.session(p.SessionId); err == nil {
		ss.cancelTurn()
	} // else a notification: nothing to answer
	return nil
}

// cancelTurn stops the running turn, if any.
func (ss *session) cancelTurn() {
	ss.mu.Lock()
	if ss.cancel != nil {
		ss.cancel()
	}
	ss.mu.Unlock()
}

// SetSessionMode switches between ask, auto and plan.
func (s *Server) SetSessionMode(_ context.Context, p acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	if err := ss.setMode(string(p.ModeId)); err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	return acpsdk.SetSessionModeResponse{}, nil
}

func (ss *session) setMode(mode string) error {
	ss.mu.Lock()
	base := ss.base
	ss.mu.Unlock()
	switch {
	case mode == modeAsk, mode == modeAuto, mode == modeYolo && base == modeYolo:
		if _, err := ss.agentFor(mode); err != nil {
			return requestError(err)
		}
		ss.mu.Lock()
		ss.mode, ss.posture = mode, mode
		ss.mu.Unlock()
		ss.sess.SetPlanMode(false)
	case mode == modePlan:
		ss.mu.Lock()
		ss.mode = mode
		ss.mu.Unlock()
		ss.sess.SetPlanMode(true)
	default:
		return acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no mode %q; the modes are ask, auto and plan", mode)})
	}
	return nil
}

// SetSessionConfigOption sets the model (the one option offered).
func (s *Server) SetSessionConfigOption(_ context.Context, p acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return acpsdk.SetSessionConfigOptionResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": "no boolean option is offered"})
	}
	ss, err := s.session(v.SessionId)
	if err != nil {
		return acpsdk.SetSessionConfigOptionResponse{}, err
	}
	switch string(v.ConfigId) {
	case modelConfigID:
		if err := ss.setModel(string(v.Value)); err != nil {
			return acpsdk.SetSessionConfigOptionResponse{}, err
		}
	case "mode":
		if err := ss.setMode(string(v.Value)); err != nil {
			return acpsdk.SetSessionConfigOptionResponse{}, err
		}
	default:
		return acpsdk.SetSessionConfigOptionResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no config option %q", v.ConfigId)})
	}
	_, opts := ss.state()
	return acpsdk.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// UnstableSetSessionModel is session/set_model, which clients that
// predate the model config option send; the schema editors ship now has
// the option only.
func (s *Server) UnstableSetSessionModel(_ context.Context, p acpsdk.UnstableSetSessionModelRequest) (acpsdk.UnstableSetSessionModelResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acpsdk.UnstableSetSessionModelResponse{}, err
	}
	return acpsdk.UnstableSetSessionModelResponse{}, ss.setModel(string(p.ModelId))
}

// models is the model picker of the clients that send session/set_model.
func (ss *session) models() *acpsdk.SessionModelState {
	ss.mu.Lock()
	cfg, base := ss.cfg, ss.agents[""]
	ss.mu.Unlock()
	current := ss.sess.Model()
	if current == "" {
		current = base.ModelRef
	}
	out := &acpsdk.SessionModelState{CurrentModelId: acpsdk.ModelId(current), AvailableModels: []acpsdk.ModelInfo{}}
	for _, ref := range modelRefs(cfg, current) {
		out.AvailableModels = append(out.AvailableModels, acpsdk.ModelInfo{ModelId: acpsdk.ModelId(ref), Name: ref})
	}
	return out
}

// setModel makes the session's later turns run on ref.
func (ss *session) setModel(ref string) error {
	ss.mu.Lock()
	cfg := ss.cfg
	ss.mu.Unlock()
	res, err := cfg.ResolveModel(ref)
	if err != nil {
		return acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	ss.sess.SetModel(res.String())
	return nil
}

// state is the session's modes and configuration options, as session/new
// and session/load answer them.
func (ss *session) state() (*acpsdk.SessionModeState, []acpsdk.SessionConfigOption) {
	ss.mu.Lock()
	mode, cfg, base := ss.mode, ss.cfg, ss.base
	baseAgent := ss.agents[""]
	ss.mu.Unlock()
	modes := []acpsdk.SessionMode{
		{Id: modeAsk, Name: "Ask", Description: acpsdk.Ptr("Ask before changes, as the permission rules say")},
		{Id: modeAuto, Name: "Auto", Description: acpsdk.Ptr("Allow what only the default would ask; ask rules still ask")},
		{Id: modePlan, Name: "Plan", Description: acpsdk.Ptr("Read-only until you approve a plan")},
	}
	if base == modeYolo {
		modes = append(modes, acpsdk.SessionMode{Id: modeYolo, Name: "Yolo", Description: acpsdk.Ptr("Allow everything but the deny rules, as configured")})
	}
	var modeOpts acpsdk.SessionConfigSelectOptionsUngrouped
	for _, m := range modes {
		modeOpts = append(modeOpts, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(m.Id), Name: m.Name, Description: m.Description})
	}
	current := ss.sess.Model()
	if current == "" {
		current = baseAgent.ModelRef
	}
	var models acpsdk.SessionConfigSelectOptionsUngrouped
	for _, ref := range modelRefs(cfg, current) {
		models = append(models, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(ref), Name: ref})
	}
	modeOpt := acpsdk.NewSessionConfigOptionSelect(acpsdk.SessionConfigValueId(mode), acpsdk.SessionConfigSelectOptions{Ungrouped: &modeOpts})
	modeOpt.Select.Id, modeOpt.Select.Name = "mode", "Mode"
	modeOpt.Select.Category = acpsdk.Ptr(acpsdk.SessionConfigOptionCategoryMode)
	modelOpt := acpsdk.NewSessionConfigOptionSelect(acpsdk.SessionConfigValueId(current), acpsdk.SessionConfigSelectOptions{Ungrouped: &models})
	modelOpt.Select.Id, modelOpt.Select.Name = modelConfigID, "Model"
	modelOpt.Select.Category = acpsdk.Ptr(acpsdk.SessionConfigOptionCategoryModel)
	return &acpsdk.SessionModeState{AvailableModes: modes, CurrentModeId: acpsdk.SessionModeId(mode)},
		[]acpsdk.SessionConfigOption{modeOpt, modelOpt}
}

// modelRefs lists every configured model as provider/model, and current
// when it is none of them.
func modelRefs(cfg *config.Config, current string) []string {
	var out []string
	for _, p := range cfg.Providers {
		models := p.Models
		if len(models) == 0 && p.Model != "" {
			models = []string{p.Model}
		}
		for _, m := range models {
			out = append(out, p.Name+"/"+m)
		}
	}
	if !slices.Contains(out, current) {
		out = append(out, current)
	}
	return out
}

// close stops the turn and closes the session and its agents.
func (ss *session) close() {
	ss.mu.Lock()
	if ss.cancel != nil {
		ss.cancel()
	}
	agents := ss.agents
	ss.agents = map[string]*agent.Agent{}
	sess := ss.sess
	// Every agent of the session runs the same hooks; the base one
	// when there is one.
	base := agents[""]
	for _, a := range agents {
		base = cmp.Or(base, a)
	}
	ss.mu.Unlock()
	if sess != nil {
		if base != nil {
			base.EndSession(context.Background(), sess, "other")
		}
		if err := sess.Close(); err != nil {
			ss.s.log.Warn("closing session", "id", ss.id, "err", err)
		}
	}
	for _, a := range agents {
		a.Close()
	}
}
