package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
)

// sse writes server-sent events the way OpenAI-compatible servers do.
func sse(w http.ResponseWriter, frames ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, f := range frames {
		fmt.Fprintf(w, "data: %s\n\n", f)
		w.(http.Flusher).Flush()
	}
}

func newClient(t *testing.T, url string, opts map[string]any) *Client {
	t.Helper()
	if opts == nil {
		opts = map[string]any{}
	}
	if _, ok := opts["retry_base_ms"]; !ok {
		opts["retry_base_ms"] = 1
	}
	p, err := New(provider.Config{Name: "test", BaseURL: url, Model: "m", APIKey: "k", Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*Client)
}

// collect streams a request and records the chunks.
func collect(t *testing.T, c *Client, req provider.Request) ([]provider.Chunk, provider.Response, error) {
	t.Helper()
	var chunks []provider.Chunk
	resp, err := c.Stream(context.Background(), req, func(ch provider.Chunk) { chunks = append(chunks, ch) })
	return chunks, resp, err
}

var userReq = provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}}

func TestStreamAssemblesToolCallsByIndex(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer k" {
			t.Errorf("Authorization = %q", got)
		}
		sse(w,
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":"think"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"Let me look."}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read_file","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"grep","arguments":"{\"pat"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a.go\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"tern\":\"x\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":7,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}}`,
			`[DONE]`)
	}))
	defer srv.Close()
	chunks, resp, err := collect(t, newClient(t, srv.URL, nil), userReq)
	if err != nil {
		t.Fatal(err)
	}
	var calls []provider.ToolCall
	var text, reasoning string
	for _, c := range chunks {
		switch c.Kind {
		case provider.ChunkToolCall:
			calls = append(calls, *c.ToolCall)
		case provider.ChunkText:
			if len(calls) > 0 {
				t.Error("text after a tool call was emitted")
			}
			text += c.Text
		case provider.ChunkReasoning:
			reasoning += c.Text
		}
	}
	want := []provider.ToolCall{
		{ID: "a", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{ID: "b", Name: "grep", Arguments: `{"pattern":"x"}`},
	}
	if fmt.Sprint(calls) != fmt.Sprint(want) || fmt.Sprint(resp.Message.ToolCalls) != fmt.Sprint(want) {
		t.Fatalf("calls = %v, message calls = %v", calls, resp.Message.ToolCalls)
	}
	if text != "Let me look." || reasoning != "think" || resp.Message.Reasoning != "think" {
		t.Fatalf("text %q reasoning %q", text, reasoning)
	}
	u := resp.Usage
	if u.PromptTokens != 100 || u.CacheHitTokens != 64 || u.CacheMissTokens != 36 || u.CompletionTokens != 7 {
		t.Fatalf("usage = %+v", u)
	}
	if resp.FinishReason != "tool_calls" {
		t.Fatalf("finish = %q", resp.FinishReason)
	}
}

func TestUsageShapes(t *testing.T) {
	tests := []struct {
		json      string
		hit, miss int
	}{
		{`{"prompt_tokens":10,"prompt_cache_hit_tokens":4,"prompt_cache_miss_tokens":6}`, 4, 6},
		{`{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":8}}`, 8, 2},
		{`{"prompt_tokens":10}`, 0, 10},
	}
	for _, tt := range tests {
		var w wireUsage
		if err := json.Unmarshal([]byte(tt.json), &w); err != nil {
			t.Fatal(err)
		}
		u := w.usage()
		if u.CacheHitTokens != tt.hit || u.CacheMissTokens != tt.miss {
			t.Errorf("%s: hit %d miss %d", tt.json, u.CacheHitTokens, u.CacheMissTokens)
		}
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	var n atomic.Int32
	var first time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(429)
			io.WriteString(w, `{"error":{"message":"slow down"}}`)
		case 2:
			if d := time.Since(first); d < 900*time.Millisecond {
				t.Errorf("retried after %v, before Retry-After", d)
			}
			w.WriteHeader(503)
		default:
			sse(w, `{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, `[DONE]`)
		}
	}))
	defer srv.Close()
	chunks, resp, err := collect(t, newClient(t, srv.URL, nil), userReq)
	if err != nil {
		t.Fatal(err)
	}
	causes := retryCauses(chunks)
	if causes != "429 5xx" || resp.Message.Content != "ok" || n.Load() != 3 {
		t.Fatalf("retries %q, content %q, requests %d", causes, resp.Message.Content, n.Load())
	}
}

// retryCauses lists the causes of the retry chunks, in order.
func retryCauses(chunks []provider.Chunk) string {
	var causes []string
	for _, c := range chunks {
		if c.Kind == provider.ChunkRetry {
			causes = append(causes, c.Retry.Cause)
		}
	}
	return strings.Join(causes, " ")
}

func TestClientErrorsFailAtOnce(t *testing.T) {
	for _, status := range []int{400, 401, 404, 422} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"Authentication Fails, Your api key is invalid","type":"authentication_error"}}`)
		}))
		_, _, err := collect(t, newClient(t, srv.URL, nil), userReq)
		srv.Close()
		var ae *provider.APIError
		if !errors.As(err, &ae) || ae.Status != status || !strings.Contains(err.Error(), "Authentication Fails") {
			t.Fatalf("%d: err = %v", status, err)
		}
		if n.Load() != 1 {
			t.Fatalf("%d: %d requests, want 1", status, n.Load())
		}
		if status == 401 && !provider.IsAuth(err) {
			t.Fatal("401 is not IsAuth")
		}
	}
}

