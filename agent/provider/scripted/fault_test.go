package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestStatusFaults(t *testing.T) {
	tests := []struct {
		script     string
		status     int
		message    string
		typ        string
		retryAfter string
	}{
		{"fault 429 retry-after=3", 429, "Rate Limit Reached", "rate_limit_error", "3"},
		{"fault 429", 429, "Rate Limit Reached", "rate_limit_error", ""},
		{"fault 500", 500, "Server Error", "server_error", ""},
		{"fault 503", 503, "Server Overloaded", "server_error", ""},
		{"fault 401", 401, "Authentication Fails, Your api key: ****5678 is invalid", "authentication_error", ""},
		{"fault 400 This model's maximum context length is 65536 tokens", 400, "This model's maximum context length is 65536 tokens", "invalid_request_error", ""},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			srv, url := start(t, tt.script+"\n---\ntext recovered\n", Options{})
			resp := post(t, url, body(t, true, msg("user", "hi")), "Authorization", "Bearer sk-12345678")
			got, typ := errorBody(t, resp, tt.status)
			if got != tt.message || typ != tt.typ {
				t.Errorf("error = %q (%s), want %q (%s)", got, typ, tt.message, tt.typ)
			}
			if ra := resp.Header.Get("Retry-After"); ra != tt.retryAfter {
				t.Errorf("Retry-After = %q, want %q", ra, tt.retryAfter)
			}
			// The fault consumed one request; a retry gets the next step.
			if a := streamOK(t, url, body(t, true, msg("user", "hi"))); a.content != "recovered" {
				t.Errorf("retry content = %q", a.content)
			}
			if srv.Remaining() != 0 {
				t.Errorf("Remaining = %d", srv.Remaining())
			}
		})
	}
}

const longText = "text The quick brown fox jumps over the lazy dog, again and again, until the stream is long enough to cut.\n"

func TestFaultDrop(t *testing.T) {
	_, url := start(t, "fault drop\n"+longText, Options{})
	resp := post(t, url, body(t, true, msg("user", "hi")))
	frames, err := readSSE(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("read error = %v, want an unexpected EOF", err)
	}
	a := assemble(t, frames)
	if a.done || a.finish != "" || a.usage != nil {
		t.Errorf("dropped stream finished: %+v", a)
	}
	if a.content == "" || len(a.content) >= len("The quick brown fox jumps over the lazy dog, again and again, until the stream is long enough to cut.") {
		t.Errorf("content before the drop = %q, want a part", a.content)
	}
}

func TestFaultDropNonStream(t *testing.T) {
	_, url := start(t, "fault drop\ntext a\n", Options{})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/chat/completions", strings.NewReader(body(t, false, msg("user", "hi"))))
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("request succeeded; want a transport error")
	}
}

func TestFaultMalformed(t *testing.T) {
	_, url := start(t, "fault malformed\n"+longText, Options{})
	resp := post(t, url, body(t, true, msg("user", "hi")))
	frames, err := readSSE(resp.Body)
	if err != nil {
		t.Fatalf("the stream should end cleanly: %v", err)
	}
	var data []string
	for _, f := range frames {
		if !f.comment {
			data = append(data, f.data)
		}
	}
	if len(data) < 2 {
		t.Fatalf("data frames = %q", data)
	}
	for _, d := range data[:len(data)-1] {
		if !json.Valid([]byte(d)) {
			t.Errorf("frame before the bad one is not JSON: %q", d)
		}
	}
	if last := data[len(data)-1]; json.Valid([]byte(last)) || last == "[DONE]" {
		t.Errorf("last frame = %q, want invalid JSON", last)
	}
}

func TestFaultTruncate(t *testing.T) {
	_, url := start(t, "fault truncate\n"+longText, Options{})
	resp := post(t, url, body(t, true, msg("user", "hi")))
	frames, err := readSSE(resp.Body)
	if err != nil {
		t.Fatalf("the stream should end cleanly: %v", err)
	}
	a := assemble(t, frames)
	if !strings.HasPrefix(a.content, "The quick brown fox") || !strings.HasSuffix(a.content, "cut.") {
		t.Errorf("content = %q, want all of it", a.content)
	}
	if a.done || a.finish != "" || a.usage != nil {
		t.Errorf("truncated stream has done=%v finish=%q usage=%v", a.done, a.finish, a.usage)
	}
}

func TestFaultTruncateNonStream(t *testing.T) {
	_, url := start(t, "fault truncate\ntext cut\n", Options{})
	resp := post(t, url, body(t, false, msg("user", "hi")))
	var c map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	choice := c["choices"].([]any)[0].(map[string]any)
	if choice["finish_reason"] != nil || c["usage"] != nil {
		t.Errorf("truncated completion = %v", c)
	}
}

func TestDelay(t *testing.T) {
	_, url := start(t, "delay 1ms\ntext slow but sure\n", Options{})
	if a := streamOK(t, url, body(t, true, msg("user", "hi"))); a.content != "slow but sure" || !a.done {
		t.Errorf("delayed stream = %+v", a)
	}
}

// A client that hangs up in the middle of a slow stream stops it at once:
// the handler notices through the request context instead of waiting out
// the delay.
func TestDelayStopsWhenClientHangsUp(t *testing.T) {
	stopped := make(chan string, 1)
	logf := func(format string, args ...any) {
		if strings.Contains(format, "not delivered") {
			stopped <- format
		}
	}
	srv, url := start(t, "delay 1h\ntext never\n", Options{Logf: logf})

	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body(t, true, msg("user", "hi"))))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// The keep-alive comment comes before the first delay.
	line := make([]byte, len(": keep-alive\n\n"))
	if _, err := io.ReadFull(resp.Body, line); err != nil || string(line) != ": keep-alive\n\n" {
		t.Fatalf("first bytes %q, %v", line, err)
	}
	cancel()

	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not stop after the client hung up")
	}
	if rec := srv.Requests()[0]; !strings.Contains(rec.Error, "not delivered") {
		t.Errorf("record error = %q", rec.Error)
	}
}

// TestContextWindow: a server with a context window refuses a prompt that
// does not fit with OpenAI's body, consumes no step for it, and answers
// one that fits.
func TestContextWindow(t *testing.T) {
	srv, url := start(t, "text fits\n", Options{ContextWindow: 40})
	resp := post(t, url, body(t, true, msg("user", strings.Repeat("word ", 40))))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Param   string `json:"param"`
			Code    string `json:"code"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if e.Error.Code != "context_length_exceeded" || e.Error.Type != "invalid_request_error" || e.Error.Param != "messages" ||
		!strings.HasPrefix(e.Error.Message, "This model's maximum context length is 40 tokens. However, you requested ") {
		t.Errorf("error body = %+v", e.Error)
	}
	if srv.Remaining() != 1 {
		t.Errorf("Remaining = %d after a refused request, want 1", srv.Remaining())
	}
	if a := streamOK(t, url, body(t, true, msg("user", "hi"))); a.content != "fits" {
		t.Errorf("content = %q", a.content)
	}
	reqs := srv.Requests()
	if reqs[0].Status != 400 || !strings.Contains(reqs[0].Error, "maximum context length") {
		t.Errorf("record = %+v", reqs[0])
	}
}
