package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestExpectations(t *testing.T) {
	toolTurn := []map[string]any{
		msg("system", "You are Reasonix, a coding agent."),
		msg("user", "please fix the bug"),
		{"role": "assistant", "content": "", "tool_calls": []map[string]any{
			{"id": "c1", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"a.go"}`}},
		}},
		{"role": "tool", "tool_call_id": "c1", "content": "package a // 12 lines"},
	}
	withTools := func(msgs []map[string]any) string {
		b, _ := json.Marshal(map[string]any{
			"model": "deepseek-chat", "stream": true, "messages": msgs,
			"tools": []map[string]any{{"type": "function", "function": map[string]any{
				"name": "read_file", "description": "Read a file.", "parameters": map[string]any{"type": "object"}}}},
		})
		return string(b)
	}
	tests := []struct {
		expect string
		ok     bool
		why    string
	}{
		{"expect user fix the bug", true, ""},
		{"expect user delete everything", false, `expected the last user message to contain "delete everything", it is "please fix the bug"`},
		{"expect system Reasonix", true, ""},
		{"expect system Claude", false, `expected the first system message to contain "Claude"`},
		{"expect tool 12 lines", true, ""},
		{"expect tool 13 lines", false, `expected a tool message after the last assistant message containing "13 lines"`},
		{"expect tools read_file", true, ""},
		{"expect tools write_file", false, `expected the request to offer tool "write_file", it offers [read_file]`},
		{`expect request "stream":true`, true, ""},
		{`expect request "temperature"`, false, `expected the request body to contain "\"temperature\""`},
	}
	for _, tt := range tests {
		t.Run(tt.expect, func(t *testing.T) {
			srv, url := start(t, "# step 1\n"+tt.expect+"\ntext ok\n", Options{})
			resp := post(t, url, withTools(toolTurn))
			if tt.ok {
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("status %d", resp.StatusCode)
				}
				return
			}
			got, _ := errorBody(t, resp, http.StatusBadRequest)
			want := "scripted model: step 1: expectation failed: " + tt.why
			if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "(script line 2)") {
				t.Errorf("error = %q\nwant prefix %q", got, want)
			}
			if srv.Remaining() != 1 {
				t.Errorf("a failed expectation consumed its step")
			}
		})
	}
}

func TestExpectationNotConsumed(t *testing.T) {
	srv, url := start(t, "expect user second\ntext answer\n", Options{})
	errorBody(t, post(t, url, body(t, true, msg("user", "first"))), http.StatusBadRequest)
	if a := streamOK(t, url, body(t, true, msg("user", "second"))); a.content != "answer" {
		t.Errorf("content = %q", a.content)
	}
	if srv.Remaining() != 0 {
		t.Errorf("Remaining = %d", srv.Remaining())
	}
}

func TestExpectToolOnlyAfterLastAssistant(t *testing.T) {
	_, url := start(t, "expect tool old result\ntext x\n", Options{})
	call := func(id string) map[string]any {
		return map[string]any{"role": "assistant", "content": "", "tool_calls": []map[string]any{
			{"id": id, "type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}}}
	}
	msgs := []map[string]any{
		msg("user", "go"),
		call("c1"), {"role": "tool", "tool_call_id": "c1", "content": "old result"},
		call("c2"), {"role": "tool", "tool_call_id": "c2", "content": "new result"},
	}
	got, _ := errorBody(t, post(t, url, body(t, true, msgs...)), http.StatusBadRequest)
	if !strings.Contains(got, `expected a tool message after the last assistant message containing "old result"`) {
		t.Errorf("error = %q", got)
	}
}

// Two sessions share one server, each matching its own steps, with their
// requests interleaved in an order the script does not follow.
func TestMatchInterleaved(t *testing.T) {
	_, url := start(t, `
match alpha
text alpha one
---
match beta
text beta one
---
match alpha
text alpha two
---
match beta
text beta two
`, Options{})
	order := []struct{ prompt, want string }{
		{"beta task", "beta one"},
		{"alpha task", "alpha one"},
		{"beta task", "beta two"},
		{"alpha task", "alpha two"},
	}
	for _, o := range order {
		if a := streamOK(t, url, body(t, true, msg("user", o.prompt))); a.content != o.want {
			t.Errorf("%s: content = %q, want %q", o.prompt, a.content, o.want)
		}
	}
	resp := post(t, url, body(t, true, msg("user", "alpha task")))
	if got, _ := errorBody(t, resp, http.StatusBadRequest); !strings.HasPrefix(got, "scripted model: no scripted step left for this request (request 5)") {
		t.Errorf("error = %q", got)
	}
}

func TestMatchConcurrent(t *testing.T) {
	const n = 8
	var script strings.Builder
	for i := range n {
		fmt.Fprintf(&script, "match session-%d\ntext reply-%d\n---\n", i, i)
	}
	srv, url := start(t, script.String(), Options{})
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			req := body(t, true, msg("user", fmt.Sprintf("I am session-%d", i)))
			resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(req))
			if err != nil {
				errs <- err.Error()
				return
			}
			defer resp.Body.Close()
			frames, err := readSSE(resp.Body)
			if err != nil {
				errs <- err.Error()
				return
			}
			var content string
			for _, f := range frames {
				var c tChunk
				if f.comment || json.Unmarshal([]byte(f.data), &c) != nil {
					continue
				}
				for _, ch := range c.Choices {
					if ch.Delta.Content != nil {
						content += *ch.Delta.Content
					}
				}
			}
			if want := fmt.Sprintf("reply-%d", i); content != want {
				errs <- fmt.Sprintf("session %d got %q", i, content)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if srv.Remaining() != 0 || len(srv.Requests()) != n {
		t.Errorf("Remaining = %d, records = %d", srv.Remaining(), len(srv.Requests()))
	}
}
