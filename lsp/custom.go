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

// customMethods is every reasonix/... method the client sends, in the
// order of docs/PROTOCOL.md, which a test keeps in step with this table,
// with toClient (what the server sends) and with the editors' tables
// (editors/vscode/src/protocol.ts, editors/nvim/lua/reasonix/protocol.lua).
//
// All but reasonix/review are async: each may wait for the workspace's agent to be built (its
// MCP servers to start), and the connection goes on meanwhile.
var customMethods = []endpoint{
	{name: "reasonix/listSessions", async: true, serve: handler((*Server).listSessions)},
	{name: "reasonix/newSession", async: true, serve: handler((*Server).newSession)},
	{name: "reasonix/resumeSession", async: true, serve: handler((*Server).resumeSession)},
	{name: "reasonix/mcpServers", async: true, serve: handler((*Server).mcpServers)},
	{name: "reasonix/listCommands", async: true, serve: handler((*Server).listCommands)},
	{name: "reasonix/memory", async: true, serve: handler((*Server).memory)},
	{name: "reasonix/review", serve: handler((*Server).listReview)},
}

// customMethodNames is every reasonix/... method, in both directions, as
// the server announces them in experimental.reasonix.methods: those the
// client sends, then those the server sends.
func customMethodNames() []string {
	out := names(customMethods)
	for _, m := range toClient {
		if strings.HasPrefix(m.name(), "reasonix/") {
			out = append(out, m.name())
		}
	}
	return out
}

// Request handles the methods that are not standard LSP.
func (s *Server) Request(ctx context.Context, method string, raw any) (any, error) {
	params, _ := raw.(protocol.LSPAny)
	if m, ok := served(customMethods, method); ok {
		b, err := m.call(ctx, s, params, decodeParams)
		if err != nil {
			return nil, err
		}
		return rawJSON(b), nil
	}
	if strings.HasPrefix(method, "$/") {
		// Optional protocol notifications ($/setTrace, ...) may be ignored.
		return nil, nil
	}
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("method %q is not supported", method))
}

// decodeParams decodes a method's params; none, or null, leave v zero.
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

func (s *Server) listSessions(_ context.Context, p listSessionsParams) (listSessionsResult, error) {
	ws, err := s.workspaceFor(s.anchor(p.Folder))
	if err != nil {
		return listSessionsResult{}, internalError(err)
	}
	list, err := ws.agent.Store.List()
	if err != nil {
		return listSessionsResult{}, internalError(err)
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
	return out, nil
}

type newSessionParams struct {
	Folder string `json:"folder,omitempty"`
}

type newSessionResult struct {
	SessionID string `json:"sessionId"`
	Model     string `json:"model"`
}

func (s *Server) newSession(_ context.Context, p newSessionParams) (newSessionResult, error) {
	ws, err := s.workspaceFor(s.anchor(p.Folder))
	if err != nil {
		return newSessionResult{}, internalError(err)
	}
	ls, err := s.sessions.get(ws, "")
	if err != nil {
		return newSessionResult{}, internalError(err)
	}
	return newSessionResult{SessionID: ls.id, Model: ws.agent.ModelRef}, nil
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
func (s *Server) resumeSession(_ context.Context, p resumeSessionParams) (resumeSessionResult, error) {
	if p.SessionID == "" {
		return resumeSessionResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, "sessionId is required")
	}
	ws, err := s.workspaceFor(s.anchor(""))
	if err != nil {
		return resumeSessionResult{}, internalError(err)
	}
	ls, err := s.sessions.get(ws, p.SessionID)
	if err != nil {
		return resumeSessionResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	usage, cost := ls.sess.Usage()
	msgs := ls.sess.Messages()
	if len(msgs) > 0 && msgs[0].Role == provider.RoleSystem {
		msgs = msgs[1:] // the system prompt is not part of the conversation
	}
	return resumeSessionResult{SessionID: ls.id, Model: ws.agent.ModelRef, Messages: msgs, Usage: usage, Cost: cost}, nil
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

// internalError reports a failure of the server, not of the request.
func internalError(err error) error {
	return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
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
func (s *Server) mcpServers(_ context.Context, p mcpServersParams) (mcpServersResult, error) {
	ws, err := s.workspaceFor(s.anchor(p.Folder))
	if err != nil {
		return mcpServersResult{}, internalError(err)
	}
	out := mcpServersResult{Servers: []mcp.Status{}, Prompts: []mcp.Prompt{}, Resources: []mcp.Resource{}, Text: ws.agent.PluginStatus()}
	if m := ws.agent.Plugins; m != nil {
		out.Servers = append(out.Servers, m.Status()...)
		out.Prompts = append(out.Prompts, m.Prompts()...)
		out.Resources = append(out.Resources, m.Resources()...)
	}
	return out, nil
}
