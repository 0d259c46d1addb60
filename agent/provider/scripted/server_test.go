package scripted

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

const callScript = `
reasoning I should read both files.
reasoning Then compare them.
text Reading them now — 読む.
call read_file {"path": "internal/long/path/to/a.go", "limit": 200}
call read_file {"path": "b.go"}
`

func TestStream(t *testing.T) {
	srv, url := start(t, callScript, Options{})
	a := streamOK(t, url, body(t, true, msg("user", "compare a and b")))

	if !a.firstFrame.comment {
		t.Errorf("first frame = %+v, want a keep-alive comment", a.firstFrame)
	}
	if !a.done {
		t.Error("stream did not end with [DONE]")
	}
	if len(a.chunks) < 10 {
		t.Fatalf("only %d chunks; reasoning, content and arguments should be split", len(a.chunks))
	}
	first := a.chunks[0]
	if first.Object != "chat.completion.chunk" || !strings.HasPrefix(first.ID, "chatcmpl-") || first.Model != "deepseek-chat" || first.Created == 0 {
		t.Errorf("first chunk header = %+v", first)
	}
	d := first.Choices[0].Delta
	if d.Role == nil || *d.Role != "assistant" || d.Content == nil || *d.Content != "" {
		t.Errorf("first delta = %+v, want role assistant and empty content", d)
	}
	for _, c := range a.chunks {
		if c.ID != first.ID || c.Created != first.Created || c.Model != first.Model {
			t.Errorf("chunk header changed mid-stream: %+v", c)
		}
	}
	if want := "I should read both files.\nThen compare them."; a.reasoning != want {
		t.Errorf("reasoning = %q, want %q", a.reasoning, want)
	}
	if want := "Reading them now — 読む."; a.content != want {
		t.Errorf("content = %q, want %q", a.content, want)
	}
	wantArgs := []string{`{"path": "internal/long/path/to/a.go", "limit": 200}`, `{"path": "b.go"}`}
	if len(a.calls) != 2 {
		t.Fatalf("calls = %+v, want 2", a.calls)
	}
	ids := map[string]bool{}
	for i, c := range a.calls {
		if c.name != "read_file" || c.id == "" || ids[c.id] {
			t.Errorf("call %d = %+v", i, c)
		}
		ids[c.id] = true
		if c.args != wantArgs[i] {
			t.Errorf("call %d arguments = %q, want %q", i, c.args, wantArgs[i])
		}
		if c.argChunks < 2 {
			t.Errorf("call %d arguments arrived in %d chunk(s), want at least 2", i, c.argChunks)
		}
	}
	if a.finish != "tool_calls" {
		t.Errorf("finish_reason = %q", a.finish)
	}

	// The finishing chunk has an empty delta; then comes the usage chunk
	// with no choices.
	last, usageChunk := a.chunks[len(a.chunks)-2], a.chunks[len(a.chunks)-1]
	if fd := last.Choices[0].Delta; fd.Role != nil || fd.Content != nil || fd.ReasoningContent != nil || fd.ToolCalls != nil {
		t.Errorf("finish chunk delta not empty: %+v", fd)
	}
	if usageChunk.Choices == nil || len(usageChunk.Choices) != 0 || usageChunk.Usage == nil {
		t.Fatalf("usage chunk = %+v, want choices [] and usage", usageChunk)
	}
	u := a.usage
	if u.PromptTokens == 0 || u.CompletionTokens == 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage = %+v", u)
	}
	if u.PromptCacheHitTokens != 0 || u.PromptCacheMissTokens != u.PromptTokens || u.PromptTokensDetails.CachedTokens != 0 {
		t.Errorf("first request usage has cache hits: %+v", u)
	}
	if u.CompletionTokensDetails.ReasoningTokens == 0 || u.CompletionTokensDetails.ReasoningTokens >= u.CompletionTokens {
		t.Errorf("reasoning tokens = %d of %d", u.CompletionTokensDetails.ReasoningTokens, u.CompletionTokens)
	}
	if srv.Remaining() != 0 {
		t.Errorf("Remaining = %d", srv.Remaining())
	}
}

func TestStreamRawFraming(t *testing.T) {
	_, url := start(t, "text hi there\n", Options{})
	resp := post(t, url, body(t, true, msg("user", "hi")))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	if !strings.HasPrefix(s, ": keep-alive\n\ndata: {") || !strings.HasSuffix(s, "\n\ndata: [DONE]\n\n") {
		t.Errorf("stream framing:\n%s", s)
	}
	// Chunks carry explicit nulls the way OpenAI and DeepSeek send them.
	if !strings.Contains(s, `"logprobs":null,"finish_reason":null`) || !strings.Contains(s, `"choices":[],"usage":{`) {
		t.Errorf("chunk JSON shape:\n%s", s)
	}
}

