// Package acp serves the Agent Client Protocol: JSON-RPC 2.0 over stdio,
// one message a line, spoken by editors that host agents in a panel of
// their own (Zed, JetBrains, Neovim's CodeCompanion and avante). It is a
// front end like the language server in lsp: a session/prompt becomes an
// agent.Input run by agent.RunInput, the agent's events become
// session/update notifications, permission questions become
// session/request_permission, and the agent's file writes go through the
// client's fs/write_text_file when it offers one. Sessions are the same
// JSONL sessions `reasonix lsp` and `reasonix run` keep.
//
// The wire types and the connection are github.com/coder/acp-go-sdk's
// (docs/ACP.md says why): this package only maps them onto the agent.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
)

// ProtocolVersion is the ACP major version served: the one the SDK and
// the editors' own SDK speak.
const ProtocolVersion = acpsdk.ProtocolVersionNumber

// Options configure a server.
type Options struct {
	// ConfigFile is the --config flag: a file above the project's.
	ConfigFile string
	// Version is the binary's version, reported as agentInfo.
	Version string
	// Logger receives diagnostics; stdout is the protocol stream.
	Logger *slog.Logger
}

// drainTimeout bounds how long the server answers requests still in
// flight after the client closed its end.
const drainTimeout = 10 * time.Second

// Server holds the state of one client connection: its capabilities and
// its sessions. It implements the SDK's Agent interface.
type Server struct {
	opts Options
	log  *slog.Logger
	conn *acpsdk.AgentSideConnection
	// ctx lives as long as the connection; turns derive from it.
	ctx context.Context

	// services share the project graphs and MCP servers among the agents
	// of every session of the connection.
	services *agent.Services

	mu sync.Mutex // guards caps, laterUpdates, live and closing
	// caps are what the client declared in initialize.
	caps acpsdk.ClientCapabilities
	// laterUpdates is set for a client that takes the session updates
	// protocol version 1 gained after its first schema (see
	// takesLaterUpdates).
	laterUpdates bool
	// live holds the sessions this connection opened, by id.
	live map[string]*session
	// closing is set once the connection is ending: no session opens and
	// no turn starts after it.
	closing bool

	// running counts turns in flight, so Serve can wait for them.
	running sync.WaitGroup
}

var (
	_ acpsdk.Agent       = (*Server)(nil)
	_ acpsdk.AgentLoader = (*Server)(nil)
)

// Serve speaks ACP on in and out until the client closes its end or ctx
// ends, and returns the process's exit code: 0 when the client left, 1
// when serving failed.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) int {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Server{opts: opts, log: opts.Logger, ctx: ctx, services: &agent.Services{}, live: map[string]*session{}}
	w := newWire(in, out)
	lines, start := w.lines()
	s.conn = acpsdk.NewAgentSideConnection(s, w, lines)
	s.conn.SetLogger(opts.Logger)
	start() // the handlers use s.conn: nothing arrives before it is set
	select {
	case <-s.conn.Done():
		// The client closed its end: stop the turns, and answer what it
		// asked before it left (bounded, for a handler that hangs).
		cancel()
		bound, stop := context.WithTimeout(context.Background(), drainTimeout)
		w.drain(bound.Done())
		stop()
	case <-ctx.Done():
	}
	cancel()
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.running.Wait()
	s.closeAll()
	if err := s.services.Close(); err != nil {
		s.log.Warn("closing services", "err", err)
	}
	return 0
}

// Initialize negotiates the version and says what this agent offers.
func (s *Server) Initialize(_ context.Context, p acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	s.mu.Lock()
	s.caps = p.ClientCapabilities
	s.laterUpdates = takesLaterUpdates(p)
	s.mu.Unlock()
	// A client asking for a version this agent does not speak gets the
	// latest it does; the client decides whether to go on.
	version := acpsdk.ProtocolVersion(ProtocolVersion)
	if p.ProtocolVersion < version {
		version = p.ProtocolVersion
	}
	if version < 1 {
		version = 1
	}
	return acpsdk.InitializeResponse{
		ProtocolVersion: version,
		AgentInfo:       &acpsdk.Implementation{Name: "reasonix", Title: acpsdk.Ptr("Reasonix"), Version: s.opts.Version},
		AgentCapabilities: acpsdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acpsdk.PromptCapabilities{Image: false, Audio: false, EmbeddedContext: true},
			McpCapabilities:    acpsdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: acpsdk.SessionCapabilities{
				List:   &acpsdk.SessionListCapabilities{},
				Close:  &acpsdk.SessionCloseCapabilities{},
				Resume: &acpsdk.SessionResumeCapabilities{},
			},
		},
		AuthMethods: s.authMethods(),
	}, nil
}

