package lsp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider"
)

// sessions holds the agent sessions of one connection and the turns they
// are running. Turns run on their own goroutines so the connection keeps
// answering code actions, edits and other sessions while a model streams.
type sessions struct {
	s *Server

	mu   sync.Mutex // guards live
	live map[string]*liveSession
	// running counts turns in flight, so release can wait for them.
	running sync.WaitGroup
}

// liveSession is a session this connection has used.
type liveSession struct {
	id string
	// ws is the workspace whose agent runs the session's turns; a turn
	// moves it to the current one (follow). Guarded by sessions.mu.
	ws   *workspace
	sess *agent.Session
	// turn is the running turn, nil when idle; guarded by sessions.mu.
	turn *turnState
}

// turnState is a running turn.
type turnState struct {
	cancel context.CancelFunc
	// unwatch stops following the parent context.
	unwatch  func()
	progress *progress
	// closing is set once the client has been told the turn is over
	// (turn_done) and what is left of it asks nobody anything; guarded by
	// sessions.mu.
	closing bool
	// ended is closed when the turn releases its session.
	ended chan struct{}
}

func newSessions(s *Server) *sessions {
	return &sessions{s: s, live: map[string]*liveSession{}}
}

// errBusy reports a second turn for a session that is running one.
var errBusy = errors.New("this session is already running a turn; cancel it or wait")

// get returns the session with id, resuming it from its file if this
// connection has not used it yet; an empty id starts a new session.
func (m *sessions) get(ws *workspace, id string) (*liveSession, error) {
	m.mu.Lock()
	if ls, ok := m.live[id]; ok && id != "" {
		m.mu.Unlock()
		return ls, nil
	}
	m.mu.Unlock()
	var (
		sess *agent.Session
		err  error
	)
	if id == "" {
		sess, err = ws.agent.NewSession()
	} else {
		sess, err = ws.agent.Resume(id)
	}
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if ls, ok := m.live[sess.ID]; ok {
		sess.Close()
		return ls, nil
	}
	ls := &liveSession{id: sess.ID, ws: ws, sess: sess}
	m.live[sess.ID] = ls
	return ls, nil
}

// begin reserves the session for a turn whose context derives from
// parent and the server's lifetime. The returned context ends when the
// turn is cancelled, the parent ends, or the client goes away. A session
// whose turn is running is busy, unless the client has been told that
// turn is over: a client may start the next one as soon as it sees
// turn_done, and that waits the moments the last turn takes to close
// (its progress end, its diagnostics).
func (m *sessions) begin(parent context.Context, ls *liveSession, title string) (context.Context, *turnState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ls.turn != nil {
		if !ls.turn.closing {
			return nil, nil, errBusy
		}
		ended := ls.turn.ended
		m.mu.Unlock()
		var err error
		select {
		case <-ended:
		case <-parent.Done():
			err = parent.Err()
		case <-m.s.ctx.Done():
			err = m.s.ctx.Err()
		}
		m.mu.Lock()
		if err != nil {
			return nil, nil, err
		}
	}
	ctx, cancel := context.WithCancel(withTurnQuestions(m.s.ctx))
	// Follow the parent (a request's context, cancelled by
	// $/cancelRequest) with a goroutine that is joined before the turn
	// ends: a request context must not be touched once its handler has
	// returned, which rules out context.AfterFunc.
	done, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-parent.Done():
			cancel()
		case <-done:
		}
	}()
	var once sync.Once
	ts := &turnState{cancel: cancel, ended: make(chan struct{}), unwatch: func() {
		once.Do(func() { close(done); <-watched })
	}}
	ts.progress = m.s.newProgress(ls.id, title, ts.cancel)
	ls.turn = ts
	m.running.Add(1)
	return ctx, ts, nil
}

// end releases the session after a turn.
func (m *sessions) end(ls *liveSession, ts *turnState) {
	m.mu.Lock()
	if ls.turn == ts {
		ls.turn = nil
	}
	close(ts.ended)
	m.mu.Unlock()
	ts.unwatch()
	ts.cancel()
	m.running.Done()
}

// run executes one turn of ls.
func (m *sessions) run(parent context.Context, ls *liveSession, in agent.Input, title string) (agent.TurnResult, error) {
	ctx, ts, err := m.begin(parent, ls, title)
	if err != nil {
		return agent.TurnResult{SessionID: ls.id}, err
	}
	defer m.end(ls, ts)
	return m.turn(ctx, ls, ts, in, false)
}

