// Package openai implements the "openai" provider kind: any endpoint that
// speaks the OpenAI-compatible streaming /chat/completions API, DeepSeek
// first. Vendors differ only in configuration (base_url, model, key).
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
)

func init() { provider.Register("openai", New) }

// ReasoningReplay says which assistant reasoning is sent back to the model.
type ReasoningReplay string

const (
	// ReplayToolTurns sends reasoning back for every assistant message of a
	// user turn in which the model called tools, and drops it elsewhere.
	// This is DeepSeek's thinking-mode rule: reasoning inside a tool-call
	// turn must be passed back in all later requests, while reasoning of a
	// plain answer is ignored. The choice for a message never changes once
	// it is made, so the prompt prefix stays byte-stable.
	ReplayToolTurns ReasoningReplay = "tool_turns"
	// ReplayAll always sends reasoning back.
	ReplayAll ReasoningReplay = "all"
	// ReplayNone never sends it back.
	ReplayNone ReasoningReplay = "none"
)

// Client is an OpenAI-compatible provider instance.
type Client struct {
	name    string
	url     string
	model   string
	apiKey  string
	headers map[string]string
	extra   map[string]any
	replay  ReasoningReplay
	retry   retryPolicy
	idle    time.Duration
	http    *http.Client
}

// New builds a client from a provider config. Recognised options:
// reasoning_replay ("tool_turns", "all", "none"), max_retries,
// retry_base_ms, retry_max_ms, idle_timeout_seconds, headers (a table of
// extra HTTP headers) and extra_body (a table merged into every request,
// e.g. {thinking = {type = "disabled"}}).
func New(cfg provider.Config) (provider.Provider, error) {
	if cfg.BaseURL == "" {
		return nil, fmt.Errorf("provider %q: base_url is empty", cfg.Name)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("provider %q: no model", cfg.Name)
	}
	c := &Client{
		name:   cfg.Name,
		url:    strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions",
		model:  cfg.Model,
		apiKey: cfg.APIKey,
		replay: ReplayToolTurns,
		retry:  defaultRetry,
		idle:   2 * time.Minute,
		http: &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   30 * time.Second,
			ResponseHeaderTimeout: 5 * time.Minute,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConnsPerHost:   4,
			ForceAttemptHTTP2:     true,
		}},
	}
	o := options(cfg.Options)
	var err error
	if v, ok := o.string("reasoning_replay", &err); ok {
		switch ReasoningReplay(v) {
		case ReplayToolTurns, ReplayAll, ReplayNone:
			c.replay = ReasoningReplay(v)
		default:
			return nil, fmt.Errorf("provider %q: reasoning_replay must be tool_turns, all or none, not %q", cfg.Name, v)
		}
	}
	if v, ok := o.int("max_retries", &err); ok {
		c.retry.max = v
	}
	if v, ok := o.int("retry_base_ms", &err); ok {
		c.retry.base = time.Duration(v) * time.Millisecond
	}
	if v, ok := o.int("retry_max_ms", &err); ok {
		c.retry.cap = time.Duration(v) * time.Millisecond
	}
	if v, ok := o.int("idle_timeout_seconds", &err); ok && v > 0 {
		c.idle = time.Duration(v) * time.Second
	}
	if v, ok := o.table("headers", &err); ok {
		c.headers = map[string]string{}
		for k, hv := range v {
			s, isStr := hv.(string)
			if !isStr {
				return nil, fmt.Errorf("provider %q: header %q must be a string", cfg.Name, k)
			}
			c.headers[k] = s
		}
	}
	if v, ok := o.table("extra_body", &err); ok {
		c.extra = v
	}
	if err != nil {
		return nil, fmt.Errorf("provider %q: %w", cfg.Name, err)
	}
	return c, nil
}

// Name returns the configured instance name.
func (c *Client) Name() string { return c.name }

// Stream sends the request, retrying transient failures, and streams the
// response through emit.
func (c *Client) Stream(ctx context.Context, req provider.Request, emit func(provider.Chunk)) (provider.Response, error) {
	body, err := c.encode(req)
	if err != nil {
		return provider.Response{}, err
	}
	var last error
	for attempt := 0; ; attempt++ {
		resp, err := c.once(ctx, body, emit)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return provider.Response{}, ctx.Err()
		}
		f, ok := err.(*failure)
		if !ok {
			return provider.Response{}, err
		}
		last = f.err
		delay, retry := c.retry.next(attempt, f)
		if !retry {
			if ae, isAPI := f.err.(*provider.APIError); isAPI {
				ae.Attempts = attempt + 1
			}
			return provider.Response{}, f.err
		}
		emit(provider.Chunk{Kind: provider.ChunkRetry, Retry: &provider.RetryInfo{
			Attempt: attempt + 1,
			Delay:   delay.Milliseconds(),
			Reason:  last.Error(),
			Cause:   f.cause(),
		}})
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return provider.Response{}, ctx.Err()
		case <-t.C:
		}
	}
}

