package agent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/graph"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/mcp"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// Services shares the long-lived helpers of a workspace — the project
// graph's language servers and the MCP plugins — among the agents built
// for it. An editor rebuilds its agent whenever its settings change;
// starting gopls and every plugin again each time would cost the user a
// package load and the plugins' start-up, and a turn still running on the
// old agent would lose them. Agents built with Services leave closing
// them to it.
type Services struct {
	// ShareJobs pools each workspace's background jobs too, for a front
	// end whose sessions move to the agents built later (the editor's
	// server, as settings change); without it each agent keeps its own
	// jobs, which end when it is closed.
	ShareJobs bool

	mu      sync.Mutex // guards the maps and closed
	graphs  map[string]pooled[tools.ProjectGraph]
	plugins map[string]pooled[*mcp.Manager]
	procs   map[string]pooled[*sandbox.Host]
	shells  map[string]pooled[*shellTracking]
	jobsOf  map[string]pooled[*tools.Jobs]
	closed  bool
	// ctx bounds the start of services; Close cancels it, so servers
	// still starting then are stopped rather than waited for.
	ctx    context.Context
	cancel context.CancelFunc
}

// startContext returns the context that bounds starting a service.
func (p *Services) startContext() context.Context {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx == nil {
		p.ctx, p.cancel = context.WithCancel(context.Background())
		if p.closed {
			p.cancel()
		}
	}
	return p.ctx
}

// pooled is a service with the settings it was built with.
type pooled[T io.Closer] struct {
	key string
	v   T
}

// share returns m's service for root if it was built with the settings
// key, else builds one with make and closes the one it replaces. Building
// (starting MCP servers, say) happens outside the lock, so other roots and
// services are not held up; when two callers build for the same root and
// settings at once, the first to finish wins and the other's is closed.
// ok is false once the pool is closed.
func share[T io.Closer](p *Services, m *map[string]pooled[T], root string, settings any, make func() T) (v T, ok bool) {
	b, _ := json.Marshal(settings)
	key := string(b)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return v, false
	}
	if cur, ok := (*m)[root]; ok && cur.key == key {
		p.mu.Unlock()
		return cur.v, true
	}
	p.mu.Unlock()

	built := make()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		built.Close()
		return v, false
	}
	if *m == nil {
		*m = map[string]pooled[T]{}
	}
	cur, had := (*m)[root]
	if had && cur.key == key {
		p.mu.Unlock()
		built.Close()
		return cur.v, true
	}
	(*m)[root] = pooled[T]{key: key, v: built}
	p.mu.Unlock()
	if had {
		cur.v.Close()
	}
	return built, true
}

func (p *Services) graph(root string, g config.GraphConfig, make func() tools.ProjectGraph) tools.ProjectGraph {
	pg, _ := share(p, &p.graphs, root, g, make)
	return pg
}

// processHost returns the host of root's shell commands. A host built for
// other jail settings is closed, ending what its commands left running.
func (p *Services) processHost(root string, jail *sandbox.Jail, make func() *sandbox.Host) *sandbox.Host {
	h, ok := share(p, &p.procs, root, jail, make)
	if !ok {
		// The server is shutting down: a host of its own, closed, so
		// that no command runs.
		h = make()
		h.Close()
	}
	return h
}

func (p *Services) pluginManager(root string, plugins []config.PluginConfig, make func() *mcp.Manager) *mcp.Manager {
	m, _ := share(p, &p.plugins, root, plugins, make)
	return m
}

// shellTracking returns the tracking of root's shell commands for the
// sandbox settings given (which decide the files it skips); ok is false
// once the pool is closed.
func (p *Services) shellTracking(root string, settings any) (*shellTracking, bool) {
	return share(p, &p.shells, root, settings, func() *shellTracking { return &shellTracking{} })
}

// jobs returns the background jobs of root's shell commands: shared, so
// that a session moved to an agent built later (new settings) still
// reads and stops the jobs it started; ok is false without ShareJobs or
// once the pool is closed.
func (p *Services) jobs(root string) (*tools.Jobs, bool) {
	if !p.ShareJobs {
		return nil, false
	}
	return share(p, &p.jobsOf, root, nil, func() *tools.Jobs { return &tools.Jobs{} })
}

// Close shuts every service down. Agents built afterwards get none.
func (p *Services) Close() error {
	p.mu.Lock()
	var closers []io.Closer
	for root := range p.roots() {
		closers = append(closers, p.take(root)...)
	}
	p.closed = true
	if p.cancel != nil {
		p.cancel()
	}
	p.mu.Unlock()
	return closeAll(closers)
}

