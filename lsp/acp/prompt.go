package acp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider"
)

// Prompt runs one turn of the session through the agent's prompt
// pipeline and answers when it ends: end_turn, cancelled after
// session/cancel, max_turn_requests or max_tokens when a limit stopped it.
// The answer itself went out as session/update notifications.
func (s *Server) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	in, err := ss.input(p.Prompt)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	// The turn lives as long as the connection, and stops on
	// session/cancel, which cancels ctx through the SDK and ss.cancel.
	tctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if err := s.startTurn(); err != nil {
		return acpsdk.PromptResponse{}, requestError(err)
	}
	defer s.running.Done()
	posture, err := ss.reserve(tctx, cancel)
	if err != nil {
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
	}
	defer ss.release()

	ss.offerTrust(tctx)
	a, err := ss.agentFor(posture)
	if err != nil {
		return acpsdk.PromptResponse{}, requestError(err)
	}
	wasPlan := ss.sess.PlanMode()
	res, err := a.RunInput(tctx, ss.sess, in)
	if err == nil && res.Action != nil {
		err = ss.perform(tctx, res)
	}
	if wasPlan && !ss.sess.PlanMode() {
		// The plan was approved: the session left plan mode.
		ss.mu.Lock()
		ss.mode = ss.posture
		mode := ss.mode
		ss.mu.Unlock()
		ss.update(acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(mode)}})
	}
	resp := acpsdk.PromptResponse{Usage: usageOf(res.Usage), Meta: turnMeta(res)}
	switch {
	case tctx.Err() != nil || res.Stop == agent.StopCancelled:
		resp.StopReason = acpsdk.StopReasonCancelled
		return resp, nil
	case errors.Is(err, agent.ErrMaxSteps):
		resp.StopReason = acpsdk.StopReasonMaxTurnRequests
		return resp, nil
	case errors.Is(err, agent.ErrBudgetExceeded):
		resp.StopReason = acpsdk.StopReasonMaxTokens
		return resp, nil
	case err != nil:
		return acpsdk.PromptResponse{}, turnError(err, a)
	}
	resp.StopReason = acpsdk.StopReasonEndTurn
	return resp, nil
}

// reserve makes the session's turn the caller's, whose cancel stops it,
// and returns the posture it runs under. A prompt sent while a turn runs
// has already cancelled that turn (the SDK cancels a session's earlier
// prompt), so it waits for that turn to wind down; it fails only when
// ctx ends first.
func (ss *session) reserve(ctx context.Context, cancel context.CancelFunc) (string, error) {
	for {
		ss.mu.Lock()
		if ss.cancel == nil {
			ss.cancel, ss.idle = cancel, make(chan struct{})
			posture := ss.posture
			ss.mu.Unlock()
			return posture, nil
		}
		idle := ss.idle
		ss.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// release ends the turn reserve began.
func (ss *session) release() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.cancel = nil
	ss.calls, ss.open = map[string]*callState{}, nil
	close(ss.idle)
}

// turnError words a failed turn with what to do about it.
func turnError(err error, a *agent.Agent) error {
	msg := err.Error()
	var ae *provider.APIError
	switch {
	case errors.Is(err, agent.ErrNoKey):
		// Built without the key, the session answers the commands that
		// ask no model; a prompt asks the client to authenticate.
		return acpsdk.NewAuthRequired(map[string]any{"error": msg})
	case provider.IsAuth(err):
		msg += " — check the API key for " + a.ModelRef
		return acpsdk.NewAuthRequired(map[string]any{"error": msg})
	case errors.As(err, &ae) && ae.Status == 0:
		msg += " — is the model endpoint reachable?"
	}
	return acpsdk.NewInternalError(map[string]any{"error": msg})
}

// usageOf is the turn's usage in the schema's terms.
func usageOf(u provider.Usage) *acpsdk.Usage {
	out := &acpsdk.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens,
		TotalTokens: u.PromptTokens + u.CompletionTokens, CachedReadTokens: acpsdk.Ptr(u.CacheHitTokens)}
	if u.ReasoningTokens > 0 {
		out.ThoughtTokens = acpsdk.Ptr(u.ReasoningTokens)
	}
	return out
}