// turn runs in through the agent's prompt pipeline in ls, which begin
// reserved as ts; reasonix.ask and reasonix.start both run their turns
// here, and the caller ends ts. A built-in command that changes the
// session shown (/new, /clear) is performed here too. It reports the turn
// as it goes: progress from start to end, and before the end a failure
// the user must see (a cancelled turn is none) or, for a background turn,
// whose answer has no request to return to, the answer. A client that
// waits for the progress to end has the outcome by then.
func (m *sessions) turn(ctx context.Context, ls *liveSession, ts *turnState, in agent.Input, background bool) (agent.TurnResult, error) {
	ts.progress.start(ctx)
	// Taken once the session is reserved, so a turn refused as busy
	// leaves them for the next; a built-in command, which asks the model
	// nothing, gives them back.
	rejected := m.s.review.TakeRejections(ls.id)
	if note, ok := m.s.rejectionNote(rejected); ok {
		in.Attachments = append(in.Attachments, note)
	}
	if rewindPrompt(in.Text) {
		// The built-in /rewind N asks the model nothing: what it changes
		// is the rewind, made at once in propose mode too.
		ctx = context.WithValue(ctx, rewindingKey{}, true)
	}
	ws, err := m.follow(ls)
	var res agent.TurnResult
	if err == nil {
		res, err = ws.agent.RunInput(ctx, ls.sess, in)
	} else {
		res.SessionID = ls.id
	}
	if res.Action != nil || (err != nil && res.Steps == 0) {
		m.s.review.ReturnRejections(ls.id, rejected)
	}
	if err == nil && res.Action != nil {
		res, err = m.perform(ctx, ls, res)
	}
	if err == nil {
		m.s.showNewErrors(ws, res)
	}
	switch {
	case err != nil && ctx.Err() == nil:
		m.s.reportTurnError(err, ws)
	case err == nil && background && res.Text != "":
		showMessage.notify(m.s.ctx, m.s, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "Reasonix: " + clip(res.Text, 1000)})
	}
	ts.progress.finish(res, err)
	return res, err
}

// workspaceOf returns the workspace ls runs in.
func (m *sessions) workspaceOf(ls *liveSession) *workspace {
	m.mu.Lock()
	defer m.mu.Unlock()
	return ls.ws
}

// follow moves ls, reserved for a turn, to its folder's current agent
// when the workspace was rebuilt since its last turn (the editor's
// settings changed, or the workspace's trust): a change applies to the
// next turn of an open session as to a new one's, a permission taken
// back included. The conversation stays (agent.Adopt). A session whose
// folder the editor removed, or whose configuration now fails, runs no
// more turns: it gets the error a new session would.
func (m *sessions) follow(ls *liveSession) (*workspace, error) {
	ws := m.workspaceOf(ls)
	if !m.s.folderOpen(ws.folder) {
		return nil, fmt.Errorf("the workspace folder %s is no longer open in the editor", ws.folder)
	}
	cur, err := m.s.workspaceFor(ws.folder)
	switch {
	case err != nil:
		return nil, err
	case cur == ws:
		return ws, nil
	}
	if err := cur.agent.Adopt(ls.sess); err != nil {
		return nil, err
	}
	m.mu.Lock()
	ls.ws = cur
	m.mu.Unlock()
	return cur, nil
}

// reportTurnError shows a failed turn's error with what to do about it;
// ws is nil for a turn that found no workspace to run in.
func (s *Server) reportTurnError(err error, ws *workspace) {
	msg := "Reasonix: " + err.Error()
	var ae *provider.APIError
	switch {
	case errors.Is(err, agent.ErrMaxSteps), errors.Is(err, agent.ErrBudgetExceeded):
		showMessage.notify(s.ctx, s, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg})
		return
	case provider.IsAuth(err) && ws != nil:
		msg += " — check the API key for " + ws.agent.ModelRef
	case errors.As(err, &ae) && ae.Status == 0:
		msg += " — is the model endpoint reachable?"
	}
	s.showError(s.ctx, msg)
}

// closing records that the client is being told a session's turn is over
// (turn_done). A turn that still performs a built-in command's action
// that asks the user (perform: /clear, /trust) is not over yet.
func (m *sessions) closing(e agent.Event) {
	if e.Parent != "" {
		return // a sub-task's turn
	}
	if e.Done != nil && e.Done.Action != nil {
		switch e.Done.Action.Kind {
		case agent.ActionClear, agent.ActionTrust:
			return
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if ls, ok := m.live[e.SessionID]; ok && ls.turn != nil {
		ls.turn.closing = true
	}
}

// progressFor returns the progress of a session's running turn.
func (m *sessions) progressFor(id string) *progress {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ls, ok := m.live[id]; ok && ls.turn != nil {
		return ls.turn.progress
	}
	return nil
}

// cancel stops a session's running turn and reports whether there was one.
func (m *sessions) cancel(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	ls, ok := m.live[id]
	if !ok || ls.turn == nil {
		return false
	}
	ls.turn.cancel()
	return true
}

// cancelByToken stops the turn whose progress token the client cancelled.
func (m *sessions) cancelByToken(token string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ls := range m.live {
		if ls.turn != nil && ls.turn.progress.token == token {
			ls.turn.cancel()
			return true
		}
	}
	return false
}

// cancelAll stops every running turn.
func (m *sessions) cancelAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ls := range m.live {
		if ls.turn != nil {
			ls.turn.cancel()
		}
	}
}

// cancelIn cancels the running turns of the sessions of folder.
func (m *sessions) cancelIn(folder string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ls := range m.live {
		if ls.turn != nil && ls.ws.folder == folder {
			ls.turn.cancel()
		}
	}
}

// wait blocks until no turn is running.
func (m *sessions) wait() { m.running.Wait() }

// closeAll flushes and closes every session file.
func (m *sessions) closeAll() {
	m.mu.Lock()
	live := slices.Collect(maps.Values(m.live))
	m.mu.Unlock()
	for _, ls := range live {
		// The editor's server is going: each session the user worked
		// in here ends (its SessionEnd hooks, whose log goes through
		// the event sink, so outside m.mu), and is kept.
		m.workspaceOf(ls).agent.EndSession(context.Background(), ls.sess, "other")
		if err := ls.sess.Close(); err != nil {
			m.s.log.Warn("closing session", "id", ls.id, "err", err)
		}
	}
}
