package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent"
)

// progress shows a turn in the editor's progress area: begin with the
// task, a report per tool call, end with the outcome. Clients without
// work-done progress get nothing here; they still get log messages.
type progress struct {
	s      *Server
	token  string
	title  string
	cancel context.CancelFunc

	mu      sync.Mutex // guards started and ended
	started bool
	ended   bool
}

var progressSeq atomic.Int64

// progressCreateWait bounds the wait for the client's answer to
// window/workDoneProgress/create. A client that loses the request must
// not hold the turn: Emacs lsp-mode 8.0.0 drops the messages that arrive
// together with the answer to a request it waits for, and the request
// follows the answer to reasonix.start at once. Without an answer the
// turn goes on without progress.
const progressCreateWait = 5 * time.Second

func (s *Server) newProgress(sessionID, title string, cancel context.CancelFunc) *progress {
	return &progress{
		s:      s,
		token:  fmt.Sprintf("reasonix-%s-%d", sessionID, progressSeq.Add(1)),
		title:  title,
		cancel: cancel,
	}
}

// start creates the token and sends begin. It calls back into the client,
// so it runs on the turn's goroutine, never on the read loop.
func (p *progress) start(ctx context.Context) {
	s := p.s
	s.mu.Lock()
	supported := s.caps.workDoneProgress
	s.mu.Unlock()
	if !supported {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, progressCreateWait)
	defer cancel()
	if _, err := workDoneProgressCreate.call(cctx, s, &protocol.WorkDoneProgressCreateParams{Token: protocol.String(p.token)}); err != nil {
		s.log.Info("progress not created", "err", err)
		return
	}
	yes := true
	msg := p.title
	p.send(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: "Reasonix", Message: &msg, Cancellable: &yes})
	p.mu.Lock()
	p.started = true
	p.mu.Unlock()
}

// report updates the message, e.g. with the tool call running now.
func (p *progress) report(msg string) {
	p.mu.Lock()
	live := p.started && !p.ended
	p.mu.Unlock()
	if live {
		p.send(&protocol.WorkDoneProgressReport{Kind: "report", Message: &msg})
	}
}

// finish sends end with the turn's outcome.
func (p *progress) finish(res agent.TurnResult, err error) {
	p.mu.Lock()
	live := p.started && !p.ended
	p.ended = true
	p.mu.Unlock()
	if !live {
		return
	}
	msg := outcome(res, err)
	p.send(&protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
}

func (p *progress) send(value any) {
	b, err := protocol.Marshal(value)
	if err != nil {
		return
	}
	progressNotice.notify(p.s.ctx, p.s, &protocol.ProgressParams{Token: protocol.String(p.token), Value: b})
}

// WorkDoneProgressCancel stops the turn behind a progress the user
// cancelled in the editor.
func (s *Server) WorkDoneProgressCancel(ctx context.Context, params *protocol.WorkDoneProgressCancelParams) error {
	if t, ok := params.Token.(protocol.String); ok {
		s.sessions.cancelByToken(string(t))
	}
	return nil
}

// outcome is a turn's result in one line.
func outcome(res agent.TurnResult, err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "Cancelled"
	case errors.Is(err, agent.ErrMaxSteps):
		return fmt.Sprintf("Stopped after %d steps (max_steps)", res.Steps)
	case errors.Is(err, agent.ErrBudgetExceeded):
		return "Stopped: budget exceeded"
	case err != nil:
		return "Failed: " + err.Error()
	}
	s := fmt.Sprintf("Done: %d tool calls, %.0f%% cache hit", res.ToolCalls, 100*res.Usage.HitRatio())
	if res.Priced {
		s += fmt.Sprintf(", $%.4f", res.Cost)
	}
	if res.Effort != "" {
		s += ", effort " + res.Effort
	}
	if n := agent.NewErrorsSummary(res.NewErrors); n != "" {
		s += "; " + n
	}
	if ts := agent.TestsSummary(res.Tests); ts != "" {
		s += "; " + ts
	}
	return s
}

// event receives every agent event: it feeds the progress, logs tool
// activity, and forwards the event to clients that asked for the stream.
func (s *Server) event(e agent.Event) {
	// A sub-task's tool calls are marked as its.
	nest := ""
	if e.Parent != "" {
		nest = "↳ "
	}
	switch e.Kind {
	case agent.EventToolStart:
		if p := s.sessions.progressFor(e.SessionID); p != nil {
			p.report(nest + e.Tool.Title)
		}
	case agent.EventToolProgress:
		if p := s.sessions.progressFor(e.SessionID); p != nil {
			p.report(nest + e.Tool.Title + " — " + e.Text)
		}
	case agent.EventToolResult:
		mark := "✓"
		if e.Tool.IsError {
			mark = "✗"
		}
		line := nest + mark + " " + e.Tool.Title
		if e.Tool.Summary != "" {
			line += " — " + e.Tool.Summary
		}
		s.logMessage(s.ctx, protocol.MessageTypeLog, "Reasonix: "+line)
	case agent.EventRetry, agent.EventNotice, agent.EventCompaction, agent.EventRepair, agent.EventCheck, agent.EventHook:
		s.logMessage(s.ctx, protocol.MessageTypeInfo, "Reasonix: "+e.Text)
	case agent.EventFileChanged:
		if e.File.Source == agent.SourceShell {
			s.logMessage(s.ctx, protocol.MessageTypeLog, "Reasonix: "+nest+"the shell command "+string(e.File.Status)+" "+e.File.Path)
			s.recordShellChange(e.SessionID, e.File)
		}
	case agent.EventTurnDone:
		// Before the client hears of it, which may start the next turn.
		s.sessions.closing(e)
	case agent.EventRewind:
		s.rewound(e)
	}
	s.mu.Lock()
	stream := s.caps.events
	s.mu.Unlock()
	if stream {
		s.notifyEvent(e)
	}
}

// notifyEvent sends an event as a reasonix/event notification.
func (s *Server) notifyEvent(e any) {
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	if err := agentEvent.notify(s.ctx, s, rawJSON(b)); err != nil {
		s.log.Info("event not sent", "err", err)
	}
}

// logMessage sends window/logMessage.
func (s *Server) logMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	if s.conn == nil {
		return
	}
	if err := logMessage.notify(ctx, s, &protocol.LogMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Info("log message not sent", "err", err)
	}
}

// showError sends window/showMessage for an error the user must see.
func (s *Server) showError(ctx context.Context, msg string) {
	s.show(ctx, protocol.MessageTypeError, msg)
}

// showWarning sends window/showMessage for a problem the user should see
// that does not stop anything.
func (s *Server) showWarning(ctx context.Context, msg string) {
	s.show(ctx, protocol.MessageTypeWarning, msg)
}

func (s *Server) show(ctx context.Context, typ protocol.MessageType, msg string) {
	s.log.Warn(msg)
	if s.conn == nil {
		return
	}
	if err := showMessage.notify(ctx, s, &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Info("message not shown", "err", err)
	}
}
