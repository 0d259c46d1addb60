package scripted

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// start parses script and serves it on a loopback listener for the test.
func start(t *testing.T, script string, opts Options) (*Server, string) {
	t.Helper()
	sc, err := Parse([]byte(script))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	srv := NewServer(sc, opts)
	url, err := srv.Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, url
}

// msg builds one wire message.
func msg(role, content string) map[string]any {
	return map[string]any{"role": role, "content": content}
}

// body builds a chat completion request body.
func body(t *testing.T, stream bool, msgs ...map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"model": "deepseek-chat", "stream": stream, "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// post sends a chat completion request; headers are name, value pairs.
func post(t *testing.T, url, reqBody string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/chat/completions", strings.NewReader(reqBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// errorBody reads an OpenAI-style error answer and checks its status.
func errorBody(t *testing.T, resp *http.Response, status int) (message, typ string) {
	t.Helper()
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"error"`
	}
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, data)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	if err := json.Unmarshal(data, &e); err != nil || e.Error.Message == "" {
		t.Fatalf("not an OpenAI-style error body (%v): %s", err, data)
	}
	return e.Error.Message, e.Error.Type
}

// sseFrame is one frame of an event stream: a comment or a data line.
type sseFrame struct {
	comment bool
	data    string
}

// readSSE is a small, strict SSE reader written independently of the
// server: every frame must be a single "data: ..." or ": ..." line followed
// by a blank line. It returns the frames read before any error.
func readSSE(r io.Reader) ([]sseFrame, error) {
	br := bufio.NewReader(r)
	var frames []sseFrame
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			return frames, nil
		}
		if err == io.EOF {
			return frames, fmt.Errorf("unterminated line %q: %w", line, io.ErrUnexpectedEOF)
		}
		if err != nil {
			return frames, err
		}
		blank, err := br.ReadString('\n')
		if err != nil {
			return frames, fmt.Errorf("frame %q not followed by a blank line: %w", line, err)
		}
		if blank != "\n" {
			return frames, fmt.Errorf("frame %q followed by %q, want a blank line", line, blank)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, ": "):
			frames = append(frames, sseFrame{comment: true, data: line[2:]})
		case strings.HasPrefix(line, "data: "):
			frames = append(frames, sseFrame{data: line[len("data: "):]})
		default:
			return frames, fmt.Errorf("unexpected line %q", line)
		}
	}
}

// tChunk is a chat.completion.chunk as a client decodes it.
type tChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string  `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		Logprobs     json.RawMessage `json:"logprobs"`
		FinishReason *string         `json:"finish_reason"`
	} `json:"choices"`
	Usage *tUsage `json:"usage"`
}

type tUsage struct {
	PromptTokens          int `json:"prompt_tokens"`
	CompletionTokens      int `json:"completion_tokens"`
	TotalTokens           int `json:"total_tokens"`
	PromptCacheHitTokens  int `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens int `json:"prompt_cache_miss_tokens"`
	PromptTokensDetails   struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// tCall is a tool call assembled from its deltas.
type tCall struct {
	id, name, args string
	argChunks      int
}

// assembled is a whole streamed response, put together the way a client
// must: content by concatenation, tool calls by index.
type assembled struct {
	chunks     []tChunk
	comments   int
	reasoning  string
	content    string
	calls      []*tCall
	finish     string
	usage      *tUsage
	done       bool
	firstFrame sseFrame
}

// assemble decodes frames, failing the test on any framing or order
// violation that a real client would trip over.
func assemble(t *testing.T, frames []sseFrame) *assembled {
	t.Helper()
	a := &assembled{}
	if len(frames) > 0 {
		a.firstFrame = frames[0]
	}
	for i, f := range frames {
		if f.comment {
			a.comments++
			continue
		}
		if a.done {
			t.Fatalf("frame %d after [DONE]: %q", i, f.data)
		}
		if f.data == "[DONE]" {
			a.done = true
			continue
		}
		var c tChunk
		dec := json.NewDecoder(strings.NewReader(f.data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("frame %d is not a chunk: %v: %s", i, err, f.data)
		}
		a.chunks = append(a.chunks, c)
		if c.Usage != nil {
			a.usage = c.Usage
		}
		for _, ch := range c.Choices {
			if a.finish != "" {
				t.Fatalf("choice chunk after finish_reason: %s", f.data)
			}
			d := ch.Delta
			if d.ReasoningContent != nil {
				a.reasoning += *d.ReasoningContent
			}
			if d.Content != nil {
				a.content += *d.Content
			}
			for _, tc := range d.ToolCalls {
				if tc.Index == nil {
					t.Fatalf("tool call delta without index: %s", f.data)
				}
				for len(a.calls) <= *tc.Index {
					a.calls = append(a.calls, &tCall{})
				}
				call := a.calls[*tc.Index]
				if tc.ID != "" {
					call.id, call.name = tc.ID, tc.Function.Name
				}
				if tc.Function.Arguments != nil && *tc.Function.Arguments != "" {
					call.args += *tc.Function.Arguments
					call.argChunks++
				}
			}
			if ch.FinishReason != nil {
				a.finish = *ch.FinishReason
			}
		}
	}
	return a
}

// streamOK posts a streaming request and reads the whole stream.
func streamOK(t *testing.T, url, reqBody string) *assembled {
	t.Helper()
	resp := post(t, url, reqBody)
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, data)
	}
	frames, err := readSSE(resp.Body)
	if err != nil {
		t.Fatalf("reading stream: %v", err)
	}
	return assemble(t, frames)
}
