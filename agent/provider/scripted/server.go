package scripted

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Options configure a Server. The zero value is a server that accepts any
// key and any model.
type Options struct {
	// APIKey, when set, must be presented as "Authorization: Bearer <key>";
	// other requests get DeepSeek's 401. When empty any key, or none, is
	// accepted.
	APIKey string
	// Model, when set, is the only model name accepted (others get
	// DeepSeek's 400 "Model Not Exist") and is listed by GET /models.
	Model string
	// NoReasoningCheck turns off the DeepSeek thinking-mode rule that an
	// assistant message with tool calls must carry back the
	// reasoning_content produced with them.
	NoReasoningCheck bool
	// NoBodies keeps request bodies and messages out of the record of
	// requests, so a long benchmark's server does not hold every prompt
	// it was sent.
	NoBodies bool
	// ContextWindow, when positive, is the model's context window in
	// tokens: a request whose prompt counts more tokens is refused with
	// HTTP 400 and the body OpenAI sends (code context_length_exceeded,
	// a message naming the maximum context length, which is also how
	// DeepSeek words it), before any step is consumed.
	ContextWindow int
	// Fallback, when set, answers every request the script has no step
	// left for, as plain text, instead of the 400 that says the script is
	// exhausted. A demo that outlives its script keeps answering.
	Fallback string
	// Logf, when set, receives one line per request. It is called from
	// the server's handler goroutines, so it must be safe for concurrent use.
	Logf func(format string, args ...any)
}

// Server answers chat completion requests from a Script. It is an
// http.Handler; Start also runs it on its own loopback listener.
type Server struct {
	script *Script
	opts   Options

	mu sync.Mutex // guards every field below
	// Script progress.
	consumed  []bool // by step index
	nConsumed int
	// The record of requests, and what earlier requests leave behind.
	records   []Request
	reasoning map[string]string // tool call id → the reasoning produced with it
	cache     prefixCache
	models    map[string]bool // model names seen in requests
	// Lifecycle of the listener started by Start or Listen.
	httpSrv *http.Server
	url     string
	served  chan struct{} // closed when the Serve goroutine returns
	cancel  context.CancelFunc
}

// NewServer returns a server that answers from script.
func NewServer(script *Script, opts Options) *Server {
	return &Server{
		script:    script,
		opts:      opts,
		consumed:  make([]bool, script.Len()),
		reasoning: make(map[string]string),
		models:    make(map[string]bool),
	}
}

// Start serves on a new listener on 127.0.0.1 at a free port and returns the
// base URL, such as "http://127.0.0.1:43121"; a client posts to
// URL + "/chat/completions".
func (s *Server) Start() (string, error) { return s.Listen("127.0.0.1:0") }

// Listen serves on addr (host:port) and returns the base URL.
func (s *Server) Listen(addr string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.httpSrv != nil {
		return "", errors.New("scripted: server already started")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("scripted: %w", err)
	}
	// Cancelling ctx on Close stops handlers that are waiting out a delay.
	ctx, cancel := context.WithCancel(context.Background())
	s.httpSrv = &http.Server{
		Handler:           s,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 10 * time.Second,
	}
	s.url = "http://" + ln.Addr().String()
	s.served = make(chan struct{})
	s.cancel = cancel
	go func(srv *http.Server, done chan struct{}) {
		defer close(done)
		srv.Serve(ln) // returns http.ErrServerClosed after Close
	}(s.httpSrv, s.served)
	return s.url, nil
}

// URL is the base URL the server listens on, or "" before Start.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Close stops the listener, closes every connection and waits for the
// server goroutine to end. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	srv, done, cancel := s.httpSrv, s.served, s.cancel
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	cancel()
	err := srv.Close()
	<-done
	return err
}

// Requests returns the record of every request so far, oldest first. The
// records share their headers and messages with the server: read, do not
// modify.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.records)
}

// Remaining is the number of steps not yet consumed.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.consumed) - s.nConsumed
}

