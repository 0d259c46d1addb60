package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// This file holds the wire format: the request body as a client sends it,
// and the JSON objects the server answers with. The types are declared
// here rather than borrowed from package provider so that the server sees
// exactly what went over the wire.

// chatRequest is the body of POST /chat/completions, after validation.
type chatRequest struct {
	Model       string
	Messages    []Message
	Tools       []wireTool
	Stream      bool
	Temperature *float64
	MaxTokens   *int
	// ReasoningEffort is "" when the client did not send it.
	ReasoningEffort string
}

// Message is one message of a request as the client sent it, with its
// content flattened to text.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ReasoningContent is nil when the client did not send the field.
	ReasoningContent *string    `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	Name             string     `json:"name,omitempty"`
}

// ToolCall is a tool call in OpenAI's wire shape, as sent in an assistant
// message or answered in a non-streamed response.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function part of a ToolCall.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// rawRequest is the request body before validation. Fields the server does
// not use (top_p, stop, thinking, ...) are accepted and ignored, as real
// providers do.
type rawRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		ReasoningContent *string         `json:"reasoning_content"`
		ToolCalls        []ToolCall      `json:"tool_calls"`
		ToolCallID       string          `json:"tool_call_id"`
		Name             string          `json:"name"`
	} `json:"messages"`
	Tools         []wireTool      `json:"tools"`
	Stream        bool            `json:"stream"`
	StreamOptions json.RawMessage `json:"stream_options"`
	Temperature   *float64        `json:"temperature"`
	MaxTokens     *int            `json:"max_tokens"`
	// ReasoningEffort is OpenAI's, which DeepSeek takes too.
	ReasoningEffort string `json:"reasoning_effort"`
}

// parseRequest decodes and validates a request body. Its errors are the
// client's fault and are meant for a 400 answer.
func parseRequest(body []byte) (*chatRequest, error) {
	var raw rawRequest
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("the request body is not valid JSON for a chat completion: %v", err)
	}
	if raw.Model == "" {
		return nil, errors.New("model is required")
	}
	if len(raw.Messages) == 0 {
		return nil, errors.New("messages is required and must not be empty")
	}
	req := &chatRequest{
		Model:       raw.Model,
		Tools:       raw.Tools,
		Stream:      raw.Stream,
		Temperature: raw.Temperature,
		MaxTokens:   raw.MaxTokens,

		ReasoningEffort: raw.ReasoningEffort,
	}
	for i, t := range raw.Tools {
		if t.Type != "function" {
			return nil, fmt.Errorf("tools[%d].type must be \"function\", got %q", i, t.Type)
		}
		if t.Function.Name == "" {
			return nil, fmt.Errorf("tools[%d].function.name is required", i)
		}
	}
	for i, rm := range raw.Messages {
		switch rm.Role {
		case "system", "user", "assistant", "tool":
		default:
			return nil, fmt.Errorf("messages[%d]: unknown role %q, expected one of system, user, assistant, tool", i, rm.Role)
		}
		content, err := flattenContent(rm.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d].content: %v", i, err)
		}
		for j, tc := range rm.ToolCalls {
			if rm.Role != "assistant" {
				return nil, fmt.Errorf("messages[%d]: only assistant messages may have tool_calls", i)
			}
			if tc.ID == "" || tc.Type != "function" || tc.Function.Name == "" {
				return nil, fmt.Errorf("messages[%d].tool_calls[%d] needs an id, type \"function\" and a function name", i, j)
			}
		}
		if rm.Role == "tool" && rm.ToolCallID == "" {
			return nil, fmt.Errorf("messages[%d]: a tool message needs tool_call_id", i)
		}
		req.Messages = append(req.Messages, Message{
			Role:             rm.Role,
			Content:          content,
			ReasoningContent: rm.ReasoningContent,
			ToolCalls:        rm.ToolCalls,
			ToolCallID:       rm.ToolCallID,
			Name:             rm.Name,
		})
	}
	if err := checkToolSequence(req.Messages); err != nil {
		return nil, err
	}
	return req, nil
}

// flattenContent turns a message's content (a string, null, or an array of
// text parts) into text.
func flattenContent(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case '[':
		var parts []struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", err
		}
		var b strings.Builder
		for i, p := range parts {
			if p.Type != "text" || p.Text == nil {
				return "", fmt.Errorf("part %d: only {\"type\":\"text\",\"text\":...} parts are supported, got type %q", i, p.Type)
			}
			b.WriteString(*p.Text)
		}
		return b.String(), nil
	}
	return "", errors.New("expected a string, null, or an array of text parts")
}

// checkToolSequence enforces what OpenAI and DeepSeek enforce: every tool
// message answers a call of the assistant message just before it, and every
// call is answered before the conversation moves on.
func checkToolSequence(msgs []Message) error {
	var pending []string // call ids of the last assistant message still unanswered
	inResults := false   // whether we are in the tool messages after a call
	for i, m := range msgs {
		if m.Role == "tool" {
			if !inResults {
				return fmt.Errorf("messages[%d]: Messages with role 'tool' must be a response to a preceding message with 'tool_calls'", i)
			}
			k := slices.Index(pending, m.ToolCallID)
			if k < 0 {
				return fmt.Errorf("messages[%d]: tool_call_id %q does not answer an unanswered call of the preceding assistant message", i, m.ToolCallID)
			}
			pending = slices.Delete(pending, k, k+1)
			continue
		}
		if len(pending) > 0 {
			return unanswered(pending)
		}
		inResults = false
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			inResults = true
			for _, tc := range m.ToolCalls {
				if slices.Contains(pending, tc.ID) {
					return fmt.Errorf("messages[%d]: duplicate tool call id %q", i, tc.ID)
				}
				pending = append(pending, tc.ID)
			}
		}
	}
	if len(pending) > 0 {
		return unanswered(pending)
	}
	return nil
}

func unanswered(ids []string) error {
	return fmt.Errorf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(ids, ", "))
}

// lastUser is the content of the last user message.
func (r *chatRequest) lastUser() (string, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content, true
		}
	}
	return "", false
}

// lastAssistant is the index of the last assistant message, or -1.
func (r *chatRequest) lastAssistant() int {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "assistant" {
			return i
		}
	}
	return -1
}

// Usage is the token accounting of one response, with both DeepSeek's and
// OpenAI's cache fields.
type Usage struct {
	PromptTokens            int                     `json:"prompt_tokens"`
	CompletionTokens        int                     `json:"completion_tokens"`
	TotalTokens             int                     `json:"total_tokens"`
	PromptCacheHitTokens    int                     `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens   int                     `json:"prompt_cache_miss_tokens"`
	PromptTokensDetails     PromptTokensDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails CompletionTokensDetails `json:"completion_tokens_details"`
}

