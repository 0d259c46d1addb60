package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent/config"
)

// Workspace trust over LSP. A folder's own reasonix.toml and .mcp.json
// may name MCP servers, language servers, providers and looser settings;
// config.Load leaves them out until the user trusts that content
// (config.WorkspaceTrust). The editor starts the server the moment a
// folder opens, so the question is asked then, once per folder and
// content, as a window/showMessageRequest that does not hold anything up:
// the agent is built without them meanwhile, and rebuilt with them when
// the user trusts them.

// The answers of the trust question. These titles are public: editor
// plugins and tests match them.
const (
	titleTrust   = "Trust and enable"
	titleKeepOff = "Keep disabled"
	cmdTrust     = "reasonix.trust"
	trustReview  = "review"
	trustRevoke  = "revoke"
)

// trustArgs is the argument of reasonix.trust.
type trustArgs struct {
	// URI picks the workspace folder; empty: the first.
	URI string `json:"uri,omitempty"`
	// Action is "review" (the default: ask again, whatever was answered
	// before) or "revoke" (forget what was trusted).
	Action string `json:"action,omitempty"`
}

// trustResult is what reasonix.trust answers: the folder's items and
// whether they are in force once the command is done.
type trustResult struct {
	Workspace string         `json:"workspace"`
	Items     []trustItemOut `json:"items"`
	Digest    string         `json:"digest,omitempty"`
	Trusted   bool           `json:"trusted"`
	// Granted is set when the user trusted it in answer to this command.
	Granted bool `json:"granted,omitempty"`
}

type trustItemOut struct {
	What string `json:"what"`
	At   string `json:"at"`
}

// offerTrust asks, in the background, whether to trust what a
// workspace's configuration brings, unless it was asked for this content
// on this connection already. The answer "Trust and enable" records the
// trust and rebuilds the workspace's agent; anything else leaves it off.
func (s *Server) offerTrust(root string, t config.WorkspaceTrust) {
	s.mu.Lock()
	if s.trustAsked[root] == t.Hash || s.tornDown {
		s.mu.Unlock()
		return
	}
	s.trustAsked[root] = t.Hash
	s.warming.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.warming.Done()
		s.askTrust(s.ctx, root, t)
	}()
}

// askTrust asks the trust question and acts on the answer; it reports
// whether the workspace is trusted now.
func (s *Server) askTrust(ctx context.Context, root string, t config.WorkspaceTrust) bool {
	if s.conn == nil {
		return false
	}
	if s.capsNow().askWay(false) == askNever {
		// Trusting takes a yes this editor cannot give: say where to give it.
		s.showWarning(ctx, fmt.Sprintf("Reasonix: %s\nThis editor cannot ask you, so it stays off: to trust it, run `reasonix trust %s` in a terminal; the next turn takes it.", t.Question(), t.Dir))
		return false
	}
	var item *protocol.MessageActionItem
	err := s.await(ctx, "The question whether to trust the configuration of "+t.Dir, "it stays off", func(ctx context.Context) (err error) {
		item, err = showMessageRequest.call(ctx, s, &protocol.ShowMessageRequestParams{
			Type:    protocol.MessageTypeWarning,
			Message: "Reasonix: " + t.Question(),
			Actions: []protocol.MessageActionItem{{Title: titleTrust}, {Title: titleKeepOff}},
		})
		return err
	})
	if err != nil || item == nil || item.Title != titleTrust {
		s.logMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Reasonix: the configuration of %s stays off until you trust it (command %s, or reasonix trust in a terminal)", t.Dir, cmdTrust))
		return false
	}
	if err := config.Trust(t); err != nil {
		s.showError(ctx, "Reasonix: cannot record your trust: "+err.Error())
		return false
	}
	s.rebuild(root)
	return true
}

// rebuild drops the agent of the workspace root, so that the next use
// builds it again from its configuration, and builds it now: servers a
// trust enabled start, those it revoked stop.
func (s *Server) rebuild(root string) {
	s.mu.Lock()
	s.settingsGen++
	delete(s.spaces, root)
	delete(s.building, root)
	s.mu.Unlock()
	s.warmUp()
}

// trust is reasonix.trust: it shows a workspace's items that need trust
// and asks again, or revokes the trust.
func (s *Server) trust(ctx context.Context, args trustArgs) (trustResult, error) {
	anchor := s.anchor(args.URI)
	s.mu.Lock()
	root := s.rootFor(anchor)
	s.mu.Unlock()
	if root == "" {
		return trustResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, "no workspace folder is open")
	}
	switch args.Action {
	case "", trustReview:
	case trustRevoke:
		if _, err := config.Revoke(root); err != nil {
			return trustResult{}, err
		}
	default:
		return trustResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: action must be %q or %q, not %q", cmdTrust, trustReview, trustRevoke, args.Action))
	}
	cfg, err := config.Load(config.Options{Dir: root, File: s.opts.ConfigFile})
	if args.Action == trustRevoke {
		if err == nil {
			// The user has just turned it off: the rebuild must not ask
			// straight back whether to turn it on. Review asks on demand.
			s.mu.Lock()
			s.trustAsked[root] = cfg.Workspace.Hash
			s.mu.Unlock()
		}
		s.rebuild(root)
	}
	if err != nil {
		return trustResult{}, err
	}
	t := cfg.Workspace
	granted := false
	if args.Action != trustRevoke {
		switch {
		case len(t.Items) == 0:
			s.show(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Reasonix: nothing in the configuration of %s needs trust.", t.Dir))
		case t.Trusted:
			s.show(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Reasonix: you trust the configuration of %s, which brings:\n%s", t.Dir, t.Describe()))
		default:
			t.Trusted = s.askTrust(ctx, root, t)
			granted = t.Trusted
		}
	}
	out := trustResult{Workspace: t.Dir, Digest: t.ShortHash(), Trusted: t.Trusted, Granted: granted, Items: []trustItemOut{}}
	for _, it := range t.Items {
		out.Items = append(out.Items, trustItemOut{What: it.What, At: it.At.String()})
	}
	return out, nil
}
