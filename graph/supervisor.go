package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// The restart budget: a server that crashes is started again on the next
// request, at most restartLimit times within restartWindow, so one that
// dies at start-up does not turn every request into a slow failure.
const (
	restartLimit  = 3
	restartWindow = 5 * time.Minute
	// startTimeout bounds a start up to the end of initialize; loading the
	// workspace happens afterwards, inside the first requests.
	startTimeout = 2 * time.Minute
)

// errClosed is returned once the Manager is closed.
var errClosed = errors.New("the project graph is shut down")

// A supervisor keeps one language server running for one configuration
// and workspace root: it starts the server on first use, starts it again
// after a crash within the restart budget, and shuts it down at the end.
type supervisor struct {
	cfg     ServerSpec
	root    string
	log     *slog.Logger
	hideEnv []string        // variables the server does not inherit
	base    context.Context // ends when the Manager closes

	mu       sync.Mutex // guards the fields below
	cur      *server    // the server last started; it may have died since
	pending  *attempt   // the start in flight, if any
	started  bool       // a first start was made
	restarts []time.Time
	closed   bool
}

// An attempt is one start of a server; done closes when it has finished.
type attempt struct {
	done chan struct{}
	srv  *server
	err  error
}

// get returns the running server, starting it when there is none. A
// cancelled ctx returns at once; the start goes on for the next caller.
func (sv *supervisor) get(ctx context.Context) (*server, error) {
	sv.mu.Lock()
	if sv.closed {
		sv.mu.Unlock()
		return nil, errClosed
	}
	if sv.cur != nil && sv.cur.alive() {
		s := sv.cur
		sv.mu.Unlock()
		return s, nil
	}
	a := sv.pending
	if a == nil {
		if err := sv.allowStart(); err != nil {
			sv.mu.Unlock()
			return nil, err
		}
		a = &attempt{done: make(chan struct{})}
		sv.pending = a
		go sv.start(a)
	}
	sv.mu.Unlock()
	select {
	case <-a.done:
		return a.srv, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// running returns the server if it is up, without starting it.
func (sv *supervisor) running() *server {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.cur != nil && sv.cur.alive() {
		return sv.cur
	}
	return nil
}

// allowStart checks the restart budget and records a start; sv.mu is
// held. The first start is free; each later one is a restart.
func (sv *supervisor) allowStart() error {
	if !sv.started {
		sv.started = true
		return nil
	}
	now := time.Now()
	sv.restarts = slices.DeleteFunc(sv.restarts, func(t time.Time) bool { return now.Sub(t) >= restartWindow })
	if len(sv.restarts) >= restartLimit {
		next := sv.restarts[0].Add(restartWindow)
		return fmt.Errorf("language server %s was restarted %d times in the last %v and is not started again before %s; use grep and read_file meanwhile",
			sv.cfg.Name, len(sv.restarts), restartWindow, next.Format(time.TimeOnly))
	}
	sv.restarts = append(sv.restarts, now)
	sv.log.Warn("restarting language server", "server", sv.cfg.Name, "root", sv.root, "restarts", len(sv.restarts))
	return nil
}

// forgetStart undoes the record of a start that found no server to run:
// that is not a crash, and the user may install it and try again.
func (sv *supervisor) forgetStart() {
	if n := len(sv.restarts); n > 0 {
		sv.restarts = sv.restarts[:n-1]
	} else {
		sv.started = false
	}
}

// start runs one attempt.
func (sv *supervisor) start(a *attempt) {
	ctx, cancel := context.WithTimeout(sv.base, startTimeout)
	defer cancel()
	s, err := startServer(ctx, sv.cfg, sv.root, sv.hideEnv, sv.log)
	sv.mu.Lock()
	closed := sv.closed
	if err == nil && !closed {
		sv.cur = s
	}
	if isMissing(err) {
		sv.forgetStart()
	}
	sv.pending = nil
	sv.mu.Unlock()
	if err == nil && closed {
		s.shutdown()
		err = errClosed
	}
	a.srv, a.err = s, err
	close(a.done)
}

// close shuts the server down, waiting for a start in flight first.
func (sv *supervisor) close() {
	sv.mu.Lock()
	sv.closed = true
	s, a := sv.cur, sv.pending
	sv.mu.Unlock()
	if a != nil {
		<-a.done // the attempt shuts its own server down
	}
	if s != nil {
		s.shutdown()
	}
}
