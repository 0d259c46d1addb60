// Package lsp is Reasonix's language server: the protocol layer between an
// editor and the agent. An editor starts `reasonix lsp`, offers code
// actions that run the agent, answers its permission questions in dialogs,
// and receives its changes as ordinary, undoable workspace edits.
//
// The package is only the protocol layer. Each LSP feature lives in its
// own file (lifecycle.go, text_sync.go, code_action.go, command.go, ...);
// the agent, its tools and the config are used through their packages.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/lsp/wire"
)

// Options configure a server.
type Options struct {
	// ConfigFile is a config file above the project file (reasonix lsp
	// --config).
	ConfigFile string
	// Version is reported in serverInfo.
	Version string
	// Logger receives the server's own log; nil discards it. Stdout is the
	// protocol stream, so it must never be written to.
	Logger *slog.Logger
	// ShutdownGrace bounds how long a vanished client's running turns get
	// to stop before the server exits. Zero means five seconds.
	ShutdownGrace time.Duration
	// AnswerTimeout bounds how long a question to the user (a permission,
	// the agent's question, the trust question) waits for its answer.
	// Zero means DefaultAnswerTimeout (asking.go).
	AnswerTimeout time.Duration
}

// A Server holds the state of a single client connection: the lifecycle,
// the client's capabilities, the open documents, the workspace folders and
// the agent sessions they run.
type Server struct {
	opts Options
	log  *slog.Logger
	conn jsonrpc2.Conn

	// ctx lives as long as the connection; turns derive from it so a
	// vanished client cancels them all.
	ctx    context.Context
	cancel context.CancelFunc

	docs  *overlay
	edits *editTracker
	// review is the connection's review mode: the review setting of each
	// workspace, the proposals pending, and what is kept about them.
	review *reviewState

	mu       sync.Mutex // guards the fields below
	state    state
	caps     clientCaps
	enc      wire.Encoding
	folders  []folder
	settings []byte // the editor's settings as TOML, above the project file
	// diffs is the directory of the files shown to the user (diffDir):
	// reasonix.review.diff's diffs, plans.
	diffs  string
	spaces map[string]*workspace
	// servicesRoot maps each folder a workspace was built for to its
	// agent's root, the key of the folder's services: a removed folder's
	// are shut down by it, also when a settings change emptied spaces.
	servicesRoot map[string]string
	// building holds the builds under way, by root, so callers that need
	// a workspace while it is built (its MCP servers starting) wait for
	// that build instead of starting another. settingsGen counts settings
	// changes; a build for older settings is not kept.
	building    map[string]*workspaceBuild
	settingsGen int
	exitCode    int

	// configWarned holds, by root, the configuration warnings the user
	// was told at its last build (tellConfigWarnings).
	configWarned map[string][]string
	// trustAsked holds, by root, the hash of the workspace configuration
	// whose trust the user was last asked about (offerTrust).
	trustAsked map[string]string
	// refusalsShown holds the notices of calls refused without asking
	// that the user was shown (refused).
	refusalsShown map[string]bool

	sessions *sessions
	// services keep the project graphs (language servers) and MCP
	// servers of the workspaces across agent rebuilds; release closes
	// them.
	services *agent.Services
	// warming counts the background work: the builds warmUp started and
	// the releases of removed folders' services; release waits for it, so
	// none starts servers after services are closed or writes into the
	// Reasonix home after Run returns.
	warming  sync.WaitGroup
	tornDown bool // set by release, under mu: no more warm-ups
	// releaseOnce runs release once, from shutdown or from Run's end.
	releaseOnce sync.Once
	inflight    inflight
	exited      chan struct{}
	exitOnce    sync.Once
}

// state is the lifecycle of a connection.
type state int

const (
	stateCreated state = iota
	stateInitialized
	stateShutdown
)

// handlers is the part of protocol.Server that the server implements,
// each method in the file of its feature. The protocol layer calls them
// through dispatcher; a method of protocol.Server not listed here is
// never called, whatever Server declares (TestHandlersListed).
type handlers interface {
	Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error)
	Initialized(ctx context.Context, params *protocol.InitializedParams) error
	Shutdown(ctx context.Context) error
	Exit(ctx context.Context) error
	SetTrace(ctx context.Context, params *protocol.SetTraceParams) error
	DidChangeWorkspaceFolders(ctx context.Context, params *protocol.DidChangeWorkspaceFoldersParams) error
	DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error
	DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error
	DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error
	DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error
	DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error
	CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error)
	ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error)
	WorkDoneProgressCancel(ctx context.Context, params *protocol.WorkDoneProgressCancelParams) error
	// Request serves the custom methods (custom.go).
	Request(ctx context.Context, method string, params any) (any, error)
}

