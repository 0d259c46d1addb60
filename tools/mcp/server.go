package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server is one configured MCP server and its current session, if any.
type server struct {
	m         *Manager
	cfg       ServerConfig
	name      string
	transport string          // kindStdio, kindHTTP, kindSSE, or "" when the type is unknown
	trusted   map[string]bool // raw names of tools whose readOnlyHint the user vouches for
	// auth signs the requests of a streamable-HTTP server that wants a
	// sign-in; nil for other transports and for a plugin that sets its
	// own Authorization header.
	auth *authorizer

	// startErr is why the first start failed; written by start before
	// Start returns, read-only after.
	startErr string

	// connMu serialises connecting (the first start and restarts) with
	// re-listing after a list_changed notification, so that a list is
	// never installed for a session that has been replaced.
	connMu sync.Mutex

	mu        sync.Mutex // guards the fields below
	state     string
	lastErr   string   // for Status
	stopped   string   // why the last session stopped by itself
	sess      *session // the live session; nil when stopped
	connected bool     // whether any session has started, ever
	toolsJSON []byte   // the last tools/list result, to detect changes
	tools     []*tool
	prompts   []Prompt
	resources []Resource
	restarts  []time.Time // restarts within the last restartWindow

	// callers are the tool calls in flight, whose users answer the
	// server's elicitations.
	callers callers
}

func newServer(m *Manager, cfg ServerConfig) *server {
	s := &server{
		m:         m,
		cfg:       cfg,
		name:      cfg.Name,
		transport: transportKind(cfg.Type),
		trusted:   make(map[string]bool),
		state:     stateFailed,
	}
	if cfg.Disabled {
		s.state = stateDisabled
	}
	for _, t := range cfg.TrustedReadOnlyTools {
		s.trusted[t] = true
	}
	if s.transport == kindHTTP && !hasHeader(cfg.Headers, "Authorization") {
		s.auth = &authorizer{
			name:         cfg.Name,
			url:          cfg.URL,
			clientID:     cfg.ClientID,
			clientSecret: cfg.ClientSecret,
			store:        m.tokens,
			open:         m.opts.Opener,
			client:       &http.Client{Timeout: 30 * time.Second},
			log:          m.log.With("server", cfg.Name),
		}
	}
	return s
}

// hasHeader reports whether headers sets name, in any case.
func hasHeader(headers map[string]string, name string) bool {
	for k := range headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// A session is one connection to a server. Sessions are not reused: a
// restart makes a new one.
type session struct {
	cs            *mcp.ClientSession // set once connected
	proc          *process           // the stdio server's process; nil for HTTP
	httpTransport *http.Transport    // nil for stdio
	denied        atomic.Int32       // the status of the last 401 or 403 answer, for messages
	cancel        context.CancelFunc // ends the session's lifetime context
	done          chan struct{}      // closed when the connection has ended, for whatever reason

	closeOnce sync.Once
	closeErr  error
}

// abort stops a session that is still starting, at once.
func (sess *session) abort() {
	if sess.proc != nil {
		sess.proc.kill()
	}
	sess.cancel()
}

// close ends the session: stdio servers are stopped as process.Close
// describes. Only a server process that could not be stopped is an error.
func (sess *session) close() error {
	sess.closeOnce.Do(func() {
		if sess.cs != nil {
			_ = sess.cs.Close() // an HTTP server may be gone already; nothing to report
		}
		if sess.proc != nil {
			sess.closeErr = sess.proc.Close()
		}
		sess.cancel()
		if sess.httpTransport != nil {
			sess.httpTransport.CloseIdleConnections()
		}
	})
	return sess.closeErr
}

// ended reports whether the connection has ended.
func (sess *session) ended() bool {
	select {
	case <-sess.done:
		return true
	default:
		return false
	}
}

// stopReason describes why the session stopped, given the error a request
// failed with (nil when none did): for stdio servers, how the process
// exited and what it last wrote to stderr.
func (sess *session) stopReason(err error) string {
	if sess.proc != nil {
		// End of file on stdout comes a moment before the exit is reaped.
		select {
		case <-sess.proc.exited:
			return "the process " + sess.proc.exitReason()
		case <-time.After(time.Second):
		}
	}
	if err != nil {
		return err.Error()
	}
	return "the connection ended"
}

// A listing is what a server offers.
type listing struct {
	tools     []*mcp.Tool
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
}

// start makes the first connection, at Start.
func (s *server) start(ctx context.Context) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.transport == "" {
		s.fail(fmt.Sprintf("unknown type %q (use \"stdio\", \"http\" or \"sse\")", s.cfg.Type))
		return
	}
	sess, l, err := s.connect(ctx)
	if errors.Is(err, errSignInNeeded) {
		msg := fmt.Sprintf("waits for you to sign in: reasonix mcp login %s", s.name)
		s.startErr = msg
		s.mu.Lock()
		s.state, s.lastErr = stateSignIn, msg
		s.mu.Unlock()
		s.m.log.Info("MCP server waits for a sign-in", "server", s.name)
		return
	}
	if err != nil {
		s.fail(err.Error())
		return
	}
	s.install(sess, l)
	s.m.log.Info("MCP server connected", "server", s.name, "transport", s.transport,
		"tools", len(l.tools), "prompts", len(l.prompts), "resources", len(l.resources))
}

