package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/permission"
)

// Putting questions to the user.
//
// The server asks in a few places: whether a tool call may run
// (permission.go), the agent's own questions (question.go), a plan to
// approve and /clear (choose), whether to accept pending proposals before
// a shell command (review_shell.go), and whether to trust a workspace's
// configuration (trust.go). Two rules hold for every one of them.
//
// A client that declared no way to ask is never asked (clientCaps.askWay).
// What needed its answer is refused at once, fail closed, and the user is
// told what would allow it: a call is refused by the permission gate,
// which has no approver for such a client (buildWorkspace), with the
// allow rule that would let it run.
//
// No question holds anything forever. Each waits at most
// Options.AnswerTimeout; then it is cancelled at the client
// ($/cancelRequest), the user is told, and it counts as unanswered: Deny
// for a permission, no answer for the agent's questions, the cautious
// action for the others. A question left unanswered that long means no
// one is at the editor, so the rest of that turn asks nothing more: its
// questions are refused at once.

// DefaultAnswerTimeout bounds a question when Options.AnswerTimeout is
// zero. Ten minutes is long enough to read a plan or a long command,
// look at the code it touches and step away briefly; a dialog the editor
// lost, hid or never showed releases the turn within that time instead
// of holding it (and its session) until the editor quits.
const DefaultAnswerTimeout = 10 * time.Minute

// askWay is how a question reaches the user.
type askWay int

const (
	// askNever: the client declared no way to ask; refuse at once.
	askNever askWay = iota
	// askDialog: window/showMessageRequest.
	askDialog
	// askCustom: the Reasonix request the client declared for this kind
	// of question (reasonix/approve, reasonix/ask).
	askCustom
)

// dialogs reports whether the client answers window/showMessageRequest.
//
// LSP 3.16 gave that request a client capability,
// ClientCapabilities.window.showMessage (ShowMessageRequestClientCapabilities):
// a client that declares it answers (Neovim 0.7, VS Code's language
// client, vscode-languageserver-protocol users). Before 3.16 the request
// had none, every client was meant to handle it, and several that do
// still declare nothing for it: eglot 1.9 (no window capabilities at
// all), lsp-mode 8 (showMessage null), vim-lsp and yegappan/lsp
// (window.workDoneProgress only). What each of those declares is
// workspace.applyEdit: they take requests from the server. A client that
// declares neither takes none: ALE 3.3 declares applyEdit false and no
// window capabilities, and leaves window/showMessageRequest unanswered
// for ever.
func (c clientCaps) dialogs() bool { return c.showMessage || c.applyEdit }

// askWay is the one rule for every question: custom says whether the
// client declared the Reasonix request for this kind of question.
func (c clientCaps) askWay(custom bool) askWay {
	switch {
	case custom:
		return askCustom
	case c.dialogs():
		return askDialog
	}
	return askNever
}

// capsNow returns the client's capabilities.
func (s *Server) capsNow() clientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// errCannotAsk is why a question was not put to a client that declared
// no way to ask.
var errCannotAsk = errors.New("this editor declared no way to ask the user (neither window.showMessage nor workspace.applyEdit among its capabilities)")

// errUnanswered refuses the questions of a turn after one of them went
// unanswered.
var errUnanswered = errors.New("an earlier question of this turn had no answer in time, so no one seems to be at the editor: this turn asks nothing more")

// errNoAnswer is the cause of a question's end when its time is up.
var errNoAnswer = errors.New("the user gave no answer in time")

// turnQuestions is the state a turn's questions share, in its context.
type turnQuestions struct {
	// unanswered is set once a question of the turn had no answer in time.
	unanswered atomic.Bool
}

type turnQuestionsKey struct{}

// withTurnQuestions gives a turn's context the state its questions share.
func withTurnQuestions(ctx context.Context) context.Context {
	return context.WithValue(ctx, turnQuestionsKey{}, new(turnQuestions))
}

func turnQuestionsOf(ctx context.Context) *turnQuestions {
	q, _ := ctx.Value(turnQuestionsKey{}).(*turnQuestions)
	return q
}

// await puts one question to the user: call sends it and waits for the
// answer, under a context bounded by the answer timeout. When the time is
// up, the user is told that what (the question, as a noun phrase) had no
// answer and so outcome, and await returns an error wrapping
// errNoAnswer; the callers treat it as no answer. A turn whose earlier
// question had no answer is not asked again (errUnanswered).
func (s *Server) await(ctx context.Context, what, outcome string, call func(ctx context.Context) error) error {
	q := turnQuestionsOf(ctx)
	if q != nil && q.unanswered.Load() {
		return errUnanswered
	}
	bound := s.opts.AnswerTimeout
	qctx, cancel := context.WithTimeoutCause(ctx, bound, errNoAnswer)
	defer cancel()
	err := call(qctx)
	if ctx.Err() != nil || !errors.Is(context.Cause(qctx), errNoAnswer) {
		return err
	}
	if q != nil {
		q.unanswered.Store(true)
	}
	s.showWarning(ctx, fmt.Sprintf("Reasonix: %s had no answer within %s, so %s.", what, wordDuration(bound), outcome))
	return fmt.Errorf("%w (%s)", errNoAnswer, wordDuration(bound))
}

// wordDuration words a bound for the user: "10 minutes", else as Go
// prints it.
func wordDuration(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "1 minute"
	case d > 0 && d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}

// refused tells the user of a call refused without asking, because the
// client declared no way to ask (the gate has no approver), and what
// would allow it. Each distinct notice is shown once per connection, as
// a warning; every refusal is logged.
func (s *Server) refused(x permission.Refusal) {
	call := permission.Visible(agent.DescribeCall(x.Tool, x.Args))
	msg := fmt.Sprintf("Reasonix refused %s: %s, and this editor cannot ask you (it declares neither window.showMessage nor workspace.applyEdit). ", call, x.Why)
	switch {
	case x.Posture == permission.PostureAuto && x.Allow != "":
		msg += fmt.Sprintf("To allow it, add to reasonix.toml: [permissions] allow = [%q]", x.Allow)
	case x.Posture == permission.PostureAuto:
		msg += `To allow such calls, set approval = "auto" under [permissions] in reasonix.toml`
	case x.Posture == permission.PostureYolo:
		msg += `An ask rule requires approval for it: only approval = "yolo" under [permissions], or an editor that can ask, lets it run`
	default:
		msg += "Only a person may allow it, each time: use an editor that can ask"
	}
	msg += "."
	s.logMessage(s.ctx, protocol.MessageTypeWarning, msg)
	s.mu.Lock()
	shown := s.refusalsShown[msg]
	s.refusalsShown[msg] = true
	s.mu.Unlock()
	if !shown {
		s.showWarning(s.ctx, clip(msg, 1000))
	}
}

// unanswered reports whether err ended a question that had no answer:
// in time (errNoAnswer), or at all because an earlier one had none
// (errUnanswered).
func unanswered(err error) bool {
	return errors.Is(err, errNoAnswer) || errors.Is(err, errUnanswered)
}