// dispatcher is the protocol.Server that the protocol layer calls: the
// server's handlers, and for every other standard method
// protocol.UnimplementedServer, one level deeper so that the handlers
// win: a request fails with MethodNotFound, a notification is ignored.
type dispatcher struct {
	handlers
	unimplemented
}

type unimplemented struct{ protocol.UnimplementedServer }

// Both fail to compile: the first when the server lacks a handler, the
// second when a handler's signature is not protocol.Server's.
var (
	_ handlers        = (*Server)(nil)
	_ protocol.Server = dispatcher{}
)

// New returns a server ready to Run.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.ShutdownGrace == 0 {
		opts.ShutdownGrace = 5 * time.Second
	}
	if opts.AnswerTimeout <= 0 {
		opts.AnswerTimeout = DefaultAnswerTimeout
	}
	s := &Server{
		opts:         opts,
		log:          log,
		docs:         newOverlay(),
		edits:        newEditTracker(),
		review:       newReviewState(),
		enc:          wire.UTF16,
		spaces:       map[string]*workspace{},
		servicesRoot: map[string]string{},
		building:     map[string]*workspaceBuild{},
		exitCode:     1,
		exited:       make(chan struct{}),
	}
	s.sessions = newSessions(s)
	s.configWarned = map[string][]string{}
	s.trustAsked = map[string]string{}
	s.refusalsShown = map[string]bool{}
	// Sessions follow their workspace's rebuilt agents (follow), and
	// the jobs they started go with them.
	s.services = &agent.Services{ShareJobs: true}
	return s
}

// Serve runs the server over in and out (stdin and stdout for `reasonix
// lsp`) until the client sends exit or goes away, and returns the process
// exit code the protocol prescribes: 0 after shutdown, 1 otherwise.
func Serve(ctx context.Context, in io.Reader, out io.Writer, closer io.Closer, opts Options) int {
	s := New(opts)
	return s.Run(ctx, wire.NewStream(in, out, closer, func(format string, args ...any) {
		s.log.Warn(fmt.Sprintf(format, args...))
	}))
}

// Run serves one connection over stream.
func (s *Server) Run(ctx context.Context, stream jsonrpc2.Stream) int {
	s.ctx, s.cancel = context.WithCancel(ctx)
	defer s.cancel()
	s.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(wire.Codec{}))
	s.conn.Go(s.ctx, s.handle)

	select {
	case <-s.exited:
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil {
			s.log.Warn("connection ended", "err", err)
		} else {
			s.log.Info("client closed the connection")
		}
	case <-ctx.Done():
	}
	s.teardown()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

// teardown ends the connection's work when Run returns: it cancels the
// connection's context, then releases what release holds, if shutdown did
// not already.
func (s *Server) teardown() {
	s.cancel()
	s.release()
}

// release stops every running turn (closing model streams and killing
// shell commands), waits a bounded time for them to record their end,
// closes the session files and stops the language servers, MCP servers,
// background jobs and sandbox hosts, removing what they keep on disk.
// Shutdown calls it before answering, so that a client that waits for the
// answer and then removes the Reasonix home (a test, a sandboxed editor)
// finds nothing still being written; Run's end calls it for a client that
// vanished without a shutdown. It runs once.
func (s *Server) release() {
	s.releaseOnce.Do(func() {
		s.mu.Lock()
		s.tornDown = true
		s.mu.Unlock()
		s.sessions.cancelAll()
		done := make(chan struct{})
		go func() {
			s.sessions.wait()
			s.warming.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(s.opts.ShutdownGrace):
			s.log.Warn("turns did not stop in time; exiting anyway")
		}
		s.sessions.closeAll()
		s.mu.Lock()
		if s.diffs != "" {
			os.RemoveAll(s.diffs)
		}
		s.mu.Unlock()
		if err := s.services.Close(); err != nil {
			s.log.Warn("stopping language and MCP servers", "err", err)
		}
	})
}

