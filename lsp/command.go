package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/gotest"
)

// cmdStart starts a turn and answers at once; code actions use it so no
// editor waits on a request for minutes.
const cmdStart = "reasonix.start"

// commands is every workspace/executeCommand command, in the order of
// docs/PROTOCOL.md (a test keeps them, and the editors' tables, in step).
// reasonix.ask's turn calls back into the client (dialogs, edits), and
// reasonix.start may build the workspace's agent, starting its MCP
// servers: both release the read loop, as reasonix.rewind (whose edit the
// client answers) and reasonix.checkpoints (which may resume a session,
// building its workspace's agent) do.
var commands = []endpoint{
	{name: "reasonix.ask", async: true, serve: handler((*Server).ask)},
	{name: cmdStart, async: true, serve: handler((*Server).start)},
	{name: cmdFix, async: true, serve: handler((*Server).fix)},
	{name: "reasonix.cancel", serve: handler((*Server).cancelTurn)},
	{name: cmdReviewAccept, async: true, serve: handler((*Server).acceptChange)},
	{name: cmdReviewReject, async: true, serve: handler((*Server).rejectChange)},
	{name: cmdReviewDiff, async: true, serve: handler((*Server).showDiff)},
	{name: cmdTrust, async: true, serve: handler((*Server).trust)},
	{name: cmdRewind, async: true, serve: handler((*Server).rewind)},
	{name: cmdCheckpoints, async: true, serve: handler((*Server).checkpoints)},
}

func commandNames() []string { return names(commands) }