// once performs one attempt. Errors worth retrying come back as *failure.
func (c *Client) once(ctx context.Context, body []byte, emit func(provider.Chunk)) (provider.Response, error) {
	// A watchdog cancels the attempt when the server goes silent, so a
	// stalled connection becomes a retry instead of a hang.
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var idleErr error = idleError{c.idle}
	watch := newWatchdog(c.idle, func() { cancel(idleErr) })
	defer watch.stop()

	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return provider.Response{}, fmt.Errorf("%s: %w", c.name, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if c.apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	for k, v := range c.headers {
		hreq.Header.Set(k, v)
	}
	hresp, err := c.http.Do(hreq)
	if err != nil {
		if cause := context.Cause(actx); cause == idleErr {
			err = cause
		}
		return provider.Response{}, &failure{err: &provider.APIError{Provider: c.name, Err: unwrapURLError(err)}, transient: true}
	}
	defer hresp.Body.Close()
	if hresp.StatusCode != http.StatusOK {
		return provider.Response{}, c.statusFailure(hresp)
	}
	watch.kick()
	var resp provider.Response
	if strings.HasPrefix(hresp.Header.Get("Content-Type"), "application/json") {
		// A server that ignored "stream": true answered in one piece.
		resp, err = readWhole(hresp.Body, emit)
	} else {
		resp, err = readStream(hresp.Body, watch.kick, emit)
	}
	if err != nil {
		if cause := context.Cause(actx); cause == idleErr {
			err = cause
		}
		if ctx.Err() != nil {
			return provider.Response{}, ctx.Err()
		}
		return provider.Response{}, &failure{err: &provider.APIError{Provider: c.name, Err: err}, transient: true}
	}
	return resp, nil
}

// encode renders the request body. It is deterministic: the same messages
// always produce the same bytes, which the provider's prefix cache needs.
func (c *Client) encode(req provider.Request) ([]byte, error) {
	model := req.Model
	if model == "" {
		model = c.model
	}
	w := wireRequest{
		Model:         model,
		Messages:      c.wireMessages(req.Messages),
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
		Temperature:   req.Temperature,
		MaxTokens:     req.MaxTokens,

		ReasoningEffort: req.ReasoningEffort,
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireToolSpec{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	b, err := json.Marshal(w)
	if err != nil || len(c.extra) == 0 {
		return b, err
	}
	// Merge extra_body over the standard fields; json.Marshal sorts map
	// keys, so the result stays deterministic.
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	maps.Copy(m, c.extra)
	return json.Marshal(m)
}

func (c *Client) wireMessages(msgs []provider.Message) []wireMessage {
	out := make([]wireMessage, 0, len(msgs))
	toolTurn := false // whether the current user turn has called tools so far
	for _, m := range msgs {
		if m.Role == provider.RoleUser {
			toolTurn = false
		}
		w := wireMessage{Role: string(m.Role), ToolCallID: m.ToolCallID}
		content := m.Content
		if m.Role != provider.RoleAssistant || content != "" || len(m.ToolCalls) == 0 {
			w.Content = &content
		}
		if m.Role == provider.RoleAssistant {
			if len(m.ToolCalls) > 0 {
				toolTurn = true
			}
			switch c.replay {
			case ReplayAll:
				w.ReasoningContent = m.Reasoning
			case ReplayToolTurns:
				if toolTurn {
					w.ReasoningContent = m.Reasoning
				}
			}
			for _, tc := range m.ToolCalls {
				w.ToolCalls = append(w.ToolCalls, wireToolCall{
					ID: tc.ID, Type: "function",
					Function: wireFunction{Name: tc.Name, Arguments: tc.Arguments},
				})
			}
		}
		out = append(out, w)
	}
	return out
}

// failure wraps an attempt's error with what the retry policy needs.
type failure struct {
	err        error
	transient  bool
	retryAfter time.Duration // from the server, when it said
}

func (f *failure) Error() string { return f.err.Error() }

// cause classes a transient failure for RetryInfo.Cause.
func (f *failure) cause() string {
	var ae *provider.APIError
	if !errors.As(f.err, &ae) {
		return provider.RetryTransport
	}
	var ne net.Error
	switch s := ae.Status; {
	case s == http.StatusTooManyRequests:
		return provider.RetryRateLimit
	case s >= 500:
		return provider.RetryServer
	case s == http.StatusRequestTimeout:
		return provider.RetryTimeout
	case s != 0:
		return strconv.Itoa(s)
	case errors.As(ae.Err, &ne) && ne.Timeout():
		return provider.RetryTimeout
	}
	return provider.RetryTransport
}

// idleError is the cause of an attempt the watchdog cancelled because the
// server went silent. It is a timeout, as a net.Error says.
type idleError struct{ d time.Duration }

func (e idleError) Error() string   { return fmt.Sprintf("no data from the server for %v", e.d) }
func (e idleError) Timeout() bool   { return true }
func (e idleError) Temporary() bool { return true }