func (s *server) fail(msg string) {
	s.startErr = msg
	s.mu.Lock()
	s.state, s.lastErr = stateFailed, msg
	s.mu.Unlock()
	// Start reports it to the user (Warnings); the log keeps it for later.
	s.m.log.Info("MCP server failed to start", "server", s.name, "error", msg)
}

// connect opens a session and lists what the server offers, all within
// its start timeout. On failure everything it started is stopped.
func (s *server) connect(ctx context.Context) (*session, listing, error) {
	timeout := s.startTimeout()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The bound is a timer rather than a deadline so that a sign-in, which
	// waits for the user, can stop it (pauseKey); it counts again from
	// the sign-in's end.
	clock := time.AfterFunc(timeout, func() { cancel(context.DeadlineExceeded) })
	defer clock.Stop()
	ctx = context.WithValue(ctx, pauseKey{}, func() (resume func()) {
		if !clock.Stop() {
			return func() {}
		}
		return func() { clock.Reset(timeout) }
	})
	defer context.AfterFunc(s.m.ctx, func() { cancel(nil) })() // Close interrupts a start

	life, endLife := context.WithCancel(s.m.ctx)
	sess := &session{cancel: endLife, done: make(chan struct{})}
	transport, err := s.newTransport(life, sess)
	if err != nil {
		endLife()
		return nil, listing{}, err
	}
	// A server that does not answer in time is stopped at once, without
	// the grace periods of a normal close.
	stopAbort := context.AfterFunc(ctx, sess.abort)

	cs, err := s.newClient(sess).Connect(ctx, transport, nil)
	if err == nil {
		sess.cs = cs
		if !s.m.background(func(context.Context) {
			err := cs.Wait()
			close(sess.done)
			s.sessionEnded(sess, err)
		}) {
			err = errShuttingDown
		}
	}
	var l listing
	if err == nil {
		l, err = s.list(ctx, cs)
	}
	aborted := !stopAbort()
	if err == nil && aborted {
		err = ctx.Err()
	}
	if err == nil {
		return sess, l, nil
	}

	switch {
	case s.m.ctx.Err() != nil:
		err = errShuttingDown
	case errors.Is(err, errSignInNeeded):
		err = errSignInNeeded
	case errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		err = fmt.Errorf("did not finish starting within %s; the server was stopped (start_timeout_seconds raises the bound)", timeout)
	case ctx.Err() != nil:
		err = fmt.Errorf("start cancelled: %w", context.Cause(ctx))
	case sess.proc != nil:
		// Whatever the protocol error, a process that exited is the story.
		if reason := sess.stopReason(nil); sess.proc.hasExited() {
			err = errors.New(reason)
		} else {
			err = s.describe(err, sess)
		}
	default:
		err = s.describe(err, sess)
	}
	sess.abort()
	_ = sess.close()
	return nil, listing{}, err
}

