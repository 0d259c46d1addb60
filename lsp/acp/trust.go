package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/tools/permission"
)

// Workspace trust over ACP. What the session's folder brings in its own
// reasonix.toml and .mcp.json that needs trust (config.WorkspaceTrust) is
// left out of the session's agents until the user trusts it. ACP lets an
// agent ask only within a prompt, so the question comes with the first
// prompt of the session, before the turn runs: a permission request
// whose options trust it or keep it off. /trust asks again, and /trust
// revoke forgets it.

// The options of the trust question.
const (
	optTrust   = "trust_workspace"
	optKeepOff = "keep_disabled"
)

// offerTrust asks, once a session, whether to trust what the folder's
// configuration brings, when something is left out for want of it.
func (ss *session) offerTrust(ctx context.Context) {
	ss.mu.Lock()
	cfg, asked := ss.cfg, ss.trustAsked
	ss.trustAsked = true
	ss.mu.Unlock()
	if asked || cfg == nil || !cfg.Workspace.Untrusted() {
		return
	}
	ss.askTrust(ctx, cfg.Workspace)
}

// askTrust asks the trust question; on yes it records the trust and
// drops the session's agents, so that the turn about to run is built with
// what was trusted. It reports whether the user trusted it.
func (ss *session) askTrust(ctx context.Context, t config.WorkspaceTrust) bool {
	resp, err := ss.s.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: acpsdk.SessionId(ss.id),
		ToolCall: acpsdk.ToolCallUpdate{ToolCallId: "trust-workspace", Title: acpsdk.Ptr("Trust this workspace's configuration?"),
			Kind: acpsdk.Ptr(acpsdk.ToolKindOther), Status: acpsdk.Ptr(acpsdk.ToolCallStatusPending),
			Content: []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(permission.Visible(t.Question())))}},
		Options: []acpsdk.PermissionOption{
			{OptionId: optTrust, Name: "Trust and enable", Kind: acpsdk.PermissionOptionKindAllowAlways},
			{OptionId: optKeepOff, Name: "Keep disabled", Kind: acpsdk.PermissionOptionKindRejectOnce},
		},
	})
	if err != nil || resp.Outcome.Selected == nil || string(resp.Outcome.Selected.OptionId) != optTrust {
		ss.thought("Reasonix: the workspace's own configuration stays off; /trust asks again.")
		return false
	}
	if err := config.Trust(t); err != nil {
		ss.thought("Reasonix: cannot record your trust: " + err.Error())
		return false
	}
	ss.dropAgents()
	return true
}

// dropAgents closes the session's agents, so that the next use builds
// them again from the configuration as it is now.
func (ss *session) dropAgents() {
	ss.mu.Lock()
	agents := ss.agents
	ss.agents = map[string]*agent.Agent{}
	ss.mu.Unlock()
	for _, a := range agents {
		a.Close()
	}
}

// performTrust carries out /trust: revoke forgets the trust, and without
// it an untrusted configuration is asked about again.
func (ss *session) performTrust(ctx context.Context, revoke bool) {
	if revoke {
		ok, err := config.Revoke(ss.cwd)
		switch {
		case err != nil:
			ss.message("Cannot revoke the trust: " + err.Error())
		case !ok:
			ss.message("Nothing was trusted in " + ss.cwd + ".")
		default:
			ss.dropAgents()
			ss.message("Forgot what you trusted in " + ss.cwd + ": its own servers and settings are off from the next prompt.")
		}
		return
	}
	// What follows goes on the message of /trust, which says what the
	// configuration brings: a paragraph of its own.
	cfg, err := config.Load(config.Options{Dir: ss.cwd, File: ss.s.opts.ConfigFile})
	if err != nil {
		ss.message("\n\nCannot read the workspace's configuration: " + err.Error())
		return
	}
	if cfg.Workspace.Untrusted() && ss.askTrust(ctx, cfg.Workspace) {
		ss.message("\n\nTrusted: the workspace's configuration takes effect from the next prompt.")
	}
}
