package provider

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// APIError is a failure the model endpoint reported, or a failure to talk to
// it at all. Its message is fit to show a user.
type APIError struct {
	Provider string
	// Status is the HTTP status, or 0 for a transport or stream failure.
	Status int
	// Message is the provider's own explanation when it gave one.
	Message string
	// Code is the provider's error code when it gave one, such as
	// "context_length_exceeded".
	Code string
	// Attempts is how many times the request was sent.
	Attempts int
	// Err is the underlying transport error, if any.
	Err error
}

func (e *APIError) Error() string {
	var s string
	switch {
	case e.Status == 401 || e.Status == 403:
		s = fmt.Sprintf("%s: authentication failed (HTTP %d)", e.Provider, e.Status)
	case e.Status != 0:
		s = fmt.Sprintf("%s: HTTP %d", e.Provider, e.Status)
	default:
		s = e.Provider
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

func (e *APIError) Unwrap() error { return e.Err }

// IsAuth reports whether err is an authentication failure from a provider.
func IsAuth(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && (ae.Status == 401 || ae.Status == 403)
}

// IsContextLength reports whether err is a provider refusing a request
// for being longer than the model's context window: HTTP 400 with the code
// context_length_exceeded (OpenAI), or a message that speaks of the
// maximum context length (DeepSeek, and OpenAI without the code).
func IsContextLength(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 400 {
		return false
	}
	return ae.Code == "context_length_exceeded" ||
		strings.Contains(strings.ToLower(ae.Message), "maximum context length")
}

// ContextLimit returns the context window a provider named when it refused
// a request as too long ("This model's maximum context length is 65536
// tokens. However, ..."), as OpenAI, DeepSeek and vLLM word it. ok is
// false when err is no such refusal or names no number.
func ContextLimit(err error) (tokens int, ok bool) {
	var ae *APIError
	if !IsContextLength(err) || !errors.As(err, &ae) {
		return 0, false
	}
	m := contextLimitRE.FindStringSubmatch(ae.Message)
	if m == nil {
		return 0, false
	}
	n, perr := strconv.Atoi(m[1])
	if perr != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

var contextLimitRE = regexp.MustCompile(`(?i)maximum context length is (\d+)`)

// ErrStreamTruncated is reported when a stream ends before the model
// finished its message.
var ErrStreamTruncated = errors.New("the response stream ended before the message was complete")