// errShuttingDown is why a server cannot start while the Manager closes.
var errShuttingDown = errors.New("shutting down")

// describe words a connection error for the user.
func (s *server) describe(err error, sess *session) error {
	if s.transport == kindStdio {
		return err
	}
	err = fmt.Errorf("cannot connect to %s: %w", s.cfg.URL, err)
	if code := sess.denied.Load(); code != 0 {
		hint := "add the token it expects to the plugin's headers"
		if len(s.cfg.Headers) > 0 {
			hint = "check the token in the plugin's headers"
		}
		if s.auth != nil {
			hint = "sign in with reasonix mcp login " + s.name + ", or " + hint
		}
		err = fmt.Errorf("%w (HTTP %d: the server wants authorization; %s, e.g. headers = { Authorization = \"Bearer ${TOKEN}\" })", err, code, hint)
	}
	return err
}

// newClient returns an MCP client whose notification handlers refer to
// sess.
func (s *server) newClient(sess *session) *mcp.Client {
	refresh := func(what string) {
		s.m.background(func(ctx context.Context) { s.refresh(ctx, sess, what) })
	}
	return mcp.NewClient(&mcp.Implementation{Name: "reasonix", Version: s.m.opts.ClientVersion}, &mcp.ClientOptions{
		Logger: s.m.log.With("server", s.name),
		// No roots: a server such as server-filesystem would replace the
		// directories the user gave it with whatever roots Reasonix lists.
		Capabilities: &mcp.ClientCapabilities{},
		// The handler declares elicitation, form mode only (elicit.go).
		ElicitationHandler:         s.elicit,
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { refresh("tools") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { refresh("prompts") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { refresh("resources") },
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.m.log.Debug("MCP progress", "server", s.name, "progress", req.Params.Progress,
				"total", req.Params.Total, "message", req.Params.Message)
			s.m.progress(req.Params)
		},
	})
}

// list fetches the server's tools, prompts and resources, each page of
// them. Tools are listed even from a server that does not declare the
// capability, since some omit it; prompts and resources only when
// declared. Only a failure to list tools is an error.
func (s *server) list(ctx context.Context, cs *mcp.ClientSession) (listing, error) {
	var l listing
	caps := &mcp.ServerCapabilities{}
	if r := cs.InitializeResult(); r != nil && r.Capabilities != nil {
		caps = r.Capabilities
	}
	var err error
	l.tools, err = collect(cs.Tools(ctx, nil))
	if err != nil {
		if caps.Tools != nil || ctx.Err() != nil || connectionBroke(err) {
			return l, fmt.Errorf("listing tools: %w", err)
		}
		l.tools = nil
	}
	if caps.Prompts != nil {
		if l.prompts, err = collect(cs.Prompts(ctx, nil)); err != nil {
			if ctx.Err() != nil {
				return l, err
			}
			s.m.log.Warn("MCP server cannot list its prompts", "server", s.name, "error", err)
		}
	}
	if caps.Resources != nil {
		if l.resources, err = collect(cs.Resources(ctx, nil)); err != nil {
			if ctx.Err() != nil {
				return l, err
			}
			s.m.log.Warn("MCP server cannot list its resources", "server", s.name, "error", err)
		}
	}
	return l, nil
}

// collect gathers a paginated listing.
func collect[T any](seq func(yield func(*T, error) bool)) ([]*T, error) {
	var out []*T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		if v != nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// install makes sess the live session with what l lists. It reports
// whether the tool list differs from the one before (never on the first
// connection). A session started while the server was being closed is
// closed instead.
func (s *server) install(sess *session, l listing) (toolsChanged bool) {
	s.mu.Lock()
	if s.state == stateClosed {
		s.mu.Unlock()
		_ = sess.close()
		return false
	}
	s.sess = sess
	s.state, s.lastErr = stateConnected, ""
	toolsChanged = s.setTools(l.tools) && s.connected
	s.connected = true
	s.prompts = s.adaptPrompts(l.prompts)
	s.resources = s.adaptResources(l.resources)
	s.mu.Unlock()
	if sess.ended() {
		// It stopped between the listing and now, before its watcher
		// could see it as the live session.
		s.sessionEnded(sess, nil)
	}
	return toolsChanged
}

// setTools replaces the tool list and reports whether it changed. s.mu
// must be held.
func (s *server) setTools(list []*mcp.Tool) bool {
	list = slices.DeleteFunc(slices.Clone(list), func(t *mcp.Tool) bool { return !s.offers(t.Name) })
	slices.SortFunc(list, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	fingerprint, err := json.Marshal(list)
	if err != nil {
		fingerprint = nil // cannot compare: count it as a change
	}
	changed := fingerprint == nil || !bytes.Equal(fingerprint, s.toolsJSON)
	s.toolsJSON = fingerprint
	s.tools = s.tools[:0:0]
	for _, t := range list {
		s.tools = append(s.tools, s.adaptTool(t))
	}
	return changed
}

// offers reports whether the server's tool name is offered to the model:
// listed in enabled_tools when that is set, and not in disabled_tools.
func (s *server) offers(name string) bool {
	if len(s.cfg.EnabledTools) > 0 && !slices.Contains(s.cfg.EnabledTools, name) {
		return false
	}
	return !slices.Contains(s.cfg.DisabledTools, name)
}

// refresh re-lists one kind of offering ("tools", "prompts" or
// "resources") after the server said it changed.
func (s *server) refresh(ctx context.Context, sess *session, what string) {
	if s.relist(ctx, sess, what) {
		s.m.markToolsChanged(s.name)
	}
}

// relist does the work of refresh and reports whether the tools changed.
func (s *server) relist(ctx context.Context, sess *session, what string) (toolsChanged bool) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	s.mu.Lock()
	current := s.sess == sess
	s.mu.Unlock()
	if !current {
		return false // a restart lists everything anyway
	}
	ctx, cancel := context.WithTimeout(ctx, s.startTimeout())
	defer cancel()
	var err error
	changed := false
	switch what {
	case "tools":
		var list []*mcp.Tool
		if list, err = collect(sess.cs.Tools(ctx, nil)); err == nil {
			s.mu.Lock()
			changed = s.sess == sess && s.setTools(list)
			s.mu.Unlock()
		}
	case "prompts":
		var list []*mcp.Prompt
		if list, err = collect(sess.cs.Prompts(ctx, nil)); err == nil {
			s.mu.Lock()
			if s.sess == sess {
				s.prompts = s.adaptPrompts(list)
			}
			s.mu.Unlock()
		}
	case "resources":
		var list []*mcp.Resource
		if list, err = collect(sess.cs.Resources(ctx, nil)); err == nil {
			s.mu.Lock()
			if s.sess == sess {
				s.resources = s.adaptResources(list)
			}
			s.mu.Unlock()
		}
	}
	if err != nil {
		level := slog.LevelWarn
		if s.m.ctx.Err() != nil || connectionBroke(err) {
			level = slog.LevelDebug // Close under way, or the server stopped: reported elsewhere
		}
		s.m.log.Log(ctx, level, "MCP server: re-listing failed", "server", s.name, "list", what, "error", err)
		return false
	}
	return changed
}

// sessionEnded is called when sess's connection ends. If it was the live
// session, the server stopped by itself: it will be restarted on next use.
func (s *server) sessionEnded(sess *session, err error) {
	s.mu.Lock()
	current := s.sess == sess
	if current {
		s.sess = nil
		s.state = stateRestarting
	}
	s.mu.Unlock()
	if !current {
		return // closed or replaced on purpose
	}
	reason := sess.stopReason(err)
	s.mu.Lock()
	s.stopped = reason
	if s.sess == nil && s.state == stateRestarting {
		s.lastErr = reason
	}
	s.mu.Unlock()
	s.m.log.Warn("MCP server stopped; it will be restarted on next use", "server", s.name, "reason", reason)
	_ = sess.close()
}

// lost retires sess after a request on it failed because the connection
// broke, and returns why it stopped.
func (s *server) lost(sess *session, err error) string {
	s.mu.Lock()
	if s.sess == sess {
		s.sess = nil
		s.state = stateRestarting
	}
	s.mu.Unlock()
	reason := sess.stopReason(err)
	s.mu.Lock()
	s.stopped = reason
	if s.sess == nil && s.state == stateRestarting {
		s.lastErr = reason
	}
	s.mu.Unlock()
	if !s.m.background(func(context.Context) { _ = sess.close() }) {
		_ = sess.close()
	}
	return reason
}

// live returns the live session, restarting the server if it stopped and
// the restart budget allows.
func (s *server) live(ctx context.Context) (*session, error) {
	s.mu.Lock()
	sess, state := s.sess, s.state
	s.mu.Unlock()
	if sess != nil && !sess.ended() {
		return sess, nil
	}
	if sess != nil {
		s.sessionEnded(sess, nil) // noticed before its watcher did
	}
	switch state {
	case stateClosed:
		return nil, &unavailableError{server: s.name, msg: "is shut down"}
	case stateDisabled:
		return nil, &unavailableError{server: s.name, msg: "is disabled (enabled = false in its [[plugins]] entry)"}
	}
	sess, changed, err := s.restart(ctx)
	if changed {
		s.m.markToolsChanged(s.name)
	}
	return sess, err
}

// restart starts a new session for a server that has stopped, unless one
// has been started meanwhile or the restart budget is spent. It reports
// whether the new session lists different tools.
func (s *server) restart(ctx context.Context) (_ *session, toolsChanged bool, _ error) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	s.mu.Lock()
	if s.sess != nil && !s.sess.ended() { // restarted by another caller meanwhile
		sess := s.sess
		s.mu.Unlock()
		return sess, false, nil
	}
	if !s.connected {
		s.mu.Unlock()
		return nil, false, &unavailableError{server: s.name, msg: "did not start: " + s.startErr}
	}
	if s.state == stateClosed {
		s.mu.Unlock()
		return nil, false, &unavailableError{server: s.name, msg: "is shut down"}
	}
	if !s.canRestartLocked() {
		msg := fmt.Sprintf("stopped and has been restarted %d times in the last %s, so it is not restarted again for now; it last stopped because %s",
			restartLimit, fmtDuration(restartWindow), s.stopped)
		s.state, s.lastErr = stateFailed, msg
		s.mu.Unlock()
		return nil, false, &unavailableError{server: s.name, msg: msg}
	}
	s.restarts = append(s.restarts, time.Now())
	s.state = stateRestarting
	s.mu.Unlock()

	s.m.log.Info("restarting MCP server", "server", s.name)
	sess, l, err := s.connect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		s.mu.Lock()
		if s.state != stateClosed {
			s.state, s.lastErr = stateFailed, err.Error()
		}
		s.mu.Unlock()
		return nil, false, &unavailableError{server: s.name, msg: "stopped and could not be restarted: " + err.Error()}
	}
	return sess, s.install(sess, l), nil
}

