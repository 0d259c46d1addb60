// Package mcp is the client side of Reasonix's plugins: it connects to the
// MCP servers named in [[plugins]], over stdio, streamable HTTP or the
// legacy HTTP+SSE transport, and adapts what they offer. Their tools become
// tools.Tool values named mcp__<server>__<tool>; their prompts and
// resources are listed for the front ends to offer as slash commands and
// @-references.
//
// A Manager owns the sessions. Servers start in parallel and a server that
// fails to start is reported, never fatal. A server that stops later is
// restarted on its next use, a bounded number of times.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reasonix/reasonix/tools"
)

// Defaults for the zero values of Options.
const (
	defaultCallTimeout  = 300 * time.Second
	defaultStartTimeout = 30 * time.Second
)

// Restart bounds: a server that keeps dying is restarted at most
// restartLimit times within restartWindow.
const (
	restartLimit  = 3
	restartWindow = 5 * time.Minute
)

// ServerConfig is one MCP server to connect to: a [[plugins]] entry, with
// its settings expanded.
type ServerConfig struct {
	Name string
	// Disabled keeps the server configured but not started.
	Disabled bool
	// Type is the transport: "stdio" (also when empty), "http" (or
	// "streamable-http") or "sse".
	Type    string
	Command string // stdio
	Args    []string
	Env     map[string]string // added to the inherited environment
	URL     string            // http and sse
	Headers map[string]string // sent with every HTTP request
	// ClientID and ClientSecret are the OAuth client an HTTP server's
	// authorization server knows Reasonix as, for a server that signs in
	// and does not let clients register themselves. Empty: register.
	ClientID     string
	ClientSecret string

	// StartTimeoutSeconds bounds connecting and the first listings;
	// CallTimeoutSeconds a request; ToolTimeoutSeconds a call of the
	// named tool. Zero means Options' bound.
	StartTimeoutSeconds int
	CallTimeoutSeconds  int
	ToolTimeoutSeconds  map[string]int
	// TrustedReadOnlyTools are tools whose readOnlyHint the user vouches
	// for, by the server's own names.
	TrustedReadOnlyTools []string
	// EnabledTools, when set, are the only tools of the server offered to
	// the model; DisabledTools are never offered. Both by the server's
	// own tool names.
	EnabledTools  []string
	DisabledTools []string

	// At is where the server was configured ("file:line"), for messages;
	// empty when it is not from a file.
	At string
}

// Options configures Start.
type Options struct {
	Servers []ServerConfig
	// Dir is the working directory of stdio servers: the workspace root.
	Dir string
	// HideEnv names environment variables stdio servers must not inherit,
	// such as provider API keys. A plugin's own env may still set them.
	HideEnv []string
	// CallTimeout bounds each tools/call of a plugin that sets no
	// call_timeout_seconds; zero means 300 s.
	CallTimeout time.Duration
	// StartTimeout bounds, per server, connecting, initializing and the
	// first listings; zero means 30 s.
	StartTimeout time.Duration
	// Logger receives connection events, and the stderr lines of stdio
	// servers at debug level; nil discards.
	Logger *slog.Logger
	// ClientVersion is reported in initialize's clientInfo, whose name is
	// "reasonix".
	ClientVersion string
	// Opener shows the user the authorization page of a server that
	// wants a sign-in (signin.go). Nil: such a server is left in state
	// "sign-in" until the user signs in another way (reasonix mcp login).
	Opener Opener
	// AuthDir keeps the sign-ins, one file each, readable by the user
	// alone; empty keeps them in memory for the Manager's life.
	AuthDir string
}

