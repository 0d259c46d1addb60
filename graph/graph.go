// Package graph is the project graph: an LSP client that drives language
// servers (gopls for Go, pyright for Python, typescript-language-server for
// TypeScript and JavaScript, and any configured) to answer the agent's
// questions about code, and to report what an edit broke.
//
// A Manager keeps one server per language and workspace root, started on
// first use and restarted after a crash. Before every request it mirrors
// the editor's unsaved buffers and the agent's own changes to the server,
// so answers describe the code as the user sees it, not the disk.
package graph

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// DefaultSettleTime bounds the wait for a server's diagnostics after an
// edit.
const DefaultSettleTime = 1500 * time.Millisecond

// coldWait bounds how long Verify waits for a server that has not served
// a request yet: its start and first workspace load. The start goes on in
// the background when the wait runs out.
const coldWait = 20 * time.Second

// Options configure a Manager.
type Options struct {
	// Root is the absolute workspace root.
	Root string
	// FS reads files; nil means the disk.
	FS tools.FS
	// Docs, when set, lists the editor's documents, which the servers see
	// instead of the disk.
	Docs tools.DocumentSource
	// Servers are merged over DefaultServers by name.
	Servers []ServerSpec
	// SettleTime bounds the wait for diagnostics after an edit; zero means
	// DefaultSettleTime.
	SettleTime time.Duration
	// Logger receives the servers' stderr and lifecycle events; nil
	// discards them.
	Logger *slog.Logger
	// HideEnv names environment variables the servers must not inherit,
	// such as the model's API key.
	HideEnv []string
}

// Manager runs the language servers of one workspace and answers
// navigation questions with them. It is safe for concurrent use.
type Manager struct {
	root     string
	realRoot string // root with symbolic links resolved, as servers may report it
	fs       tools.FS
	docs     tools.DocumentSource
	servers  []ServerSpec
	settle   time.Duration
	log      *slog.Logger
	hideEnv  []string

	ctx    context.Context // ends at Close, and with it every start in flight
	cancel context.CancelFunc

	mu     sync.Mutex // guards sups and closed
	sups   map[supKey]*supervisor
	closed bool
}

// supKey names a server: its configuration and the root it serves.
type supKey struct{ name, root string }

var _ tools.ProjectGraph = (*Manager)(nil)

// New returns a Manager. No server starts until a request needs it.
func New(opts Options) *Manager {
	root := filepath.Clean(opts.Root)
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	m := &Manager{
		root:     root,
		realRoot: real,
		fs:       opts.FS,
		docs:     opts.Docs,
		servers:  mergeServers(DefaultServers(), opts.Servers),
		settle:   opts.SettleTime,
		log:      opts.Logger,
		hideEnv:  opts.HideEnv,
		sups:     map[supKey]*supervisor{},
	}
	if m.fs == nil {
		m.fs = tools.DiskFS{}
	}
	if m.settle <= 0 {
		m.settle = DefaultSettleTime
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// Close shuts every language server down: shutdown and exit, then a kill
// after a grace period.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	sups := slices.Collect(maps.Values(m.sups))
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, sv := range sups {
		wg.Go(sv.close)
	}
	wg.Wait()
	return nil
}

// FilesChanged tells the servers that files changed on disk, by shell
// commands or anything else the servers cannot see; they hear of it
// before the next request. Verify and the Changed paths of a query do
// this themselves.
func (m *Manager) FilesChanged(paths []string) {
	if len(paths) == 0 {
		return
	}
	exists := make(map[string]bool, len(paths))
	for _, p := range paths {
		p = m.abs(p)
		_, err := m.fs.Stat(p)
		exists[p] = !errors.Is(err, fs.ErrNotExist)
	}
	m.mu.Lock()
	sups := slices.Collect(maps.Values(m.sups))
	m.mu.Unlock()
	for _, sv := range sups {
		if s := sv.running(); s != nil {
			s.changed(exists)
		}
	}
}

// DiskChanged tells the servers that files may have changed on disk
// without anyone saying which (a shell command ran). Before its next
// request each server compares the disk with what it last saw and hears
// of the differences.
func (m *Manager) DiskChanged() {
	m.mu.Lock()
	sups := slices.Collect(maps.Values(m.sups))
	m.mu.Unlock()
	for _, sv := range sups {
		if s := sv.running(); s != nil {
			s.stale.Store(true)
		}
	}
}

// config returns the server configuration for a file.
func (m *Manager) config(path string) (ServerSpec, error) {
	for _, s := range m.servers {
		if handles(s, path) {
			return s, nil
		}
	}
	ext := filepath.Ext(path)
	if ext == "" {
		ext = filepath.Base(path)
	}
	var have []string
	for _, s := range m.servers {
		have = append(have, fmt.Sprintf("%s for %s", s.Name, strings.Join(s.Extensions, " ")))
	}
	return ServerSpec{}, fmt.Errorf("no language server is configured for %s files (configured: %s); use grep and read_file",
		ext, strings.Join(have, "; "))
}

// supervisorFor returns the supervisor of the server for a file.
func (m *Manager) supervisorFor(path string) (*supervisor, error) {
	cfg, err := m.config(path)
	if err != nil {
		return nil, err
	}
	return m.supervisor(cfg, m.rootFor(cfg, path))
}

// handledBy returns the supervisor of the server for the file at path
// (absolute), or nil when no server is configured for it.
func (m *Manager) handledBy(path string) (*supervisor, error) {
	if !m.Checks(path) {
		return nil, nil
	}
	return m.supervisorFor(path)
}

func (m *Manager) supervisor(cfg ServerSpec, root string) (*supervisor, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	k := supKey{cfg.Name, root}
	sv, ok := m.sups[k]
	if !ok {
		sv = &supervisor{cfg: cfg, root: root, log: m.log, hideEnv: m.hideEnv, base: m.ctx}
		m.sups[k] = sv
	}
	return sv, nil
}

// rootFor picks the root a file's server runs in: the workspace root when
// it is a project of the server's kind, else the nearest directory above
// the file, inside the workspace, holding one of the server's root
// markers (a Python project in a subdirectory), else the workspace root.
func (m *Manager) rootFor(cfg ServerSpec, path string) string {
	if hasMarker(m.root, cfg) || !within(m.root, path) {
		return m.root
	}
	for dir := filepath.Dir(path); dir != m.root && within(m.root, dir); dir = filepath.Dir(dir) {
		if hasMarker(dir, cfg) {
			return dir
		}
	}
	return m.root
}

func hasMarker(dir string, cfg ServerSpec) bool {
	for _, mk := range cfg.RootMarkers {
		if _, err := os.Stat(filepath.Join(dir, mk)); err == nil {
			return true
		}
	}
	return false
}

// workspaceSupervisors returns the servers a question without a file goes
// to: those already running, and those whose kind of project the
// workspace is, judged by root markers, or else by the files near the
// root.
func (m *Manager) workspaceSupervisors() ([]*supervisor, error) {
	var out []*supervisor
	seen := map[*supervisor]bool{}
	add := func(sv *supervisor) {
		if !seen[sv] {
			seen[sv] = true
			out = append(out, sv)
		}
	}
	for _, cfg := range m.servers {
		if hasMarker(m.root, cfg) {
			sv, err := m.supervisor(cfg, m.root)
			if err != nil {
				return nil, err
			}
			add(sv)
		}
	}
	if len(out) == 0 {
		for _, cfg := range m.servers {
			if p := findFile(m.root, cfg); p != "" {
				sv, err := m.supervisor(cfg, m.rootFor(cfg, p))
				if err != nil {
					return nil, err
				}
				add(sv)
			}
		}
	}
	m.mu.Lock()
	for _, sv := range m.sups {
		if sv.running() != nil && !seen[sv] {
			seen[sv] = true
			out = append(out, sv)
		}
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b *supervisor) int { return strings.Compare(a.cfg.Name+a.root, b.cfg.Name+b.root) })
	return out, nil
}