// canRestartLocked reports whether the restart budget allows another
// restart now, forgetting restarts older than the window. s.mu must be
// held.
func (s *server) canRestartLocked() bool {
	cutoff := time.Now().Add(-restartWindow)
	s.restarts = slices.DeleteFunc(s.restarts, func(t time.Time) bool { return t.Before(cutoff) })
	return len(s.restarts) < restartLimit
}

func (s *server) canRestart() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.canRestartLocked()
}

// do runs f on a live session under timeout, restarting the server first
// if it had stopped. The error is the parent context's when that ended,
// and otherwise one of the errors below, worded for the model.
func (s *server) do(ctx context.Context, timeout time.Duration, f func(ctx context.Context, cs *mcp.ClientSession) error) error {
	sess, err := s.live(ctx)
	if err != nil {
		return err
	}
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err = f(callCtx, sess.cs)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case callCtx.Err() != nil:
		return &timeoutError{server: s.name, timeout: timeout}
	}
	if !connectionBroke(err) {
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr) && rpcErr.Code != codeRejected:
			return &rpcError{server: s.name, err: rpcErr}
		case rpcErr != nil:
			// An HTTP request that failed in transit without breaking the
			// session: a 502 from a proxy, a 503 from an overloaded server.
			return fmt.Errorf("MCP server %q could not take the request: %w", s.name, err)
		}
		// An error that is neither the server's answer nor a known
		// transport failure: a stopped server shows it by ending the
		// connection shortly after.
		select {
		case <-sess.done:
		case <-time.After(time.Second):
			return fmt.Errorf("MCP server %q: %w", s.name, err)
		}
	}
	reason := s.lost(sess, err)
	return &stoppedError{server: s.name, reason: reason, willRestart: s.canRestart()}
}