// ServeHTTP routes a request. Paths are accepted with or without the "/v1"
// prefix, since clients differ on whether the base URL includes it. The
// /_scripted/ endpoints, for tests to inspect the server, need no key.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/chat/completions", "/v1/chat/completions":
		s.serveChat(w, r)
	case "/models", "/v1/models":
		s.serveModels(w, r)
	case "/_scripted/requests":
		writeJSON(w, http.StatusOK, s.Requests())
	case "/_scripted/status":
		s.mu.Lock()
		st := map[string]int{
			"steps":     len(s.consumed),
			"consumed":  s.nConsumed,
			"remaining": len(s.consumed) - s.nConsumed,
			"requests":  len(s.records),
		}
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, st)
	default:
		rec := newRecord(r)
		s.answerError(w, &rec, http.StatusNotFound, "invalid_request_error",
			fmt.Sprintf("scripted model: no such endpoint: %s %s", r.Method, r.URL.Path))
	}
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	rec := newRecord(r)
	if r.Method != http.MethodGet {
		s.answerError(w, &rec, http.StatusMethodNotAllowed, "invalid_request_error", "method not allowed")
		return
	}
	if !s.authorized(r) {
		s.answerAuthError(w, &rec, r)
		return
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, name := range s.modelNames() {
		list.Data = append(list.Data, model{ID: name, Object: "model", OwnedBy: "scripted"})
	}
	rec.Status = http.StatusOK
	s.addRecord(rec)
	writeJSON(w, http.StatusOK, list)
}

// modelNames lists the configured model, or else every model seen so far,
// or else "scripted".
func (s *Server) modelNames() []string {
	if s.opts.Model != "" {
		return []string{s.opts.Model}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for name := range s.models {
		names = append(names, name)
	}
	if len(names) == 0 {
		return []string{"scripted"}
	}
	sort.Strings(names)
	return names
}

func (s *Server) authorized(r *http.Request) bool {
	if s.opts.APIKey == "" {
		return true
	}
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(key), []byte(s.opts.APIKey)) == 1
}

// authMessage is DeepSeek's message for a bad key, showing only the last
// four characters of the key the client presented.
func authMessage(r *http.Request) string {
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if len(key) > 4 {
		key = key[len(key)-4:]
	} else {
		key = ""
	}
	return fmt.Sprintf("Authentication Fails, Your api key: ****%s is invalid", key)
}

func (s *Server) answerAuthError(w http.ResponseWriter, rec *Request, r *http.Request) {
	s.answerError(w, rec, http.StatusUnauthorized, "authentication_error", authMessage(r))
}

// answerError records rec as failed and writes an OpenAI-style error.
func (s *Server) answerError(w http.ResponseWriter, rec *Request, status int, typ, msg string) {
	rec.Status, rec.Error = status, msg
	s.addRecord(*rec)
	writeError(w, status, apiError{Message: msg, Type: typ}, 0)
}

// addRecord appends rec to the record and logs it.
func (s *Server) addRecord(rec Request) {
	s.mu.Lock()
	rec.Seq = len(s.records) + 1
	s.records = append(s.records, rec)
	s.mu.Unlock()
	s.logRecord(rec)
}

func (s *Server) logRecord(rec Request) {
	if s.opts.Logf == nil {
		return
	}
	line := fmt.Sprintf("#%d %s %s → %d", rec.Seq, rec.Method, rec.Path, rec.Status)
	if rec.Step > 0 {
		line += fmt.Sprintf(" step %d", rec.Step)
	}
	if rec.Fault != "" {
		line += " fault " + rec.Fault
	}
	if rec.Usage != nil {
		line += fmt.Sprintf(" (prompt %d, cache hit %d, completion %d)",
			rec.Usage.PromptTokens, rec.Usage.PromptCacheHitTokens, rec.Usage.CompletionTokens)
	}
	if rec.Error != "" {
		line += ": " + rec.Error
	}
	s.opts.Logf("%s", line)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// writeError writes {"error": e} with status, and Retry-After when
// retryAfter > 0.
func writeError(w http.ResponseWriter, status int, e apiError, retryAfter int) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(retryAfter))
	}
	writeJSON(w, status, struct {
		Error apiError `json:"error"`
	}{e})
}