// askArgs is the argument object of reasonix.ask and reasonix.start.
type askArgs struct {
	Prompt    string          `json:"prompt"`
	URI       string          `json:"uri,omitempty"`
	Range     *protocol.Range `json:"range,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	// Diagnostic makes the turn a fix for it (the quick fix).
	Diagnostic json.RawMessage `json:"diagnostic,omitempty"`
	// Plan puts the session in plan mode: read-only tools until the user
	// approves the plan.
	Plan bool `json:"plan,omitempty"`
}

// askResult is what reasonix.ask answers.
type askResult struct {
	SessionID string         `json:"sessionId"`
	Turn      int            `json:"turn"`
	Text      string         `json:"text"`
	Stop      string         `json:"stop"`
	Error     string         `json:"error,omitempty"`
	Steps     int            `json:"steps"`
	ToolCalls int            `json:"toolCalls"`
	Usage     provider.Usage `json:"usage"`
	CacheHit  float64        `json:"cacheHitRatio"`
	Cost      float64        `json:"cost"`
	Priced    bool           `json:"priced"`
	// Model is the model the turn ran on.
	Model string `json:"model,omitempty"`
	// Changes are the files the turn changed; NewErrors the errors the
	// check of its edits found that it brought in and did not repair.
	Changes   []agent.FileChange `json:"changes,omitempty"`
	NewErrors []tools.Diagnostic `json:"newErrors,omitempty"`
	// Tests is the run of the tests that reach the turn's changes.
	Tests *gotest.Report `json:"tests,omitempty"`
	// Action is set when the prompt was a built-in command (slash.go);
	// SessionID is then the session the client shows from now on.
	Action *agent.Action `json:"action,omitempty"`
	// ContextFill is how full the session's window is after the turn.
	agent.ContextFill
}

// startResult is what reasonix.start answers.
type startResult struct {
	SessionID string `json:"sessionId"`
}

type cancelArgs struct {
	SessionID string `json:"sessionId"`
}

type cancelResult struct {
	Cancelled bool `json:"cancelled"`
}

func (s *Server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	c, ok := served(commands, params.Command)
	if !ok {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("unknown command %q; this server runs %s", params.Command, strings.Join(commandNames(), ", ")))
	}
	var arg protocol.LSPAny
	if len(params.Arguments) > 0 {
		arg = params.Arguments[0]
	}
	b, err := c.call(ctx, s, arg, decodeArg)
	if err != nil {
		return nil, err
	}
	return protocol.LSPAny(b), nil
}

// decodeArg decodes a command's first argument, which every command needs.
func decodeArg(arg protocol.LSPAny, v any) error {
	if arg == nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "the command needs an argument object")
	}
	if err := json.Unmarshal(arg, v); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "bad command argument: "+err.Error())
	}
	return nil
}

// cancelTurn stops a session's running turn.
func (s *Server) cancelTurn(_ context.Context, args cancelArgs) (cancelResult, error) {
	if args.SessionID == "" {
		return cancelResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, "reasonix.cancel needs a sessionId")
	}
	return cancelResult{Cancelled: s.sessions.cancel(args.SessionID)}, nil
}

// prepare resolves a request to its session and the input of the agent's
// prompt pipeline, with a title for the progress.
func (s *Server) prepare(args askArgs) (*liveSession, agent.Input, string, error) {
	path := ""
	if args.URI != "" {
		path = pathOf(uri.URI(args.URI))
	}
	s.mu.Lock()
	anchor := path
	if anchor == "" && len(s.folders) > 0 {
		anchor = s.folders[0].path
	}
	s.mu.Unlock()
	ws, err := s.workspaceFor(anchor)
	if err != nil {
		s.showError(s.ctx, "Reasonix configuration: "+err.Error())
		return nil, agent.Input{}, "", err
	}
	in, title, err := s.buildPrompt(args, path)
	if err != nil {
		return nil, agent.Input{}, "", err
	}
	ls, err := s.sessions.get(ws, args.SessionID)
	if err != nil {
		return nil, agent.Input{}, "", jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	if args.Plan {
		ls.sess.SetPlanMode(true)
	}
	return ls, in, title, nil
}

// ask runs a turn and returns its result.
func (s *Server) ask(ctx context.Context, args askArgs) (askResult, error) {
	ls, in, title, err := s.prepare(args)
	if err != nil {
		return askResult{}, err
	}
	res, err := s.sessions.run(ctx, ls, in, title)
	if errors.Is(err, errBusy) {
		return askResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
	}
	if err != nil && ctx.Err() != nil {
		return askResult{}, protocol.ErrRequestCancelled
	}
	out := askResult{
		SessionID: cmp.Or(res.SessionID, ls.id), Turn: res.Turn, Text: res.Text, Stop: string(res.Stop),
		Steps: res.Steps, ToolCalls: res.ToolCalls, Usage: res.Usage,
		CacheHit: res.Usage.HitRatio(), Cost: res.Cost, Priced: res.Priced,
		Model: res.Model, Action: res.Action, Changes: res.Changes, NewErrors: res.NewErrors, Tests: res.Tests,
		ContextFill: res.ContextFill,
	}
	if err != nil && res.Stop != agent.StopCancelled {
		out.Error = err.Error()
	}
	return out, nil
}

// start runs a turn in the background and returns its session at once.
func (s *Server) start(_ context.Context, args askArgs) (startResult, error) {
	ls, in, title, err := s.prepare(args)
	if err != nil {
		return startResult{}, err
	}
	ctx, ts, err := s.sessions.begin(context.Background(), ls, title)
	if err != nil {
		return startResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
	}
	go func() {
		defer s.sessions.end(ls, ts)
		s.sessions.turn(ctx, ls, ts, in, true)
	}()
	return startResult{SessionID: ls.id}, nil
}

// docFor returns the document at path as the user has it (the open
// document, else the file), for the ranges the user sends and the
// problems shown on it: its text is the user's, proposals left out.
func (s *Server) docFor(path string) (document, bool) {
	t, err := s.currentText(path, userView)
	if err != nil || !t.exists {
		return document{}, false
	}
	d, open := s.docs.byPath(path)
	if !open {
		d = document{URI: uri.File(path), Path: filepath.Clean(path), LanguageID: languageOf(path)}
	}
	d.Text = t.text
	return d, true
}