// Release shuts down the services of root, a workspace folder the editor
// removed: its language servers, MCP servers, background jobs and the
// host of its shell commands. Agents built for root later get new ones.
func (p *Services) Release(root string) error {
	p.mu.Lock()
	closers := p.take(root)
	p.mu.Unlock()
	return closeAll(closers)
}

// roots returns the roots that have a service. p.mu is held.
func (p *Services) roots() map[string]bool {
	out := map[string]bool{}
	addKeys(out, p.graphs)
	addKeys(out, p.plugins)
	addKeys(out, p.procs)
	addKeys(out, p.shells)
	addKeys(out, p.jobsOf)
	return out
}

// take removes root's services from the pool and returns them to be
// closed. p.mu is held.
func (p *Services) take(root string) []io.Closer {
	var out []io.Closer
	out = appendTaken(out, p.jobsOf, root)
	out = appendTaken(out, p.graphs, root)
	out = appendTaken(out, p.plugins, root)
	out = appendTaken(out, p.procs, root)
	out = appendTaken(out, p.shells, root)
	return out
}

// appendTaken removes root's service from m, appending it to out.
func appendTaken[T io.Closer](out []io.Closer, m map[string]pooled[T], root string) []io.Closer {
	if v, ok := m[root]; ok {
		delete(m, root)
		out = append(out, v.v)
	}
	return out
}

// addKeys adds m's keys to set.
func addKeys[T io.Closer](set map[string]bool, m map[string]pooled[T]) {
	for k := range m {
		set[k] = true
	}
}

// closeAll closes cs at once and returns the first error. They need no
// order: a host closing under a background job it runs ends the job too.
func closeAll(cs []io.Closer) error {
	var wg sync.WaitGroup
	errs := make([]error, len(cs))
	for i, c := range cs {
		wg.Go(func() { errs[i] = c.Close() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// newProjectGraph returns the project graph of root: language servers that
// start on first use, kept in step with the documents fsys holds when it
// is the editor's.
func newProjectGraph(root string, fsys tools.FS, g config.GraphConfig, hideEnv []string) tools.ProjectGraph {
	docs, _ := fsys.(tools.DocumentSource)
	return graph.New(graph.Options{
		Root:       root,
		FS:         fsys,
		Docs:       docs,
		Servers:    graphServers(g.Servers),
		SettleTime: time.Duration(g.SettleMS) * time.Millisecond,
		Logger:     slog.Default().With("component", "graph"),
		HideEnv:    hideEnv,
	})
}

// StartPlugins connects cfg's MCP servers for the workspace root, in
// parallel and each within a bound; cancelling ctx stops those still
// starting. Servers that cannot start, and problems with their
// configuration, are warnings, not failures. Stdio servers do not inherit
// the providers' API keys. signIn opens the authorization page of a
// server that wants a sign-in; nil leaves it waiting (mcp.Options.Opener).
func StartPlugins(ctx context.Context, cfg *config.Config, root, version string, signIn mcp.Opener, warn func(string)) *mcp.Manager {
	plugins, warnings := cfg.ExpandedPlugins(root)
	for _, w := range warnings {
		warn(w)
	}
	m := mcp.Start(ctx, mcp.Options{
		Servers:       mcpServers(plugins),
		Dir:           root,
		HideEnv:       providerKeys(cfg),
		CallTimeout:   time.Duration(cfg.Tools.MCPCallTimeoutSeconds) * time.Second,
		Logger:        slog.Default().With("component", "mcp"),
		ClientVersion: version,
		Opener:        signIn,
		AuthDir:       MCPAuthDir(),
	})
	for _, w := range m.Warnings() {
		warn(w)
	}
	return m
}

// MCPAuthDir is where the MCP servers' sign-ins are kept: in the user's
// Reasonix directory, never a workspace's, and out of the tools' reach
// (forbid_read). Empty when there is no home directory: sign-ins then
// last for the run.
func MCPAuthDir() string {
	home, err := config.Home()
	if err != nil {
		return ""
	}
	return mcpAuthDir(home)
}

func mcpAuthDir(home string) string { return filepath.Join(home, "mcp-auth") }

// providerKeys names the environment variables that hold the providers'
// API keys.
func providerKeys(cfg *config.Config) []string {
	var names []string
	for _, p := range cfg.Providers {
		if p.APIKeyEnv != "" {
			names = append(names, p.APIKeyEnv)
		}
	}
	return names
}