// PromptTokensDetails is OpenAI's breakdown of the prompt tokens.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// CompletionTokensDetails is OpenAI's breakdown of the completion tokens.
type CompletionTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// chunk is one streamed chat.completion.chunk.
type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *Usage        `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	Logprobs     any     `json:"logprobs"` // always null
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	ToolCalls        []deltaToolCall `json:"tool_calls,omitempty"`
}

// deltaToolCall is a piece of a streamed tool call. The first piece of a
// call carries its id, type and name; later ones only index and arguments.
type deltaToolCall struct {
	Index    int           `json:"index"`
	ID       string        `json:"id,omitempty"`
	Type     string        `json:"type,omitempty"`
	Function deltaFunction `json:"function"`
}

type deltaFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// completion is a non-streamed chat.completion.
type completion struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []completionChoice `json:"choices"`
	Usage   *Usage             `json:"usage,omitempty"`
}

type completionChoice struct {
	Index        int               `json:"index"`
	Message      completionMessage `json:"message"`
	Logprobs     any               `json:"logprobs"` // always null
	FinishReason *string           `json:"finish_reason"`
}

type completionMessage struct {
	Role             string     `json:"role"`
	Content          string     `json:"content"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
}

// apiError is the "error" object of an OpenAI-style error body.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}