// codeRejected is the JSON-RPC code of the SDK's internal ErrRejected,
// which it wraps around an HTTP request that failed in transit (with the
// cause: a refused connection, a 502) and keeps the session open.
const codeRejected = -32005

// connectionBroke reports whether err says the connection to the server is
// gone: the process exited, the HTTP session expired, the server refused
// the connection.
func connectionBroke(err error) bool {
	var netErr net.Error
	return errors.Is(err, mcp.ErrConnectionClosed) ||
		errors.Is(err, mcp.ErrSessionMissing) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.As(err, &netErr)
}

// retire marks the server closed for good and returns its session, if
// any, for the caller to close.
func (s *server) retire() *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sess
	s.sess = nil
	s.state = stateClosed
	return sess
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{
		Name:      s.name,
		Transport: s.transport,
		State:     s.state,
		Error:     s.lastErr,
		Tools:     len(s.tools),
		Prompts:   len(s.prompts),
		Resources: len(s.resources),
	}
	if st.Transport == "" {
		st.Transport = s.cfg.Type
	}
	return st
}

func (s *server) toolList() []*tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateClosed {
		return nil
	}
	return slices.Clone(s.tools)
}

// callTimeout is the bound of a request to the server other than a tool
// call with a timeout of its own.
func (s *server) callTimeout() time.Duration {
	if s.cfg.CallTimeoutSeconds > 0 {
		return time.Duration(s.cfg.CallTimeoutSeconds) * time.Second
	}
	return s.m.opts.CallTimeout
}