// turnMeta carries what the schema has no field for: the cache hit ratio,
// the cost and the reasoning effort, under "reasonix".
func turnMeta(res agent.TurnResult) map[string]any {
	hit := 0.0
	if n := res.Usage.CacheHitTokens + res.Usage.CacheMissTokens; n > 0 {
		hit = float64(res.Usage.CacheHitTokens) / float64(n)
	}
	meta := map[string]any{
		"cacheHitRatio": hit, "cost": res.Cost, "sessionCost": res.SessionCost, "priced": res.Priced,
		"model": res.Model, "steps": res.Steps, "toolCalls": res.ToolCalls,
	}
	if res.Effort != "" {
		meta["effort"] = res.Effort
	}
	return map[string]any{"reasonix": meta}
}

// perform carries out a built-in command that changes what the client
// shows: /new and /clear start afresh in the same ACP session, whose id
// the client keeps; /model REF and /effort LEVEL are worded here.
func (ss *session) perform(ctx context.Context, res agent.TurnResult) error {
	switch res.Action.Kind {
	case agent.ActionNew, agent.ActionClear:
		ss.message("Start a new session from the agent panel: this one keeps its history (" + string(res.Action.Kind) + " is not available over ACP).")
	case agent.ActionTrust:
		ss.performTrust(ctx, res.Action.Revoke)
	case agent.ActionEffort:
		if res.Action.Effort != "" {
			ss.message("This session's requests now ask for " + res.Action.Effort + " reasoning effort.")
		}
	case agent.ActionModel:
		if res.Action.Model != "" {
			ss.message("This session now runs on " + res.Action.Model + ".")
			_, opts := ss.state()
			ss.update(acpsdk.SessionUpdate{ConfigOptionUpdate: &acpsdk.SessionConfigOptionUpdate{ConfigOptions: opts}})
			return nil
		}
	}
	// The agent streamed the answer of every other command as text.
	return nil
}

// input turns the prompt's content blocks into the agent's Input: text
// as typed (a leading slash command stays a command, @ references stay
// references), a resource link as a file attachment when it names a
// local file, and an embedded resource as the text the client sent, which
// may be an unsaved buffer.
func (ss *session) input(blocks []acpsdk.ContentBlock) (agent.Input, error) {
	var (
		in    agent.Input
		texts []string
	)
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			texts = append(texts, b.Text.Text)
		case b.ResourceLink != nil:
			if path, ok := filePath(b.ResourceLink.Uri); ok {
				in.Attachments = append(in.Attachments, agent.Attachment{Kind: agent.AttachFile, Path: path})
				ss.fs.hold(path)
				continue
			}
			texts = append(texts, fmt.Sprintf("[%s](%s)", b.ResourceLink.Name, b.ResourceLink.Uri))
		case b.Resource != nil:
			r := b.Resource.Resource
			switch {
			case r.TextResourceContents != nil:
				t := r.TextResourceContents
				path, ok := filePath(t.Uri)
				if !ok {
					path = t.Uri
				}
				lines := strings.Count(t.Text, "\n") + 1
				in.Attachments = append(in.Attachments, agent.Attachment{Kind: agent.AttachSelection, Path: path,
					Text: t.Text, StartLine: 1, EndLine: lines, Language: fenceLanguage(path)})
			case r.BlobResourceContents != nil:
				return agent.Input{}, acpsdk.NewInvalidParams(map[string]any{"error": "binary resources are not supported; attach text"})
			}
		case b.Image != nil, b.Audio != nil:
			return agent.Input{}, acpsdk.NewInvalidParams(map[string]any{"error": "this agent takes text only (promptCapabilities.image and audio are false)"})
		}
	}
	in.Text = strings.TrimSpace(strings.Join(texts, "\n"))
	if in.Text == "" && len(in.Attachments) == 0 {
		return agent.Input{}, acpsdk.NewInvalidParams(map[string]any{"error": "the prompt is empty"})
	}
	if in.Text == "" {
		in.Text = "Look at the attached context."
	}
	return in, nil
}

// filePath returns the local path of a file:// URI, or of an absolute
// path given as is.
func filePath(uri string) (string, bool) {
	if filepath.IsAbs(uri) {
		return filepath.Clean(uri), true
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	return filepath.Clean(filepath.FromSlash(u.Path)), true
}

// fenceLanguage guesses a Markdown fence language from a file name.
func fenceLanguage(path string) string {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	switch ext {
	case "go", "rust", "python", "lua", "json", "yaml", "toml", "java", "c", "cpp":
		return ext
	case "rs":
		return "rust"
	case "py":
		return "python"
	case "ts":
		return "typescript"
	case "js":
		return "javascript"
	case "sh":
		return "bash"
	case "md":
		return "markdown"
	}
	return ""
}