// authMethods offers the API key's environment variable as the way to
// authenticate when the default model's key is missing; with the key set
// (or a provider that needs none) nothing is needed.
func (s *Server) authMethods() []acpsdk.AuthMethod {
	env := s.missingKey()
	if env == "" {
		return []acpsdk.AuthMethod{}
	}
	return []acpsdk.AuthMethod{{EnvVar: &acpsdk.AuthMethodEnvVarInline{
		Id: "env:" + env, Name: "API key", Type: "env_var",
		Description: acpsdk.Ptr("Start Reasonix with " + env + " set to the model provider's API key."),
		Vars:        []acpsdk.AuthEnvVar{{Name: env}},
	}}}
}

// missingKey names the environment variable of the default model's API
// key when it is configured and unset.
func (s *Server) missingKey() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	cfg, err := config.Load(config.Options{Dir: dir, File: s.opts.ConfigFile})
	if err != nil {
		return ""
	}
	res, err := cfg.ResolveModel("")
	if err != nil || res.Provider.APIKeyEnv == "" || os.Getenv(res.Provider.APIKeyEnv) != "" {
		return ""
	}
	return res.Provider.APIKeyEnv
}

// Authenticate accepts the environment method once the key is there: the
// key is read from the environment the client started the agent with.
func (s *Server) Authenticate(_ context.Context, p acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	if env := s.missingKey(); env != "" {
		return acpsdk.AuthenticateResponse{}, acpsdk.NewAuthRequired(map[string]any{"message": env + " is not set in the agent's environment"})
	}
	return acpsdk.AuthenticateResponse{}, nil
}

// takesLaterUpdates reports whether the client of an initialize request
// takes the session updates that protocol version 1 gained after its
// first schema: config_option_update, session_info_update and
// usage_update. The version number did not change with them and no
// capability announces them, yet a client on the first schema
// (@zed-industries/agent-client-protocol 0.4) validates every update
// against the kinds it knows and rejects these, each as invalid params.
// What tells the schemas apart in initialize is clientInfo: the schema
// has had the field since the revision after 0.4, and the protocol asks
// clients to send it. A client that names itself is taken to know the
// later updates (one built on a schema of the months between, with
// clientInfo and without usage_update, would still reject it); one that
// does not gets none of them, and finds the turn's usage in the prompt's
// answer instead.
func takesLaterUpdates(p acpsdk.InitializeRequest) bool {
	return p.ClientInfo != nil
}

// client reports the client's capabilities.
func (s *Server) client() acpsdk.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// takes reports whether the client can be sent the update u.
func (s *Server) takes(u acpsdk.SessionUpdate) bool {
	if u.UsageUpdate == nil && u.ConfigOptionUpdate == nil && u.SessionInfoUpdate == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.laterUpdates
}

// errClosing answers a request that arrives as the connection ends.
var errClosing = errors.New("the connection is closing")

// startTurn counts a turn in flight, unless the connection is ending.
func (s *Server) startTurn() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return errClosing
	}
	s.running.Add(1)
	return nil
}

// session returns a live session by id.
func (s *Server) session(id acpsdk.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.live[string(id)]; ok {
		return ss, nil
	}
	return nil, acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %q on this connection; create it with session/new or open it with session/load", id)})
}

// event routes an agent event to its session.
func (s *Server) event(e agent.Event) {
	s.mu.Lock()
	ss := s.live[e.SessionID]
	s.mu.Unlock()
	if ss != nil {
		ss.event(e)
	}
}

// closeAll closes every session.
func (s *Server) closeAll() {
	s.mu.Lock()
	live := s.live
	s.live = map[string]*session{}
	s.mu.Unlock()
	for _, ss := range live {
		ss.close()
	}
}
