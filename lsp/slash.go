package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/agent"
)

// Slash commands over LSP. A prompt of reasonix.ask or reasonix.start
// goes through the agent's prompt pipeline like any front end's: the
// agent answers /help, /cost, /mcp, /model and /compact itself, and
// reports /new and /clear, which change the session the client shows.
// Those two are performed here, and the answer's sessionId is then the
// session to show from now on; /model REF and /effort LEVEL, which
// switched the session's model or reasoning effort, are worded here.

// The answers of /clear's question.
const (
	titleClear = "Clear conversation"
	titleKeep  = "Keep it"
)

// perform carries out a built-in command the agent reported for ls.
func (m *sessions) perform(ctx context.Context, ls *liveSession, res agent.TurnResult) (agent.TurnResult, error) {
	switch res.Action.Kind {
	case agent.ActionModel:
		if res.Action.Model != "" {
			res.Text = "This session now runs on " + res.Action.Model + "."
		}
	case agent.ActionEffort:
		if res.Action.Effort != "" {
			res.Text = "This session's requests now ask for " + res.Action.Effort + " reasoning effort."
		}
	case agent.ActionNew:
		next, err := m.get(m.workspaceOf(ls), "")
		if err != nil {
			return res, fmt.Errorf("/new: %w", err)
		}
		res.SessionID, res.ContextFill = next.id, agent.ContextFill{} // the old session's
		res.Text = fmt.Sprintf("Started session %s; session %s stays saved.", next.id, ls.id)
	case agent.ActionClear:
		answer, err := m.s.choose(ctx, choice{
			params: approveParams{
				SessionID: ls.id, Tool: "/clear", Title: "/clear",
				Message: "Clear this conversation? It is deleted and cannot be resumed.",
				Actions: []string{titleClear, titleKeep},
			},
			dialog: "Reasonix: clear this conversation? It is deleted and cannot be resumed.",
			typ:    protocol.MessageTypeInfo,
			what:   "The question whether to clear the conversation", outcome: "it was kept",
		})
		switch {
		case errors.Is(err, errCannotAsk):
			// Deleting needs a yes no one can give here.
			res.Action.Cancelled = true
			res.Text = "The conversation was kept: this editor cannot ask you to confirm /clear. /new starts a new conversation and keeps this one saved."
			return res, nil
		case err != nil && !unanswered(err):
			return res, fmt.Errorf("/clear: %w", err)
		case answer != titleClear:
			res.Action.Cancelled = true
			res.Text = "The conversation was kept."
			return res, nil
		}
		if err := m.discard(ls); err != nil {
			return res, fmt.Errorf("/clear: %w", err)
		}
		next, err := m.get(m.workspaceOf(ls), "")
		if err != nil {
			return res, fmt.Errorf("/clear: %w", err)
		}
		res.SessionID, res.ContextFill = next.id, agent.ContextFill{} // the old session's
		res.Text = fmt.Sprintf("The conversation was deleted; session %s starts afresh.", next.id)
	case agent.ActionTrust:
		args := trustArgs{URI: string(uri.File(m.workspaceOf(ls).root))}
		if res.Action.Revoke {
			args.Action = trustRevoke
		}
		t, err := m.s.trust(ctx, args)
		if err != nil {
			return res, fmt.Errorf("/trust: %w", err)
		}
		switch {
		case res.Action.Revoke:
			res.Text = fmt.Sprintf("Forgot what you trusted in %s: its own servers and settings are off from the next turn.", t.Workspace)
		case t.Granted:
			res.Text = fmt.Sprintf("You trust the configuration of %s: it takes effect from the next turn.", t.Workspace)
		}
	}
	return res, nil
}

// discard forgets ls and deletes its session file.
func (m *sessions) discard(ls *liveSession) error {
	m.mu.Lock()
	delete(m.live, ls.id)
	ws := ls.ws
	m.mu.Unlock()
	ws.agent.EndSession(m.s.ctx, ls.sess, "clear")
	return ls.sess.Discard()
}

type listCommandsParams struct {
	// URI picks the workspace (a file or folder in it); empty means the
	// first workspace folder.
	URI string `json:"uri,omitempty"`
}

type listCommandsResult struct {
	Commands []agent.Command `json:"commands"`
}

// listCommands lists the slash commands of a workspace, for the panels'
// and Neovim's completion. Command files that were skipped are logged.
func (s *Server) listCommands(_ context.Context, p listCommandsParams) (listCommandsResult, error) {
	anchor := s.anchor("")
	if p.URI != "" {
		anchor = pathOf(uri.URI(p.URI))
	}
	ws, err := s.workspaceFor(anchor)
	if err != nil {
		return listCommandsResult{}, internalError(err)
	}
	cmds, warnings := ws.agent.Commands()
	for _, w := range warnings {
		s.logMessage(s.ctx, protocol.MessageTypeWarning, "Reasonix: command file "+w)
	}
	return listCommandsResult{Commands: cmds}, nil
}
