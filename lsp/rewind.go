package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent"
)

// Rewinding over LSP. reasonix.checkpoints lists the turns of a session
// that can be rewound to; reasonix.rewind puts the files those turns
// changed, and the conversation, back to before one of them (or, with
// preview, says what it would do). The agent does the work (agent.Rewind):
// its FS here is the editor's, so open documents change through one
// versioned workspace/applyEdit the user can undo, and closed files on
// disk as any change of the agent's. What is left to the server is its
// own state about those turns: proposals pending in propose mode on the
// files they changed are dropped first (the rewind makes them moot), and
// after a rewind from any source (a /rewind typed as a prompt too) the
// editor is shown what remains.

// The rewind commands.
const (
	cmdRewind      = "reasonix.rewind"
	cmdCheckpoints = "reasonix.checkpoints"
)

// rewindArgs is the argument of reasonix.rewind.
type rewindArgs struct {
	SessionID string `json:"sessionId"`
	// Turn is a pointer so a missing turn is told apart from turn 0.
	Turn    *int `json:"turn"`
	Preview bool `json:"preview,omitempty"`
}

// checkpointsArgs is the argument of reasonix.checkpoints.
type checkpointsArgs struct {
	SessionID string `json:"sessionId"`
}

// checkpointsResult is what reasonix.checkpoints answers.
type checkpointsResult struct {
	SessionID string             `json:"sessionId"`
	Turns     []agent.Checkpoint `json:"turns"`
}

// rewindingKey marks the context of a rewind the user asked for, through
// reasonix.rewind or a /rewind N prompt: its changes are made, not
// proposed (editorFS.Apply). The rewind is the user's decision already,
// and one left waiting for review would have cut the conversation back
// while the files were not.
type rewindingKey struct{}

// rewindPrompt reports whether a prompt is the built-in /rewind, as the
// agent's prompt pipeline reads its first word; no command file can take
// a built-in's name.
func rewindPrompt(text string) bool {
	words := strings.Fields(text)
	return len(words) > 0 && words[0] == "/rewind"
}

// rewinding reports whether ctx is a rewind's.
func rewinding(ctx context.Context) bool {
	v, _ := ctx.Value(rewindingKey{}).(bool)
	return v
}

// knownSession returns the session id names: one this connection uses, or
// a saved one of the first workspace, resumed. An unknown id is
// InvalidParams.
func (s *Server) knownSession(command, id string) (*liveSession, error) {
	if id == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, command+" needs a sessionId")
	}
	s.sessions.mu.Lock()
	ls, ok := s.sessions.live[id]
	s.sessions.mu.Unlock()
	if ok {
		return ls, nil
	}
	ws, err := s.workspaceFor(s.anchor(""))
	if err != nil {
		return nil, internalError(err)
	}
	ls, err = s.sessions.get(ws, id)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: no session %q: %v", command, id, err))
	}
	return ls, nil
}

// checkpoints lists the turns of a session that can be rewound to.
func (s *Server) checkpoints(_ context.Context, args checkpointsArgs) (checkpointsResult, error) {
	ls, err := s.knownSession(cmdCheckpoints, args.SessionID)
	if err != nil {
		return checkpointsResult{}, err
	}
	cps, err := s.sessions.workspaceOf(ls).agent.Checkpoints(ls.sess)
	if err != nil {
		return checkpointsResult{}, internalError(fmt.Errorf("%s: %w", cmdCheckpoints, err))
	}
	if cps == nil {
		cps = []agent.Checkpoint{} // a list, also when empty
	}
	return checkpointsResult{SessionID: ls.id, Turns: cps}, nil
}