// TestContextLengthExceeded: a prompt over the model's window fails at
// once, and the error says so in both vendors' wordings.
func TestContextLengthExceeded(t *testing.T) {
	bodies := map[string]string{
		"openai":   `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
		"deepseek": `{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (70000 in the messages, 0 in the completion).","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`,
		"code":     `{"error":{"message":"too long","type":"invalid_request_error","code":"context_length_exceeded"}}`,
		"other":    `{"error":{"message":"Invalid Parameters","type":"invalid_request_error"}}`,
	}
	for name, body := range bodies {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, body)
		}))
		_, _, err := collect(t, newClient(t, srv.URL, nil), userReq)
		srv.Close()
		if got, want := provider.IsContextLength(err), name != "other"; got != want {
			t.Errorf("%s: IsContextLength = %v, want %v (err %v)", name, got, want, err)
		}
		if n.Load() != 1 {
			t.Errorf("%s: %d requests, want 1", name, n.Load())
		}
	}
}

func TestRetriesAreBounded(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(500)
	}))
	defer srv.Close()
	_, _, err := collect(t, newClient(t, srv.URL, map[string]any{"max_retries": 2}), userReq)
	if err == nil || !strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Fatalf("err = %v", err)
	}
	if n.Load() != 3 {
		t.Fatalf("%d requests", n.Load())
	}
}

func TestTruncatedStream(t *testing.T) {
	// Every attempt ends mid-message: the client retries, then fails with
	// a clear error rather than returning half an answer.
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		sse(w, `{"choices":[{"index":0,"delta":{"content":"half"}}]}`)
	}))
	defer srv.Close()
	chunks, _, err := collect(t, newClient(t, srv.URL, map[string]any{"max_retries": 1}), userReq)
	if !errors.Is(err, provider.ErrStreamTruncated) {
		t.Fatalf("err = %v", err)
	}
	if causes := retryCauses(chunks); causes != provider.RetryTransport {
		t.Fatalf("retry causes %q", causes)
	}
	if n.Load() != 2 {
		t.Fatalf("%d requests", n.Load())
	}
}

func TestMalformedChunk(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(w, `{"choices":[{"index":0,"delta":{"content":"a"}}]}`, `{not json`)
	}))
	defer srv.Close()
	_, _, err := collect(t, newClient(t, srv.URL, map[string]any{"max_retries": 0}), userReq)
	if err == nil || !strings.Contains(err.Error(), "malformed stream chunk") {
		t.Fatalf("err = %v", err)
	}
}

func TestCancelClosesStream(t *testing.T) {
	closed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(w, `{"choices":[{"index":0,"delta":{"content":"a"}}]}`)
		<-r.Context().Done() // the client hung up
		close(closed)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	c := newClient(t, srv.URL, nil)
	done := make(chan error, 1)
	go func() {
		_, err := c.Stream(ctx, userReq, func(ch provider.Chunk) {
			if ch.Kind == provider.ChunkText {
				cancel()
			}
		})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stream did not return after cancel")
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the connection close")
	}
}

func TestIdleStreamIsRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			sse(w, `{"choices":[{"index":0,"delta":{"content":"a"}}]}`)
			<-r.Context().Done()
			return
		}
		sse(w, `{"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}`, `[DONE]`)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, nil)
	c.idle = 200 * time.Millisecond
	chunks, resp, err := collect(t, c, userReq)
	if err != nil || resp.Message.Content != "b" {
		t.Fatalf("content %q err %v", resp.Message.Content, err)
	}
	if causes := retryCauses(chunks); causes != provider.RetryTimeout {
		t.Fatalf("retry causes %q", causes)
	}
}

func TestNonStreamingAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"x","type":"function","function":{"name":"ls","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`)
	}))
	defer srv.Close()
	_, resp, err := collect(t, newClient(t, srv.URL, nil), userReq)
	if err != nil || len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Name != "ls" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

func TestIndexlessToolCalls(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"ls","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","function":{"name":"glob","arguments":"{\"pattern\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\"*.go\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	}))
	defer srv.Close()
	_, resp, err := collect(t, newClient(t, srv.URL, nil), userReq)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(resp.Message.ToolCalls)
	if got != `[{a ls {} 0} {b glob {"pattern":"*.go"} 0}]` {
		t.Fatalf("calls = %s", got)
	}
}

func TestReasoningReplay(t *testing.T) {
	msgs := []provider.Message{
		{Role: provider.RoleSystem, Content: "sys"},
		{Role: provider.RoleUser, Content: "q1"},
		{Role: provider.RoleAssistant, Content: "plain", Reasoning: "r1"},
		{Role: provider.RoleUser, Content: "q2"},
		{Role: provider.RoleAssistant, Reasoning: "r2", ToolCalls: []provider.ToolCall{{ID: "c", Name: "ls", Arguments: "{}"}}},
		{Role: provider.RoleTool, ToolCallID: "c", Content: "out"},
		{Role: provider.RoleAssistant, Content: "done", Reasoning: "r3"},
	}
	tests := []struct {
		mode ReasoningReplay
		want []string // reasoning sent per message
	}{
		{ReplayToolTurns, []string{"", "", "", "", "r2", "", "r3"}},
		{ReplayAll, []string{"", "", "r1", "", "r2", "", "r3"}},
		{ReplayNone, []string{"", "", "", "", "", "", ""}},
	}
	for _, tt := range tests {
		c := &Client{replay: tt.mode}
		w := c.wireMessages(msgs)
		for i, m := range w {
			if m.ReasoningContent != tt.want[i] {
				t.Errorf("%s: message %d reasoning %q, want %q", tt.mode, i, m.ReasoningContent, tt.want[i])
			}
		}
		// The rendering of a prefix must not change as the log grows.
		for n := 1; n <= len(msgs); n++ {
			short, _ := json.Marshal(c.wireMessages(msgs[:n]))
			full, _ := json.Marshal(w[:n])
			if string(short) != string(full) {
				t.Errorf("%s: prefix of %d messages renders differently once more messages follow", tt.mode, n)
			}
		}
	}
	// A tool-only assistant message sends content null.
	b, _ := json.Marshal((&Client{}).wireMessages(msgs[4:5]))
	if !strings.Contains(string(b), `"content":null`) {
		t.Errorf("tool-only assistant message: %s", b)
	}
}

func TestExtraBodyAndOptions(t *testing.T) {
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&body)
		if r.Header.Get("X-Team") != "core" {
			t.Errorf("header missing")
		}
		sse(w, `{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, `[DONE]`)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL+"/", map[string]any{
		"extra_body": map[string]any{"thinking": map[string]any{"type": "disabled"}},
		"headers":    map[string]any{"X-Team": "core"},
	})
	if _, _, err := collect(t, c, userReq); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(body["thinking"]) != "map[type:disabled]" || body["stream"] != true || body["model"] != "m" {
		t.Fatalf("body = %v", body)
	}
	if _, err := New(provider.Config{Name: "x", BaseURL: "u", Model: "m", Options: map[string]any{"reasoning_replay": "sometimes"}}); err == nil {
		t.Fatal("bad reasoning_replay accepted")
	}
	if _, err := New(provider.Config{Name: "x", BaseURL: "u", Model: "m", Options: map[string]any{"max_retries": "3"}}); err == nil {
		t.Fatal("string max_retries accepted")
	}
}

func TestMissingToolCallIDsAreUnique(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"ls","arguments":"{}"}},{"index":1,"function":{"name":"ls","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, nil)
	seen := map[string]bool{}
	for range 2 {
		_, resp, err := collect(t, c, userReq)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range resp.Message.ToolCalls {
			if tc.ID == "" || seen[tc.ID] {
				t.Fatalf("id %q empty or repeated", tc.ID)
			}
			seen[tc.ID] = true
		}
	}
}
