package scripted

import (
	"net/http"
	"time"
)

// Request is the server's record of one HTTP request and how it was
// answered. GET /_scripted/requests serves the same records as JSON.
type Request struct {
	Seq    int       `json:"seq"` // 1-based, in arrival order
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Header is the request's headers with credentials redacted.
	Header http.Header `json:"header"`
	// Body is the raw request body.
	Body string `json:"body,omitempty"`

	// Parsed from the body of a chat completion request.
	Model    string    `json:"model,omitempty"`
	Stream   bool      `json:"stream,omitempty"`
	Messages []Message `json:"messages,omitempty"`
	Tools    []string  `json:"tools,omitempty"` // function names offered
	// Temperature and MaxTokens are nil when the client did not send them.
	Temperature *float64 `json:"temperature,omitempty"`
	MaxTokens   *int     `json:"max_tokens,omitempty"`
	// ReasoningEffort is the request's reasoning_effort, "" when unsent.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`

	Status int `json:"status"`
	// Step is the 1-based script step that answered, or 0 if none did.
	Step int `json:"step,omitempty"`
	// Fault is the step's fault ("429", "drop", ...), if it had one.
	Fault string `json:"fault,omitempty"`
	// Error explains an error answer, or a stream the client abandoned.
	Error string `json:"error,omitempty"`
	Usage *Usage `json:"usage,omitempty"`
}

// credentialHeaders are redacted in the record.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Api-Key", "X-Api-Key", "Cookie"}

func newRecord(r *http.Request) Request {
	h := r.Header.Clone()
	for _, name := range credentialHeaders {
		if h.Get(name) != "" {
			h.Set(name, "[redacted]")
		}
	}
	return Request{Time: time.Now(), Method: r.Method, Path: r.URL.Path, Header: h}
}