// A Manager holds the sessions with the configured MCP servers. Its
// methods are safe for concurrent use.
type Manager struct {
	opts Options
	log  *slog.Logger
	// ctx ends at Close; background work (re-listing after a
	// list_changed notification, watching sessions) runs under it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // background goroutines, awaited by Close

	servers  []*server // in configuration order; immutable after Start
	warnings []string  // immutable after Start

	mu             sync.Mutex // guards toolsChanged, onToolsChanged and closed
	toolsChanged   bool
	onToolsChanged func(server string)
	closed         bool // set by Close; no background work starts after it

	tokens *tokenStore // the servers' sign-ins

	progressTokens atomic.Int64 // numbers the progress tokens of tool calls
	listenersMu    sync.Mutex
	listeners      map[string]func(string) // by progress token, for calls under way

}

// Status describes one configured server.
type Status struct {
	Name      string `json:"name"`
	Transport string `json:"transport"` // "stdio", "http" or "sse"; as configured when unknown
	// State is "connected", "failed", "restarting" (stopped, restarted on
	// next use, or being restarted), "disabled" (enabled = false),
	// "sign-in" (waits for the user to sign in: reasonix mcp login) or
	// "closed".
	State string `json:"state"`
	// Error is the last error, for a failed or restarting server.
	Error     string `json:"error,omitempty"`
	Tools     int    `json:"tools"`
	Prompts   int    `json:"prompts"`
	Resources int    `json:"resources"`
}

// Server states.
const (
	stateConnected  = "connected"
	stateFailed     = "failed"
	stateRestarting = "restarting"
	stateClosed     = "closed"
	stateDisabled   = "disabled" // enabled = false: configured, never started
	stateSignIn     = "sign-in"  // the server wants a sign-in that could not be made
)

// Start connects to every server in opts.Servers in parallel and returns
// when each has connected, failed, or run out of opts.StartTimeout; a
// server that hangs is left failed and its process killed. ctx bounds the
// start only: sessions live until Close.
//
// Start never fails as a whole: a server that cannot start shows in Status
// and Warnings.
func Start(ctx context.Context, opts Options) *Manager {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = defaultCallTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{opts: opts, log: log, tokens: &tokenStore{dir: opts.AuthDir}}
	m.ctx, m.cancel = context.WithCancel(context.Background())

	seen := make(map[string]bool)
	for i, cfg := range opts.Servers {
		if cfg.Name == "" {
			m.warnings = append(m.warnings, fmt.Sprintf("MCP server #%d%s has no name; it is skipped (set name in its [[plugins]] entry)", i+1, at(cfg)))
			continue
		}
		if seen[cfg.Name] {
			m.warnings = append(m.warnings, fmt.Sprintf("MCP server %q%s is configured twice; only the first is used", cfg.Name, at(cfg)))
			continue
		}
		seen[cfg.Name] = true
		m.servers = append(m.servers, newServer(m, cfg))
	}

	var wg sync.WaitGroup
	for _, s := range m.servers {
		if s.state == stateDisabled {
			continue
		}
		wg.Go(func() { s.start(ctx) })
	}
	wg.Wait()
	for _, s := range m.servers {
		if s.startErr != "" {
			m.warnings = append(m.warnings, fmt.Sprintf("MCP server %q: %s", s.name, s.startErr))
		}
	}
	return m
}

// at returns " (file:line)" for a plugin configured in a file.
func at(cfg ServerConfig) string {
	if cfg.At == "" {
		return ""
	}
	return " (" + cfg.At + ")"
}

// listen routes the progress notifications of token to report until the
// returned function is called.
func (m *Manager) listen(token string, report func(string)) (stop func()) {
	m.listenersMu.Lock()
	defer m.listenersMu.Unlock()
	if m.listeners == nil {
		m.listeners = map[string]func(string){}
	}
	m.listeners[token] = report
	return func() {
		m.listenersMu.Lock()
		defer m.listenersMu.Unlock()
		delete(m.listeners, token)
	}
}

// progress passes a progress notification on to the call it belongs to.
// It reports under listenersMu, so that once a call's stop has returned
// no late notification reaches the call's report: the turn that made the
// call may have ended.
func (m *Manager) progress(p *mcp.ProgressNotificationParams) {
	token, _ := p.ProgressToken.(string)
	m.listenersMu.Lock()
	defer m.listenersMu.Unlock()
	if report := m.listeners[token]; report != nil {
		report(progressMessage(p.Progress, p.Total, p.Message))
	}
}

