// Package provider defines how Reasonix talks to a model: the message types
// of a chat, the streaming Provider interface, and a registry of provider
// kinds. Concrete kinds (such as the OpenAI-compatible one in provider/openai)
// register themselves from init, so the core never switches on a vendor.
package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Role is the author of a message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a chat. It is also the unit persisted in a session
// file, so its JSON form is part of the on-disk format.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// Reasoning is the model's chain of thought for an assistant message.
	// Whether it is sent back to the model is the provider's decision.
	Reasoning  string     `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Name is the tool's name on a tool result.
	Name string `json:"name,omitempty"`
	// Digest marks the assistant message a compaction wrote in place of
	// the work it folded. It is the session's bookkeeping: providers
	// send a digest as any other assistant message.
	Digest bool `json:"digest,omitempty"`
}

// ToolCall is one complete call the model asked for.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON text exactly as the model produced it; it may be
	// invalid, and the agent reports that back to the model.
	Arguments string `json:"arguments"`
	// Oversize, when positive, says the provider stopped holding the
	// call's arguments once they had reached this many bytes, past
	// MaxArgumentBytes or MaxResponseArgumentBytes. Arguments is then
	// "{}", so the log stays valid to send, and the call is refused
	// rather than run. It is not stored: the call's result says it.
	Oversize int `json:"-"`
}

// Limits on the tool calls of one response. A model's output is bounded
// by its output limit — the largest are about 128K tokens, some half a
// megabyte of text — so an honest response stays far below them; a
// hostile or broken endpoint can stream arguments without end, and every
// byte held is held again by the log, the session file and the next
// request. A provider therefore stops reading a response at the call
// whose arguments pass either limit, and marks that call Oversize.
const (
	// MaxArgumentBytes bounds the JSON arguments of one call: 4 MiB is
	// eight times what the most generous output limit lets a model
	// write in one response, so write_file of any file a model can
	// produce works, while a runaway argument is cut before it costs
	// more than a few MiB of memory.
	MaxArgumentBytes = 4 << 20
	// MaxResponseArgumentBytes bounds the arguments of all the calls of
	// one response together, which holds memory to a few times
	// MaxArgumentBytes however many calls a response makes.
	MaxResponseArgumentBytes = 4 * MaxArgumentBytes
)

// ToolSchema describes a tool to the model.
type ToolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat completion request.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolSchema
	// Temperature is omitted from the wire when nil.
	Temperature *float64
	MaxTokens   int
	// ReasoningEffort asks a reasoning model to think less or more
	// (low, medium, high); omitted from the wire when empty. It is a
	// parameter of the request, outside the messages and tools, so
	// changing it leaves the cached prefix as it was.
	ReasoningEffort string
}

// Usage is the token accounting of one response.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CacheHitTokens and CacheMissTokens split PromptTokens by the provider's
	// prefix cache. Providers that report only a hit count get the miss
	// count derived from PromptTokens.
	CacheHitTokens  int `json:"cache_hit_tokens"`
	CacheMissTokens int `json:"cache_miss_tokens"`
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.PromptTokens += u2.PromptTokens
	u.CompletionTokens += u2.CompletionTokens
	u.CacheHitTokens += u2.CacheHitTokens
	u.CacheMissTokens += u2.CacheMissTokens
	u.ReasoningTokens += u2.ReasoningTokens
}

// Total is prompt plus completion tokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// HitRatio is the share of prompt tokens served from the provider's cache,
// in [0, 1]; zero when nothing was sent.
func (u Usage) HitRatio() float64 {
	n := u.CacheHitTokens + u.CacheMissTokens
	if n == 0 {
		return 0
	}
	return float64(u.CacheHitTokens) / float64(n)
}

// ChunkKind says what a streamed Chunk carries.
type ChunkKind int

const (
	// ChunkText is a piece of the visible answer.
	ChunkText ChunkKind = iota
	// ChunkReasoning is a piece of the model's reasoning.
	ChunkReasoning
	// ChunkToolCall is one whole tool call, emitted once its arguments are
	// complete.
	ChunkToolCall
	// ChunkRetry reports that the request failed transiently and is about
	// to be sent again. Anything streamed before it is void.
	ChunkRetry
)

// Chunk is one streamed event of a response.
type Chunk struct {
	Kind     ChunkKind
	Text     string
	ToolCall *ToolCall
	Retry    *RetryInfo
}

// RetryInfo describes a retry about to happen.
type RetryInfo struct {
	Attempt int   // 1 for the first retry
	Delay   int64 // milliseconds until the retry
	Reason  string
	// Cause classes the failure for accounting: RetryRateLimit,
	// RetryServer, RetryTimeout, RetryTransport, or the HTTP status of
	// another transient one ("409").
	Cause string
}

// The causes of a retry (RetryInfo.Cause).
const (
	RetryRateLimit = "429"
	RetryServer    = "5xx"
	RetryTimeout   = "timeout"
	RetryTransport = "transport"
)

// Response is the outcome of a completed stream.
type Response struct {
	// Message is the assembled assistant message: content, reasoning and
	// every tool call, in the order the model produced them.
	Message      Message
	Usage        Usage
	FinishReason string
	// Model is the model that answered, as the provider reported it.
	Model string
}

// Provider streams chat completions from one model endpoint.
type Provider interface {
	// Name is the configured instance name, e.g. "deepseek".
	Name() string
	// Stream sends req and calls emit for every chunk as it arrives, in
	// order, from the calling goroutine. It returns when the response is
	// complete, the context ends, or the request fails for good.
	Stream(ctx context.Context, req Request, emit func(Chunk)) (Response, error)
}

// Config is what a factory needs to build a provider instance.
type Config struct {
	Name    string
	BaseURL string
	Model   string
	APIKey  string
	// Options holds kind-specific settings from the config file.
	Options map[string]any
}

// Factory builds a Provider of one kind.
type Factory func(cfg Config) (Provider, error)

var (
	registryMu sync.RWMutex // guards registry
	registry   = map[string]Factory{}
)

// Register makes a provider kind available. It is meant to be called from
// init and panics on a duplicate, which is a programming error.
func Register(kind string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[kind]; dup {
		panic("provider: kind registered twice: " + kind)
	}
	registry[kind] = f
}

// Kinds lists the registered kinds, sorted.
func Kinds() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	kinds := make([]string, 0, len(registry))
	for k := range registry {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return kinds
}

// Known reports whether kind is registered.
func Known(kind string) bool {
	registryMu.RLock()
	defer registryMu.RUnlock()
	_, ok := registry[kind]
	return ok
}

// New builds a provider of the given kind.
func New(kind string, cfg Config) (Provider, error) {
	registryMu.RLock()
	f, ok := registry[kind]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown provider kind %q (known: %v)", kind, Kinds())
	}
	return f(cfg)
}
