package openai

import (
	"encoding/json"

	"github.com/reasonix/reasonix/agent/provider"
)

// The types below are the OpenAI-compatible /chat/completions wire format,
// as DeepSeek and OpenAI send and accept it.

type wireRequest struct {
	Model         string         `json:"model"`
	Messages      []wireMessage  `json:"messages"`
	Tools         []wireTool     `json:"tools,omitempty"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	// ReasoningEffort is OpenAI's reasoning_effort, which DeepSeek
	// takes too (mapping medium to high).
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireMessage struct {
	Role string `json:"role"`
	// Content is a pointer so an assistant message that only calls tools
	// sends null, which every compatible server accepts.
	Content          *string        `json:"content"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireToolSpec `json:"function"`
}

type wireToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type wireChunk struct {
	ID      string       `json:"id"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage"`
	Error   *wireError   `json:"error"`
}

type wireChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type wireDelta struct {
	Role             string  `json:"role"`
	Content          *string `json:"content"`
	ReasoningContent *string `json:"reasoning_content"`
	// Reasoning is where some compatible servers (OpenRouter, Ollama) put
	// the chain of thought instead.
	Reasoning *string        `json:"reasoning"`
	ToolCalls []wireToolCall `json:"tool_calls"`
}

type wireUsage struct {
	PromptTokens          int  `json:"prompt_tokens"`
	CompletionTokens      int  `json:"completion_tokens"`
	PromptCacheHitTokens  *int `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens *int `json:"prompt_cache_miss_tokens"`
	PromptTokensDetails   *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// usage converts the wire usage, preferring DeepSeek's explicit hit and
// miss counts and falling back to OpenAI's cached_tokens.
func (w *wireUsage) usage() provider.Usage {
	u := provider.Usage{PromptTokens: w.PromptTokens, CompletionTokens: w.CompletionTokens}
	switch {
	case w.PromptCacheHitTokens != nil:
		u.CacheHitTokens = *w.PromptCacheHitTokens
		if w.PromptCacheMissTokens != nil {
			u.CacheMissTokens = *w.PromptCacheMissTokens
		} else {
			u.CacheMissTokens = max(0, w.PromptTokens-u.CacheHitTokens)
		}
	case w.PromptTokensDetails != nil:
		u.CacheHitTokens = w.PromptTokensDetails.CachedTokens
		u.CacheMissTokens = max(0, w.PromptTokens-u.CacheHitTokens)
	default:
		u.CacheMissTokens = w.PromptTokens
	}
	if w.CompletionTokensDetails != nil {
		u.ReasoningTokens = w.CompletionTokensDetails.ReasoningTokens
	}
	return u
}

type wireError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}
