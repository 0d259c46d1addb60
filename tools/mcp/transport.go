package mcp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport kinds, as Status reports them.
const (
	kindStdio = "stdio"
	kindHTTP  = "http"
	kindSSE   = "sse"
)

// transportKind maps a [[plugins]] type to a transport kind. It returns ""
// for a type it does not know.
func transportKind(typ string) string {
	switch strings.ToLower(strings.TrimSpace(typ)) {
	case "", "stdio":
		return kindStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		return kindHTTP
	case "sse":
		return kindSSE
	}
	return ""
}

// newTransport returns the transport that opens sess, starting the
// server's process for stdio. life is the session's lifetime: a transport
// that holds a request open for the whole session (the legacy SSE stream)
// runs it under life rather than under the start-up deadline.
func (s *server) newTransport(life context.Context, sess *session) (mcp.Transport, error) {
	cfg := s.cfg
	switch s.transport {
	case kindStdio:
		p, err := startProcess(cfg, s.m.opts.Dir, s.m.opts.HideEnv, s.m.log.With("server", s.name))
		if err != nil {
			return nil, err
		}
		sess.proc = p
		return &mcp.IOTransport{Reader: p, Writer: p}, nil
	case kindHTTP, kindSSE:
		if strings.TrimSpace(cfg.URL) == "" {
			return nil, fmt.Errorf("no url configured (set url in its [[plugins]] entry)")
		}
		base := http.DefaultTransport.(*http.Transport).Clone()
		sess.httpTransport = base
		client := &http.Client{Transport: &headerTransport{base: base, headers: cfg.Headers, denied: &sess.denied}}
		if s.transport == kindSSE {
			return lifeTransport{&mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}, life}, nil
		}
		t := &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}
		if s.auth != nil {
			t.OAuthHandler = s.auth
		}
		return t, nil
	}
	return nil, fmt.Errorf("unknown type %q (use \"stdio\", \"http\" or \"sse\")", cfg.Type)
}

// lifeTransport connects the wrapped transport under a context of its own
// instead of the one Connect is given.
type lifeTransport struct {
	mcp.Transport
	life context.Context
}

func (t lifeTransport) Connect(context.Context) (mcp.Connection, error) {
	return t.Transport.Connect(t.life)
}

// headerTransport adds a plugin's static headers (an Authorization token,
// say) to every request. Headers the MCP client sets itself, such as
// Mcp-Session-Id, are left alone.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	denied  *atomic.Int32 // set to the status of a 401 or 403 answer
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			if req.Header.Get(k) == "" {
				req.Header.Set(k, v)
			}
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		t.denied.Store(int32(resp.StatusCode))
	}
	return resp, err
}