func TestNonStream(t *testing.T) {
	_, url := start(t, callScript+"---\ntext done\n", Options{})
	resp := post(t, url, `{"model":"m1","messages":[{"role":"user","content":[{"type":"text","text":"compare"}]}]}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var c struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Role             string `json:"role"`
				Content          string `json:"content"`
				ReasoningContent string `json:"reasoning_content"`
				ToolCalls        []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *tUsage `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "chat.completion" || c.Model != "m1" || len(c.Choices) != 1 || c.Usage == nil || c.Usage.PromptTokens == 0 {
		t.Fatalf("completion = %+v", c)
	}
	m := c.Choices[0].Message
	if m.Role != "assistant" || m.Content != "Reading them now — 読む." || !strings.HasPrefix(m.ReasoningContent, "I should") {
		t.Errorf("message = %+v", m)
	}
	if len(m.ToolCalls) != 2 || m.ToolCalls[0].Type != "function" || m.ToolCalls[1].Function.Arguments != `{"path": "b.go"}` {
		t.Errorf("tool calls = %+v", m.ToolCalls)
	}
	if c.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("finish_reason = %q", c.Choices[0].FinishReason)
	}
}

func TestAuth(t *testing.T) {
	_, url := start(t, "text a\n---\ntext b\n", Options{APIKey: "sk-right-key"})
	for _, tt := range []struct {
		name   string
		header []string
	}{
		{"no key", nil},
		{"wrong key", []string{"Authorization", "Bearer sk-wrong-abcd"}},
		{"not bearer", []string{"Authorization", "sk-right-key"}},
	} {
		resp := post(t, url, body(t, false, msg("user", "hi")), tt.header...)
		got, typ := errorBody(t, resp, http.StatusUnauthorized)
		if !strings.HasPrefix(got, "Authentication Fails, Your api key: ****") || typ != "authentication_error" {
			t.Errorf("%s: error = %q (%s)", tt.name, got, typ)
		}
	}
	resp := post(t, url, body(t, false, msg("user", "hi")), "Authorization", "Bearer sk-wrong-abcd")
	if got, _ := errorBody(t, resp, http.StatusUnauthorized); !strings.Contains(got, "****abcd is invalid") {
		t.Errorf("message %q should show the key's last four characters", got)
	}
	resp = post(t, url, body(t, true, msg("user", "hi")), "Authorization", "Bearer sk-right-key")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("right key: status %d", resp.StatusCode)
	}
}

func TestModelsAndRoutes(t *testing.T) {
	_, url := start(t, "text a\n", Options{})
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, string(data)
	}
	if _, got := get("/models"); !strings.Contains(got, `"id":"scripted"`) {
		t.Errorf("models before any request = %s", got)
	}
	resp := post(t, url+"/v1", body(t, false, msg("user", "hi")))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/chat/completions: status %d", resp.StatusCode)
	}
	if _, got := get("/v1/models"); !strings.Contains(got, `"object":"list"`) || !strings.Contains(got, `"id":"deepseek-chat"`) {
		t.Errorf("models after a request = %s", got)
	}
	resp, got := get("/v2/whatever")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(got, `"error"`) {
		t.Errorf("unknown path: %d %s", resp.StatusCode, got)
	}
	resp, _ = get("/chat/completions")
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /chat/completions: %d", resp.StatusCode)
	}
}

func TestConfiguredModel(t *testing.T) {
	_, url := start(t, "text a\n", Options{Model: "deepseek-reasoner"})
	resp := post(t, url, body(t, false, msg("user", "hi"))) // asks for deepseek-chat
	if got, _ := errorBody(t, resp, http.StatusBadRequest); got != "Model Not Exist" {
		t.Errorf("error = %q", got)
	}
}

