package scripted

import (
	"net/http"
	"strings"
	"testing"
)

// TestCacheOverHTTP checks the usage a client sees across requests that
// grow the way an agent's conversation does.
func TestCacheOverHTTP(t *testing.T) {
	_, url := start(t, "text one\n---\ntext two\n---\ntext three\n---\ntext four\n", Options{})
	system := msg("system", strings.Repeat("You are a careful coding agent. ", 40))
	turn1 := []map[string]any{system, msg("user", "first question")}
	turn2 := append(append([]map[string]any{}, turn1...),
		map[string]any{"role": "assistant", "content": "one"},
		msg("user", "second question"))

	u1 := streamOK(t, url, body(t, true, turn1...)).usage
	if u1.PromptTokens < 2*cacheBlock || u1.PromptCacheHitTokens != 0 {
		t.Fatalf("first request usage = %+v, want a long prompt and no hits", u1)
	}

	// The second request extends the first byte for byte, so every whole
	// block of the first prompt is a hit.
	u2 := streamOK(t, url, body(t, true, turn2...)).usage
	if want := u1.PromptTokens / cacheBlock * cacheBlock; u2.PromptCacheHitTokens != want {
		t.Errorf("second request hits = %d, want %d (first prompt %d tokens)", u2.PromptCacheHitTokens, want, u1.PromptTokens)
	}
	if u2.PromptCacheHitTokens+u2.PromptCacheMissTokens != u2.PromptTokens || u2.PromptTokensDetails.CachedTokens != u2.PromptCacheHitTokens {
		t.Errorf("second request usage inconsistent: %+v", u2)
	}

	// Changing the system prompt's tail leaves only the blocks before it.
	changed := append([]map[string]any{}, turn2...)
	changed[0] = msg("system", strings.Repeat("You are a careful coding agent. ", 39)+"Be brief.")
	u3 := streamOK(t, url, body(t, true, changed...)).usage
	if u3.PromptCacheHitTokens >= u2.PromptCacheHitTokens || u3.PromptCacheHitTokens%cacheBlock != 0 {
		t.Errorf("changed request hits = %d, want fewer than %d, in whole blocks", u3.PromptCacheHitTokens, u2.PromptCacheHitTokens)
	}

	// Repeating a request exactly hits all of its whole blocks, never more
	// than the prompt.
	u4 := streamOK(t, url, body(t, true, turn1...)).usage
	if u4.PromptCacheHitTokens != u1.PromptTokens/cacheBlock*cacheBlock || u4.PromptCacheHitTokens > u4.PromptTokens {
		t.Errorf("repeated request usage = %+v", u4)
	}
}

// The prompt's token count depends on what the request means, not on how
// its JSON is spelled.
func TestPromptTokensIgnoreJSONSpelling(t *testing.T) {
	_, url := start(t, "text a\n---\ntext b\n", Options{})
	compact := `{"model":"m","stream":true,"messages":[{"role":"user","content":"héllo there"}]}`
	spaced := `{ "stream": true, "messages": [ { "content": [{"type":"text","text":"h\u00e9llo "},{"type":"text","text":"there"}], "role": "user" } ], "model": "m" }`
	u1 := streamOK(t, url, compact).usage
	u2 := streamOK(t, url, spaced).usage
	if u1.PromptTokens != u2.PromptTokens {
		t.Errorf("prompt tokens %d and %d for the same request", u1.PromptTokens, u2.PromptTokens)
	}
}

func TestReasoningCheck(t *testing.T) {
	const script = `
reasoning I need to list the files first.
call list_files {"dir": "."}
---
expect tool main.go
text There is one file.
`
	assistant := func(reasoning *string) map[string]any {
		m := map[string]any{"role": "assistant", "content": "", "tool_calls": []map[string]any{
			{"id": "call_1_0", "type": "function", "function": map[string]any{"name": "list_files", "arguments": `{"dir": "."}`}}}}
		if reasoning != nil {
			m["reasoning_content"] = *reasoning
		}
		return m
	}
	followUp := func(reasoning *string) string {
		return body(t, true,
			msg("user", "what files are there?"),
			assistant(reasoning),
			map[string]any{"role": "tool", "tool_call_id": "call_1_0", "content": "main.go"})
	}
	right, wrong := "I need to list the files first.", "something else"

	srv, url := start(t, script, Options{})
	a := streamOK(t, url, body(t, true, msg("user", "what files are there?")))
	if len(a.calls) != 1 || a.calls[0].id != "call_1_0" || a.reasoning != right {
		t.Fatalf("first turn = %+v", a)
	}
	for _, r := range []*string{nil, &wrong} {
		got, typ := errorBody(t, post(t, url, followUp(r)), http.StatusBadRequest)
		if got != reasoningMessage || typ != "invalid_request_error" {
			t.Errorf("error = %q (%s)", got, typ)
		}
	}
	if srv.Remaining() != 1 {
		t.Fatalf("a rejected request consumed a step")
	}
	if a := streamOK(t, url, followUp(&right)); a.content != "There is one file." {
		t.Errorf("content = %q", a.content)
	}

	// With the check off, dropping the reasoning is accepted.
	_, url = start(t, script, Options{NoReasoningCheck: true})
	streamOK(t, url, body(t, true, msg("user", "what files are there?")))
	if a := streamOK(t, url, followUp(nil)); a.content != "There is one file." {
		t.Errorf("with NoReasoningCheck: content = %q", a.content)
	}
}

// parseRequest must reject bad bodies with an error, never a panic, and
// whatever it accepts must render and tokenize.
func FuzzParseRequest(f *testing.F) {
	f.Add(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	f.Add(`{"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":{"a":[1]}}}],"messages":[{"role":"user","content":[{"type":"text","text":"x"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"r"}]}`)
	f.Add(`{"model":"m","messages":[{"role":"tool"}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		req, err := parseRequest([]byte(s))
		if err != nil {
			return
		}
		toks := tokenize(renderPrompt(req))
		var c prefixCache
		if hit := c.hit(blockHashes(toks)); hit != 0 {
			t.Errorf("first prompt hit %d", hit)
		}
	})
}
