package agenttest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// A Gate stands in front of a model server and holds the requests a test
// picks until the test opens it, so that requests sent at once are in
// flight at once however fast the server would answer them: what a
// client decides before a request goes out is tested without sleeps.
type Gate struct {
	next http.Handler
	pick func(body string) bool

	mu      sync.Mutex // guards the fields below
	held    int        // picked requests that arrived before Open
	open    chan struct{}
	opened  bool
	arrived chan int
}

// NewGate returns a gate in front of next that holds the requests whose
// body pick picks.
func NewGate(next http.Handler, pick func(body string) bool) *Gate {
	return &Gate{next: next, pick: pick, open: make(chan struct{}), arrived: make(chan int, 1024)}
}

// Start serves the gate on a loopback listener for the rest of the test
// and returns its base URL.
func (g *Gate) Start(tb testing.TB) string {
	tb.Helper()
	srv := httptest.NewServer(g)
	tb.Cleanup(func() {
		g.Open() // a held request would keep Close waiting
		srv.Close()
	})
	return srv.URL
}

// Arrived receives the number of picked requests held so far each time
// one more arrives before Open.
func (g *Gate) Arrived() <-chan int { return g.arrived }

// Open lets the held requests through, and every later one.
func (g *Gate) Open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.opened {
		g.opened = true
		close(g.open)
	}
}

// Held is how many picked requests arrived before Open.
func (g *Gate) Held() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if g.pick(string(body)) {
		g.mu.Lock()
		if !g.opened {
			g.held++
			g.arrived <- g.held
		}
		g.mu.Unlock()
		select {
		case <-g.open:
		case <-r.Context().Done():
			return
		}
	}
	g.next.ServeHTTP(w, r)
}