// rewind rewinds a session to before a turn, or previews that.
func (s *Server) rewind(ctx context.Context, args rewindArgs) (agent.RewindPlan, error) {
	if args.Turn == nil {
		return agent.RewindPlan{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, cmdRewind+" needs a turn (a number from reasonix.checkpoints)")
	}
	ls, err := s.knownSession(cmdRewind, args.SessionID)
	if err != nil {
		return agent.RewindPlan{}, err
	}
	a, turn := s.sessions.workspaceOf(ls).agent, *args.Turn
	cps, err := a.Checkpoints(ls.sess)
	if err != nil {
		return agent.RewindPlan{}, internalError(fmt.Errorf("%s: %w", cmdRewind, err))
	}
	if !hasTurn(cps, turn) {
		return agent.RewindPlan{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: session %s has no turn %d to rewind to (%s)", cmdRewind, ls.id, turn, turnsText(cps)))
	}
	if args.Preview {
		plan, err := a.PlanRewind(ctx, ls.sess, turn)
		if err != nil {
			return agent.RewindPlan{}, rewindError(err)
		}
		return plan, nil
	}
	// Reserved as for a turn, so no turn starts while files and
	// conversation are put back; a session running one is busy.
	tctx, ts, err := s.sessions.begin(ctx, ls, "Rewind")
	if err != nil {
		return agent.RewindPlan{}, rewindError(err)
	}
	defer s.sessions.end(ls, ts)
	files := rewoundFiles(cps, turn)
	var closed []string
	for _, p := range files {
		if _, open := s.docs.byPath(p); !open {
			closed = append(closed, p)
		}
	}
	s.dropProposals(ls.id, files)
	plan, err := a.Rewind(context.WithValue(tctx, rewindingKey{}, true), ls.sess, turn)
	if err != nil {
		return agent.RewindPlan{}, rewindError(err)
	}
	summary := a.RewindSummary(plan) + "."
	unsaved, err := s.saveRewound(tctx, s.sessions.workspaceOf(ls).root, closed)
	if err != nil {
		unsaved = []string{err.Error()}
	}
	if len(unsaved) > 0 {
		summary += " The editor holds the rewound text of files it did not save: " + strings.Join(unsaved, ", ") + "."
	}
	showMessage.notify(s.ctx, s, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "Reasonix: " + summary})
	return plan, nil
}

// rewindError makes a failed rewind the error its request answers: a
// session running a turn is a request refused for now, anything else a
// failure of the server.
func rewindError(err error) error {
	if errors.Is(err, errBusy) || errors.Is(err, agent.ErrBusy) {
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, cmdRewind+": the session is running a turn; cancel it or wait for it to end, then rewind")
	}
	return internalError(fmt.Errorf("%s: %w", cmdRewind, err))
}

func hasTurn(cps []agent.Checkpoint, turn int) bool {
	for _, c := range cps {
		if c.Turn == turn {
			return true
		}
	}
	return false
}

// turnsText names the turns a session can be rewound to, for an error.
func turnsText(cps []agent.Checkpoint) string {
	if len(cps) == 0 {
		return "it has none"
	}
	nums := make([]string, len(cps))
	for i, c := range cps {
		nums[i] = fmt.Sprint(c.Turn)
	}
	return "its turns are " + strings.Join(nums, ", ")
}

// rewoundFiles lists the files the turns from turn on changed.
func rewoundFiles(cps []agent.Checkpoint, turn int) []string {
	var out []string
	for _, c := range cps {
		if c.Turn < turn {
			continue
		}
		for _, f := range c.Files {
			out = append(out, f.Path)
		}
	}
	return out
}

// dropProposals withdraws what session proposed on paths and has not been
// settled, with the rejections of it not yet told, and shows the editor
// what is left of the proposals on those files.
func (s *Server) dropProposals(session string, paths []string) {
	for _, p := range s.review.Withdraw(session, paths) {
		s.review.forgetNewErrors(p)
		s.publishProposals(s.ctx, p)
	}
}

// rewound is told of every rewind (agent.EventRewind), also one typed as
// /rewind N: what the session still proposed on the files it put back is
// dropped.
func (s *Server) rewound(e agent.Event) {
	if e.Rewind == nil {
		return
	}
	paths := make([]string, 0, len(e.Rewind.Files))
	for _, f := range e.Rewind.Files {
		paths = append(paths, f.Path)
	}
	s.dropProposals(e.SessionID, paths)
}