// handle is the connection's one handler. It enforces the lifecycle,
// turns every panic into an internal error (a bug must not take down the
// editor's server), and never lets a notification fail the connection.
func (s *Server) handle(reqCtx context.Context, req *jsonrpc2.Request) (result any, err error) {
	method := strings.Clone(req.Method())
	isCall := req.IsCall()
	if method == protocol.MethodCancelRequest {
		s.cancelRequest(req.Params())
		return nil, nil
	}
	// The request's own context is pooled and recycled when the handler
	// returns, so nothing may derive from it (a derived context would
	// outlive it). Each request gets a context of the connection's
	// lifetime instead, cancelled by $/cancelRequest, which still finds
	// the request's values (jsonrpc2.Async needs them).
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	if isCall {
		id := req.ID()
		s.inflight.add(id, cancel)
		defer s.inflight.remove(id)
	}
	ctx = requestValues{Context: ctx, values: reqCtx}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
			result = nil
			err = jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("internal error in %s: %v", method, r))
		}
		if !isCall {
			if err != nil {
				s.log.Warn("notification failed", "method", method, "err", err)
			}
			result, err = nil, nil
		}
	}()

	if err := s.gate(method, isCall); err != nil {
		return nil, err
	}
	if !standardMethods[method] {
		// Custom and unknown methods skip the protocol layer, which would
		// reject a missing params value before looking at the method.
		return s.Request(ctx, method, protocol.LSPAny(req.Params()))
	}
	result, err = protocol.ServerHandler(dispatcher{handlers: s}, nil)(ctx, req)
	if err != nil {
		err = s.describeError(method, err)
	}
	return result, err
}

// gate applies the lifecycle rules: nothing but initialize before
// initialize; nothing but exit after shutdown.
func (s *Server) gate(method string, isCall bool) error {
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch {
	case method == protocol.MethodExit:
		return nil
	case st == stateCreated && method != protocol.MethodInitialize:
		if isCall {
			return jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized: send initialize first")
		}
		return errors.New("notification before initialize dropped")
	case st != stateCreated && method == protocol.MethodInitialize:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	case st == stateShutdown:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down: only exit is accepted")
	}
	return nil
}

// describeError makes a decoding failure say what was wrong: the protocol
// layer reports a params shape it cannot decode as a parse error, while
// JSON-RPC calls that invalid params.
func (s *Server) describeError(method string, err error) error {
	switch {
	case errors.Is(err, jsonrpc2.ErrParse):
		msg := strings.TrimPrefix(err.Error(), jsonrpc2.ErrParse.Message+": ")
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("invalid params for %s: %s", method, msg))
	case errors.Is(err, context.Canceled):
		return protocol.ErrRequestCancelled
	}
	return err
}

// standardMethods are the LSP methods a client may send a server.
var standardMethods = func() map[string]bool {
	m := map[string]bool{}
	for _, mi := range protocol.Methods {
		if mi.Direction != protocol.DirectionServerToClient {
			m[mi.Method] = true
		}
	}
	return m
}()

// requestValues is a context with its own cancellation that looks up
// values in the request's context as well.
type requestValues struct {
	context.Context
	values context.Context
}

func (c requestValues) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.values.Value(key)
}

// inflight maps the ids of running requests to their cancel functions.
type inflight struct {
	mu      sync.Mutex // guards cancels
	cancels map[jsonrpc2.ID]context.CancelFunc
}

func (f *inflight) add(id jsonrpc2.ID, cancel context.CancelFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cancels == nil {
		f.cancels = map[jsonrpc2.ID]context.CancelFunc{}
	}
	f.cancels[id] = cancel
}

func (f *inflight) remove(id jsonrpc2.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.cancels, id)
}

func (f *inflight) cancel(id jsonrpc2.ID) {
	f.mu.Lock()
	cancel := f.cancels[id]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// cancelRequest handles $/cancelRequest. An unknown or finished id is
// ignored, as the protocol says.
func (s *Server) cancelRequest(raw jsonrpc2.RawMessage) {
	var p protocol.CancelParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		s.log.Warn("bad $/cancelRequest", "err", err)
		return
	}
	switch id := p.ID.(type) {
	case protocol.Integer:
		s.inflight.cancel(jsonrpc2.NewNumberID(int64(id)))
	case protocol.String:
		s.inflight.cancel(jsonrpc2.NewStringID(string(id)))
	}
}

// exit ends Run. The exit code follows the protocol: 0 when shutdown came
// first.
func (s *Server) exit() {
	s.exitOnce.Do(func() { close(s.exited) })
}

// pathOf returns the clean file path of a file URI, or "" for other
// schemes (untitled buffers and the like).
func pathOf(u uri.URI) string {
	if !u.IsFile() {
		return ""
	}
	return filepath.Clean(u.FsPath())
}