func TestBadRequests(t *testing.T) {
	_, url := start(t, "text a\n", Options{})
	tests := []struct {
		name, body, want string
	}{
		{"not json", `{"model":`, "not valid JSON"},
		{"no messages", `{"model":"m","messages":[]}`, "messages is required"},
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, "model is required"},
		{"bad role", `{"model":"m","messages":[{"role":"robot","content":"hi"}]}`, `unknown role "robot"`},
		{"image part", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, "only {\"type\":\"text\""},
		{"content number", `{"model":"m","messages":[{"role":"user","content":3}]}`, "expected a string"},
		{"arguments object", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{}}}]},{"role":"tool","tool_call_id":"c","content":"r"}]}`, "not valid JSON for a chat completion"},
		{"orphan tool message", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c","content":"r"}]}`, "must be a response to a preceding message with 'tool_calls'"},
		{"unanswered call", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"},{"role":"user","content":"go on"}]}`, "did not have response messages: c2"},
		{"tool without function type", `{"model":"m","tools":[{"type":"code"}],"messages":[{"role":"user","content":"x"}]}`, `tools[0].type must be "function"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, url, tt.body)
			got, typ := errorBody(t, resp, http.StatusBadRequest)
			if !strings.Contains(got, tt.want) || typ != "invalid_request_error" {
				t.Errorf("error = %q (%s), want it to contain %q", got, typ, tt.want)
			}
		})
	}
	// None of them consumed the step.
	if a := streamOK(t, url, body(t, true, msg("user", "hi"))); a.content != "a" {
		t.Errorf("content = %q", a.content)
	}
}

func TestExhausted(t *testing.T) {
	_, url := start(t, "text only one\n", Options{})
	streamOK(t, url, body(t, true, msg("user", "hi")))
	resp := post(t, url, body(t, true, msg("user", "again")))
	if got, _ := errorBody(t, resp, http.StatusBadRequest); got != "scripted model: no scripted step left for this request (request 2)" {
		t.Errorf("error = %q", got)
	}
}

func TestFallback(t *testing.T) {
	srv, url := start(t, "text only one\n", Options{Fallback: "The script is over."})
	if a := streamOK(t, url, body(t, true, msg("user", "hi"))); a.content != "only one" {
		t.Errorf("first answer = %q, want the script's step", a.content)
	}
	for _, prompt := range []string{"again", "and again"} {
		if a := streamOK(t, url, body(t, true, msg("user", prompt))); a.content != "The script is over." {
			t.Errorf("answer to %q = %q, want the fallback", prompt, a.content)
		}
	}
	if recs := srv.Requests(); len(recs) != 3 || recs[2].Status != http.StatusOK || recs[2].Step != 0 {
		t.Errorf("records = %+v, want three answered requests, the last with no step", recs)
	}
}

func TestRecord(t *testing.T) {
	srv, url := start(t, "text a\n---\nfault 503\n", Options{APIKey: "sk-secret"})
	streamOK2 := post(t, url, body(t, true, msg("user", "first")), "Authorization", "Bearer sk-secret")
	io.ReadAll(streamOK2.Body)
	errorBody(t, post(t, url, body(t, false, msg("user", "second")), "Authorization", "Bearer sk-secret"), http.StatusServiceUnavailable)
	errorBody(t, post(t, url, "{}", "Authorization", "Bearer sk-secret"), http.StatusBadRequest)

	recs := srv.Requests()
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	r1, r2, r3 := recs[0], recs[1], recs[2]
	if r1.Seq != 1 || r1.Step != 1 || r1.Status != 200 || !r1.Stream || r1.Usage == nil || r1.Messages[0].Content != "first" || r1.Model != "deepseek-chat" {
		t.Errorf("record 1 = %+v", r1)
	}
	if got := r1.Header.Get("Authorization"); got != "[redacted]" {
		t.Errorf("Authorization recorded as %q", got)
	}
	if !strings.Contains(r1.Body, `"first"`) || r1.Time.IsZero() || r1.Path != "/chat/completions" {
		t.Errorf("record 1 body/time/path = %q %v %q", r1.Body, r1.Time, r1.Path)
	}
	if r2.Step != 2 || r2.Status != 503 || r2.Fault != "503" || r2.Usage != nil {
		t.Errorf("record 2 = %+v", r2)
	}
	if r3.Step != 0 || r3.Status != 400 || r3.Error == "" {
		t.Errorf("record 3 = %+v", r3)
	}

	resp, err := http.Get(url + "/_scripted/requests")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var served []Request
	if err := json.NewDecoder(resp.Body).Decode(&served); err != nil {
		t.Fatal(err)
	}
	if len(served) != 3 || served[1].Fault != "503" || served[0].Header.Get("Authorization") != "[redacted]" {
		t.Errorf("/_scripted/requests = %+v", served)
	}

	resp2, err := http.Get(url + "/_scripted/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	var status map[string]int
	if err := json.NewDecoder(resp2.Body).Decode(&status); err != nil {
		t.Fatal(err)
	}
	if status["steps"] != 2 || status["consumed"] != 2 || status["remaining"] != 0 || status["requests"] != 3 {
		t.Errorf("/_scripted/status = %v", status)
	}
}

func TestCloseIsIdempotent(t *testing.T) {
	sc, _ := Parse([]byte("text a\n"))
	srv := NewServer(sc, Options{})
	if err := srv.Close(); err != nil {
		t.Errorf("Close before Start: %v", err)
	}
	url, err := srv.Start()
	if err != nil || srv.URL() != url || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("Start = %q, %v; URL = %q", url, err, srv.URL())
	}
	if _, err := srv.Start(); err == nil {
		t.Error("second Start succeeded")
	}
	srv.Close()
	srv.Close()
	if _, err := http.Get(url + "/models"); err == nil {
		t.Error("server still answering after Close")
	}
}
