package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
)

// retryPolicy is bounded exponential backoff with jitter.
type retryPolicy struct {
	max  int           // retries after the first attempt
	base time.Duration // delay before the first retry
	cap  time.Duration // longest computed delay
	// maxWait is the longest Retry-After the client will honour; a server
	// asking for more fails the request with its message instead.
	maxWait time.Duration
}

var defaultRetry = retryPolicy{max: 4, base: 500 * time.Millisecond, cap: 8 * time.Second, maxWait: 60 * time.Second}

// next decides whether attempt (0-based) is retried after f, and when.
func (p retryPolicy) next(attempt int, f *failure) (time.Duration, bool) {
	if !f.transient || attempt >= p.max {
		return 0, false
	}
	if f.retryAfter > 0 {
		if f.retryAfter > p.maxWait {
			return 0, false
		}
		return f.retryAfter, true
	}
	d := p.base << attempt
	if d > p.cap || d <= 0 {
		d = p.cap
	}
	// Equal jitter: half fixed, half random, so clients that failed
	// together do not retry together.
	half := d / 2
	if half > 0 {
		d = half + rand.N(half+1)
	}
	return d, true
}

// statusFailure turns a non-200 response into a failure: 408, 409, 429 and
// 5xx are transient; any other status fails at once with the provider's own
// message.
func (c *Client) statusFailure(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg, code := errorMessage(body)
	ae := &provider.APIError{Provider: c.name, Status: resp.StatusCode, Message: msg, Code: code}
	f := &failure{err: ae}
	switch s := resp.StatusCode; {
	case s == http.StatusRequestTimeout, s == http.StatusConflict, s == http.StatusTooManyRequests, s >= 500:
		f.transient = true
		f.retryAfter = retryAfter(resp.Header)
	}
	return f
}

// errorMessage extracts the human message, and the error code when there
// is one, from an error body in the usual shapes:
// {"error":{"message":...,"code":...}}, {"error":"..."}, {"message":...},
// or plain text.
func errorMessage(body []byte) (msg, code string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var e wireError
		if json.Unmarshal(v.Error, &e) == nil && e.Message != "" {
			code, _ = e.Code.(string)
			return e.Message, code
		}
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return s, ""
		}
		if v.Message != "" {
			return v.Message, ""
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s, ""
}

// retryAfter reads Retry-After (seconds or an HTTP date) and the
// millisecond variant some OpenAI-compatible servers send.
func retryAfter(h http.Header) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// unwrapURLError drops the *url.Error wrapper, whose message repeats the
// method and URL in every line the user sees.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// watchdog calls fire when kick has not been called for d.
type watchdog struct {
	mu sync.Mutex // guards t
	t  *time.Timer
	d  time.Duration
}

func newWatchdog(d time.Duration, fire func()) *watchdog {
	return &watchdog{t: time.AfterFunc(d, fire), d: d}
}

func (w *watchdog) kick() {
	w.mu.Lock()
	w.t.Reset(w.d)
	w.mu.Unlock()
}

func (w *watchdog) stop() {
	w.mu.Lock()
	w.t.Stop()
	w.mu.Unlock()
}

// options reads kind-specific settings with type checks.
type options map[string]any

func (o options) string(key string, errp *error) (string, bool) {
	v, ok := o[key]
	if !ok {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		*errp = errors.Join(*errp, fmt.Errorf("%s must be a string", key))
		return "", false
	}
	return s, true
}

func (o options) int(key string, errp *error) (int, bool) {
	v, ok := o[key]
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		if n == float64(int(n)) {
			return int(n), true
		}
	}
	*errp = errors.Join(*errp, fmt.Errorf("%s must be an integer", key))
	return 0, false
}

func (o options) table(key string, errp *error) (map[string]any, bool) {
	v, ok := o[key]
	if !ok {
		return nil, false
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		*errp = errors.Join(*errp, fmt.Errorf("%s must be a table", key))
		return nil, false
	}
	return m, true
}
