package agent

import (
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/graph"
	"github.com/reasonix/reasonix/tools"
)

// Navigators shares project graphs (and so their language servers) among
// the agents built for one workspace root. An editor rebuilds its agent
// whenever its settings change; starting gopls again each time would cost
// the user a full package load, and a turn still running on the old agent
// would lose its servers. Agents built with a Navigators leave closing the
// graphs to it.
type Navigators struct {
	mu     sync.Mutex
	byRoot map[string]pooledNavigator
	closed bool
}

type pooledNavigator struct {
	key string // the [graph] settings it was built with
	nav tools.Navigator
}

// get returns the navigator for root built with the [graph] settings g,
// making it with make on first use. A navigator for the same root built
// with other settings is closed and replaced.
func (p *Navigators) get(root string, g config.GraphConfig, make func() tools.Navigator) tools.Navigator {
	b, _ := json.Marshal(g)
	key := string(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	if p.byRoot == nil {
		p.byRoot = map[string]pooledNavigator{}
	}
	if old, ok := p.byRoot[root]; ok {
		if old.key == key {
			return old.nav
		}
		old.nav.Close()
	}
	nav := make()
	p.byRoot[root] = pooledNavigator{key: key, nav: nav}
	return nav
}

// Close shuts every navigator down. Agents built afterwards get none.
func (p *Navigators) Close() error {
	p.mu.Lock()
	navs := p.byRoot
	p.byRoot, p.closed = nil, true
	p.mu.Unlock()
	var first error
	for _, n := range navs {
		if err := n.nav.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// newNavigator returns the project graph of root: language servers that
// start on first use, kept in step with the documents fsys holds when it
// is the editor's.
func newNavigator(root string, fsys tools.FS, g config.GraphConfig) tools.Navigator {
	docs, _ := fsys.(tools.DocumentSource)
	return graph.New(graph.Options{
		Root:       root,
		FS:         fsys,
		Docs:       docs,
		Servers:    g.Servers,
		SettleTime: time.Duration(g.SettleMS) * time.Millisecond,
		Logger:     slog.Default().With("component", "graph"),
	})
}