// progressMessage words a progress notification: the server's message,
// with how far along out of how much when it says.
func progressMessage(progress, total float64, message string) string {
	count := fmt.Sprintf("%g", progress)
	if total > 0 {
		count = fmt.Sprintf("%g/%g", progress, total)
	}
	if message = strings.TrimSpace(message); message != "" {
		return message + " (" + count + ")"
	}
	return count
}

// Warnings returns one line per server that could not start, worded for
// the user.
func (m *Manager) Warnings() []string { return slices.Clone(m.warnings) }

// Tools returns the adapted tools of every server that has connected,
// sorted by name, and clears ToolsChanged. A server that has stopped keeps
// its tools: calling one restarts it, or explains why it cannot.
func (m *Manager) Tools() []tools.Tool {
	m.mu.Lock()
	m.toolsChanged = false
	m.mu.Unlock()

	var all []*tool
	for _, s := range m.servers {
		all = append(all, s.toolList()...)
	}
	uniqueNames(all, func(t *tool) string { return t.server.name + "\x00" + t.raw },
		func(t *tool) string { return t.name },
		func(t *tool, name string) *tool { c := *t; c.name = name; return &c })
	slices.SortFunc(all, func(a, b *tool) int { return strings.Compare(a.name, b.name) })
	out := make([]tools.Tool, len(all))
	for i, t := range all {
		out[i] = t
	}
	return out
}

// ServerOf returns the name of the server whose tool t is, when t is one
// of a Manager's tools.
func ServerOf(t tools.Tool) (string, bool) {
	a, ok := t.(*tool)
	if !ok {
		return "", false
	}
	return a.server.name, true
}

// ToolsChanged reports whether a server's tool list has changed since the
// last call of Tools: after a notifications/tools/list_changed, or a
// restart, whose re-listing differed from the list before.
func (m *Manager) ToolsChanged() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.toolsChanged
}

// OnToolsChanged sets a function called, from a background goroutine,
// each time a server's tool list changes. It may be set after Start.
func (m *Manager) OnToolsChanged(f func(server string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.onToolsChanged = f
}

// markToolsChanged records that server's tool list changed and tells the
// OnToolsChanged function.
func (m *Manager) markToolsChanged(server string) {
	m.mu.Lock()
	m.toolsChanged = true
	f := m.onToolsChanged
	m.mu.Unlock()
	m.log.Info("MCP server's tools changed", "server", server)
	if f != nil {
		f(server)
	}
}

// Status returns the state of every configured server, sorted by name.
func (m *Manager) Status() []Status {
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	slices.SortFunc(out, func(a, b Status) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Close ends every session; stdio servers are asked to exit by closing
// their stdin, then terminated, then killed, each after a short grace.
// Close waits for that, for every server in parallel.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	// Retire the sessions before ending the Manager's context, which ends
	// their HTTP streams: a session that ends is then not taken for a
	// server that stopped by itself.
	sessions := make([]*session, 0, len(m.servers))
	for _, s := range m.servers {
		if sess := s.retire(); sess != nil {
			sessions = append(sessions, sess)
		}
	}
	m.cancel()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, sess := range sessions {
		wg.Go(func() {
			if err := sess.close(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	m.wg.Wait()
	return errors.Join(errs...)
}

// lookup returns the server with the given configured name.
func (m *Manager) lookup(name string) (*server, error) {
	for _, s := range m.servers {
		if s.name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no MCP server named %q is configured", name)
}

// background runs f in a goroutine that Close waits for, under the
// Manager's context. It reports false, and does nothing, once Close has
// begun.
func (m *Manager) background(f func(ctx context.Context)) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f(m.ctx)
	}()
	return true
}
