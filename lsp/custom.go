package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools/mcp"
)

// Every custom method lives in this table and in docs/PROTOCOL.md; a test
// keeps the two in step.
const (
	methodListSessions  = "reasonix/listSessions"
	methodNewSession    = "reasonix/newSession"
	methodResumeSession = "reasonix/resumeSession"
	methodSaveDocuments = "reasonix/saveDocuments"
	methodApprove       = "reasonix/approve"
	methodEvent         = "reasonix/event"
	methodMCPServers    = "reasonix/mcpServers"
)

// customMethod describes one extension method.
type customMethod struct {
	name string
	// fromClient is true for methods the client sends.
	fromClient bool
	// notification is true when no response is expected.
	notification bool
}

var customMethods = []customMethod{
	{name: methodListSessions, fromClient: true},
	{name: methodNewSession, fromClient: true},
	{name: methodResumeSession, fromClient: true},
	{name: methodSaveDocuments},
	{name: methodApprove},
	{name: methodEvent, notification: true},
	{name: methodMCPServers, fromClient: true},
}

func customMethodNames() []string {
	var out []string
	for _, m := range customMethods {
		out = append(out, m.name)
	}
	return out
}

// Request handles the methods that are not standard LSP.
func (s *Server) Request(ctx context.Context, method string, raw any) (any, error) {
	params, _ := raw.(protocol.LSPAny)
	for _, m := range customMethods {
		if m.name == method && m.fromClient {
			// Each may wait for the workspace's agent to be built (its
			// MCP servers to start); the connection goes on meanwhile.
			jsonrpc2.Async(ctx)
		}
	}
	switch method {
	case methodListSessions:
		var p listSessionsParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return s.listSessions(p)
	case methodNewSession:
		var p newSessionParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return s.newSession(p)
	case methodResumeSession:
		var p resumeSessionParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return s.resumeSession(p)
	case methodMCPServers:
		var p mcpServersParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return s.mcpServers(p)
	}
	if strings.HasPrefix(method, "$/") {
		// Optional protocol notifications ($/setTrace, ...) may be ignored.
		return nil, nil
	}
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("method %q is not supported", method))
}

func decodeParams(raw protocol.LSPAny, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return nil
}

// rawJSON passes encoded JSON through the codec untouched.
func rawJSON(b []byte) jsonrpc2.RawMessage { return jsonrpc2.RawMessage(b) }

type listSessionsParams struct {
	// Folder limits the list to sessions run in this workspace folder
	// (a URI); empty lists every session.
	Folder string `json:"folder,omitempty"`
}

type sessionInfo struct {
	agent.Summary
	Running bool `json:"running"`
}

type listSessionsResult struct {
	Sessions []sessionInfo `json:"sessions"`
}

func (s *Server) listSessions(p listSessionsParams) (any, error) {
	ws, err := s.workspaceFor(s.anchor(p.Folder))
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	list, err := ws.agent.Store.List()
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	out := listSessionsResult{Sessions: []sessionInfo{}}
	folder := ""
	if p.Folder != "" {
		folder = pathOf(uri.URI(p.Folder))
	}
	for _, sum := range list {
		if folder != "" && sum.Root != folder {
			continue
		}
		out.Sessions = append(out.Sessions, sessionInfo{Summary: sum, Running: s.sessions.progressFor(sum.ID) != nil})
	}
	return jsonResult(out)
}

type newSessionParams struct {
	Folder string `json:"folder,omitempty"`
}

type newSessionResult struct {
	SessionID string `json:"sessionId"`
	Model     string `json:"model"`
}

func (s *Server) newSession(p newSessionParams) (any, error) {
	ws, err := s.workspaceFor(s.anchor(p.Folder))
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	ls, err := s.sessions.get(ws, "")
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	return jsonResult(newSessionResult{SessionID: ls.id, Model: ws.agent.ModelRef})
}

type resumeSessionParams struct {
	SessionID string `json:"sessionId"`
}

type resumeSessionResult struct {
	SessionID string             `json:"sessionId"`
	Model     string             `json:"model"`
	Messages  []provider.Message `json:"messages"`
	Usage     provider.Usage     `json:"usage"`
	Cost      float64            `json:"cost"`
}

// resumeSession opens a saved session and returns its conversation, so a
// panel can show it and continue it with reasonix.ask.
func (s *Server) resumeSession(p resumeSessionParams) (any, error) {
	if p.SessionID == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "sessionId is required")
	}
	ws, err := s.workspaceFor(s.anchor(""))
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	ls, err := s.sessions.get(ws, p.SessionID)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	usage, cost := ls.sess.Usage()
	msgs := ls.sess.Messages()
	if len(msgs) > 0 && msgs[0].Role == provider.RoleSystem {
		msgs = msgs[1:] // the system prompt is not part of the conversation
	}
	return jsonResult(resumeSessionResult{SessionID: ls.id, Model: ws.agent.ModelRef, Messages: msgs, Usage: usage, Cost: cost})
}

// anchor is a path that selects a workspace: the folder URI given, else
// the first workspace folder.
func (s *Server) anchor(folderURI string) string {
	if folderURI != "" {
		return pathOf(uri.URI(folderURI))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.folders) > 0 {
		return s.folders[0].path
	}
	return ""
}

// jsonResult encodes a result with encoding/json semantics.
func jsonResult(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return rawJSON(b), nil
}

// saveDocumentsParams asks a client to save documents (server → client).
type saveDocumentsParams struct {
	URIs []string `json:"uris"`
}

type saveDocumentsResult struct {
	Saved  []string      `json:"saved"`
	Failed []saveFailure `json:"failed,omitempty"`
}

type saveFailure struct {
	URI    string `json:"uri"`
	Reason string `json:"reason"`
}

type mcpServersParams struct {
	// Folder picks the workspace folder (a URI); empty means the first.
	Folder string `json:"folder,omitempty"`
}

type mcpServersResult struct {
	Servers []mcp.Status `json:"servers"`
	Prompts []mcp.Prompt `json:"prompts"`
	// Resources can be attached to a prompt as @<server>:<uri>.
	Resources []mcp.Resource `json:"resources"`
	// Text is the same as a table for people, as /mcp shows it.
	Text string `json:"text"`
}

// mcpServers reports the workspace's MCP servers: their state and what
// they offer, with the prompts a panel can offer as slash commands.
func (s *Server) mcpServers(p mcpServersParams) (any, error) {
	ws, err := s.workspaceFor(s.anchor(p.Folder))
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	out := mcpServersResult{Servers: []mcp.Status{}, Prompts: []mcp.Prompt{}, Resources: []mcp.Resource{}, Text: ws.agent.PluginStatus()}
	if m := ws.agent.Plugins; m != nil {
		out.Servers = append(out.Servers, m.Status()...)
		out.Prompts = append(out.Prompts, m.Prompts()...)
		out.Resources = append(out.Resources, m.Resources()...)
	}
	return jsonResult(out)
}
