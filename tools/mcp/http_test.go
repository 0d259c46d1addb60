//go:build unix

package mcp

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// headerRecorder is a reverse proxy in front of a real server that
// remembers the value of one header on every request it forwards.
type headerRecorder struct {
	header string
	proxy  *httputil.ReverseProxy

	mu   sync.Mutex // guards seen
	seen []string
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Method+" "+r.Header.Get(h.header))
	h.mu.Unlock()
	h.proxy.ServeHTTP(w, r)
}

// recordHeader starts a proxy to target recording header.
func recordHeader(t *testing.T, target, header string) (*headerRecorder, string) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1 // pass server-sent events through at once
	h := &headerRecorder{header: header, proxy: proxy}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv.URL
}

// TestStreamableHTTP drives server-everything over streamable HTTP, as
// two servers: "remote" through a proxy that checks a static header
// reaches the server on every request, and "direct". Then the server
// stops under them.
func TestStreamableHTTP(t *testing.T) {
	t.Parallel()
	base, cmd := mcptest.ServeEverything(t, "streamableHttp")
	rec, proxied := recordHeader(t, base, "X-Reasonix-Test")
	m := start(t, Options{Servers: []ServerConfig{
		{
			Name:    "remote",
			Type:    "streamableHttp",
			URL:     proxied + "/mcp",
			Headers: map[string]string{"X-Reasonix-Test": "token"},
		},
		{Name: "direct", Type: "http", URL: base + "/mcp"},
	}})
	if w := m.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %q", w)
	}
	ctx := t.Context()
	for _, name := range []string{"remote", "direct"} {
		if st := statusOf(t, m, name); st.State != "connected" || st.Transport != "http" || st.Tools == 0 {
			t.Fatalf("status %+v", st)
		}
	}

	wantContent(t, call(t, ctx, m, "mcp__remote__echo", map[string]any{"message": "hi"}), "Echo: hi")
	wantContent(t, call(t, ctx, m, "mcp__remote__get-sum", map[string]any{"a": 40, "b": 2}), "is 42")
	wantContent(t, call(t, ctx, m, "mcp__direct__echo", map[string]any{"message": "hey"}), "Echo: hey")
	text, err := m.GetPrompt(ctx, "remote", "args-prompt", map[string]string{"city": "Lyon"})
	if err != nil || text != "What's weather in Lyon?" {
		t.Errorf("GetPrompt = %q, %v", text, err)
	}
	text, err = m.ReadResource(ctx, "remote", "demo://resource/dynamic/text/3")
	if err != nil || !strings.Contains(text, "Resource 3") {
		t.Errorf("ReadResource = %q, %v", text, err)
	}

	rec.mu.Lock()
	seen := append([]string(nil), rec.seen...)
	rec.mu.Unlock()
	if len(seen) < 5 {
		t.Errorf("the proxy saw only %v", seen)
	}
	for _, s := range seen {
		if !strings.HasSuffix(s, " token") {
			t.Errorf("a request went without the configured header: %v", seen)
			break
		}
	}

	// The server goes away. Reached directly, the call reports that it
	// stopped, and the restart that follows cannot reach it. Through the
	// proxy, the proxy answers 502, which is reported as is.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	wantError(t, call(t, ctx, m, "mcp__direct__echo", map[string]any{"message": "gone"}),
		`MCP server "direct" stopped during the call`, "restarted on the next call")
	wantError(t, call(t, ctx, m, "mcp__direct__echo", map[string]any{"message": "gone"}),
		"could not be restarted", "cannot connect to "+base)
	if st := statusOf(t, m, "direct"); st.State != "failed" || st.Error == "" {
		t.Errorf("status after the server went away: %+v", st)
	}
	wantError(t, call(t, ctx, m, "mcp__remote__echo", map[string]any{"message": "gone"}), "Bad Gateway")
}

// TestSSE drives server-everything over the legacy HTTP+SSE transport.
func TestSSE(t *testing.T) {
	t.Parallel()
	base, _ := mcptest.ServeEverything(t, "sse")
	m := start(t, Options{Servers: []ServerConfig{{Name: "legacy", Type: "sse", URL: base + "/sse"}}})
	if w := m.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %q", w)
	}
	if st := statusOf(t, m, "legacy"); st.State != "connected" || st.Transport != "sse" {
		t.Fatalf("status %+v", st)
	}
	wantContent(t, call(t, t.Context(), m, "mcp__legacy__echo", map[string]any{"message": "old"}), "Echo: old")
	text, err := m.GetPrompt(t.Context(), "legacy", "simple-prompt", nil)
	if err != nil || text == "" {
		t.Errorf("GetPrompt = %q, %v", text, err)
	}
}