// findFile returns a file near root that cfg's server handles, or "".
func findFile(root string, cfg ServerSpec) string {
	if f := findFiles(root, cfg, 1); len(f) > 0 {
		return f[0]
	}
	return ""
}

// findFiles returns up to n files near root that cfg's server handles.
// The walk is bounded in depth and entries so a huge tree costs little.
func findFiles(root string, cfg ServerSpec, n int) []string {
	const maxDepth, maxEntries = 3, 2000
	seen := 0
	var found []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxEntries {
			return filepath.SkipAll
		}
		if d.IsDir() {
			name := d.Name()
			depth := strings.Count(strings.TrimPrefix(p, root), string(filepath.Separator))
			if p != root && (depth > maxDepth || strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if handles(cfg, p) {
			if found = append(found, p); len(found) == n {
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

// withServer runs f with the server for sv, starting it if needed. When
// the server dies under f, it is started again (within the restart
// budget) and f runs once more, so a crash between two questions is not
// the model's problem.
func (m *Manager) withServer(ctx context.Context, sv *supervisor, f func(*server) error) error {
	for try := 0; ; try++ {
		s, err := sv.get(ctx)
		if err != nil {
			return err
		}
		err = f(s)
		var crashed *crashedError
		if err == nil || try > 0 || !errors.As(err, &crashed) || ctx.Err() != nil {
			return err
		}
		<-s.exited // so that get sees it dead
	}
}

// abs makes a path absolute against the workspace root.
func (m *Manager) abs(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(m.root, p)
	}
	return filepath.Clean(p)
}

// rel shows a path as the model should see it: relative to the workspace
// root when inside it, else absolute.
func (m *Manager) rel(p string) string {
	for _, root := range []string{m.root, m.realRoot} {
		if within(root, p) {
			if r, err := filepath.Rel(root, p); err == nil {
				return filepath.ToSlash(r)
			}
		}
	}
	return p
}

// local maps a path a server reported under the resolved root back under
// the workspace root, so that it matches the FS and the editor.
func (m *Manager) local(p string) string {
	p = filepath.Clean(p)
	if m.realRoot != m.root && within(m.realRoot, p) && !within(m.root, p) {
		if r, err := filepath.Rel(m.realRoot, p); err == nil {
			return filepath.Join(m.root, r)
		}
	}
	return p
}

func (m *Manager) source() *source { return newSource(m.fs, m.docs) }