// startTimeout bounds connecting to the server and listing what it offers.
func (s *server) startTimeout() time.Duration {
	if s.cfg.StartTimeoutSeconds > 0 {
		return time.Duration(s.cfg.StartTimeoutSeconds) * time.Second
	}
	return s.m.opts.StartTimeout
}

// unavailableError is returned for a server that cannot take requests.
type unavailableError struct {
	server, msg string
}

func (e *unavailableError) Error() string { return fmt.Sprintf("MCP server %q %s", e.server, e.msg) }

// stoppedError is returned when the server stopped during a request.
type stoppedError struct {
	server, reason string
	willRestart    bool
}

func (e *stoppedError) Error() string {
	msg := fmt.Sprintf("MCP server %q stopped during the call: %s", e.server, e.reason)
	if e.willRestart {
		return msg + "; it will be restarted on the next call"
	}
	return msg + fmt.Sprintf("; it has been restarted %d times in the last %s and is not restarted again for now",
		restartLimit, fmtDuration(restartWindow))
}

// timeoutError is returned when a request outlived its bound.
type timeoutError struct {
	server  string
	timeout time.Duration
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("MCP server %q did not answer within %s; the request was cancelled", e.server, fmtDuration(e.timeout))
}

// rpcError is a JSON-RPC error the server answered with.
type rpcError struct {
	server string
	err    *jsonrpc.Error
}

func (e *rpcError) Error() string { return fmt.Sprintf("MCP server %q: %s", e.server, e.err.Message) }
func (e *rpcError) Unwrap() error { return e.err }

// fmtDuration formats d without trailing zero units: "5m", "30s", "1m30s".
func fmtDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
