package scripted

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxBody bounds a request body so a runaway client fails cleanly instead
// of exhausting memory.
const maxBody = 64 << 20

// reasoningMessage is DeepSeek's answer when a thinking-mode tool-call turn
// comes back without its reasoning_content.
const reasoningMessage = "The reasoning_content in the thinking mode must be passed back to the API."

// reply is what the server decided to answer a chat request with: an error
// (status != 0) or a step to stream.
type reply struct {
	status     int
	err        apiError
	retryAfter int

	step    *step
	id      string // chat completion id
	model   string // the model the client asked for, echoed back
	created int64
	usage   Usage
}

// serveChat handles POST /chat/completions.
func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	rec := newRecord(r)
	if r.Method != http.MethodPost {
		s.answerError(w, &rec, http.StatusMethodNotAllowed, "invalid_request_error", "method not allowed; use POST")
		return
	}
	if !s.authorized(r) {
		s.answerAuthError(w, &rec, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	rec.Body = string(body)
	if err != nil {
		status := http.StatusBadRequest
		if errors.As(err, new(*http.MaxBytesError)) {
			status = http.StatusRequestEntityTooLarge
		}
		s.answerError(w, &rec, status, "invalid_request_error", "reading the request body: "+err.Error())
		return
	}
	req, err := parseRequest(body)
	if err != nil {
		s.answerError(w, &rec, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	rec.Model, rec.Stream, rec.Messages = req.Model, req.Stream, req.Messages
	if s.opts.NoBodies {
		rec.Body, rec.Messages = "", nil
	}
	rec.Temperature, rec.MaxTokens, rec.ReasoningEffort = req.Temperature, req.MaxTokens, req.ReasoningEffort
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Function.Name)
	}
	if s.opts.Model != "" && req.Model != s.opts.Model {
		s.answerError(w, &rec, http.StatusBadRequest, "invalid_request_error", "Model Not Exist")
		return
	}

	// Tokenize outside the lock: it is the only work proportional to the
	// prompt's size.
	toks := tokenize(renderPrompt(req))
	rep := s.decide(&rec, req, body, authMessage(r), len(toks), blockHashes(toks))
	s.logRecord(rec)
	if rep.status != 0 {
		writeError(w, rep.status, rep.err, rep.retryAfter)
		return
	}
	if req.Stream {
		err = s.stream(r.Context(), w, &rep)
	} else {
		err = s.complete(r.Context(), w, &rep)
	}
	if err != nil {
		s.mu.Lock()
		s.records[rec.Seq-1].Error = "response not delivered: " + err.Error()
		s.mu.Unlock()
		if s.opts.Logf != nil {
			s.opts.Logf("#%d response not delivered: %v", rec.Seq, err)
		}
	}
}

// decide picks the answer to a valid chat request, consumes the step that
// gives it, and records the request. It holds the lock throughout so that
// concurrent requests each see a consistent script.
func (s *Server) decide(rec *Request, req *chatRequest, body []byte, authMsg string, promptTokens int, hashes []blockHash) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Seq = len(s.records) + 1
	defer func() { s.records = append(s.records, *rec) }()
	s.models[req.Model] = true

	fail := func(status int, msg string) reply {
		rec.Status, rec.Error = status, msg
		return reply{status: status, err: apiError{Message: msg, Type: "invalid_request_error"}}
	}
	if w := s.opts.ContextWindow; w > 0 && promptTokens > w {
		rec.Status = http.StatusBadRequest
		rec.Error = contextLengthMessage(w, promptTokens, req.MaxTokens)
		return reply{status: http.StatusBadRequest, err: apiError{
			Message: rec.Error, Type: "invalid_request_error",
			Param: new("messages"), Code: new("context_length_exceeded"),
		}}
	}
	if !s.opts.NoReasoningCheck {
		if detail := s.missingReasoning(req); detail != "" {
			rep := fail(http.StatusBadRequest, reasoningMessage)
			rec.Error += " (" + detail + ")"
			return rep
		}
	}
	st, rep, ok := s.take(req, rec, body, authMsg)
	if !ok {
		rec.Status, rec.Error = rep.status, rep.err.Message
		return rep
	}

	hit := s.cache.hit(hashes)
	completionToks, reasoningToks := st.completionTokens()
	usage := Usage{
		PromptTokens:            promptTokens,
		CompletionTokens:        completionToks,
		TotalTokens:             promptTokens + completionToks,
		PromptCacheHitTokens:    hit,
		PromptCacheMissTokens:   promptTokens - hit,
		PromptTokensDetails:     PromptTokensDetails{CachedTokens: hit},
		CompletionTokensDetails: CompletionTokensDetails{ReasoningTokens: reasoningToks},
	}
	if reasoning := st.reasoningText(); reasoning != "" {
		for n := range st.calls {
			s.reasoning[st.callID(n)] = reasoning
		}
	}
	rec.Status, rec.Usage = http.StatusOK, &usage
	return reply{
		step:    st,
		id:      fmt.Sprintf("chatcmpl-scripted-%d", rec.Seq),
		model:   req.Model,
		created: time.Now().Unix(),
		usage:   usage,
	}
}

// take consumes the step that answers req: the first unconsumed step that
// applies, or, when none is left, the fallback answer if the server has
// one. Without a step it returns the error reply instead.
func (s *Server) take(req *chatRequest, rec *Request, body []byte, authMsg string) (*step, reply, bool) {
	fail := func(status int, msg string) (*step, reply, bool) {
		return nil, reply{status: status, err: apiError{Message: msg, Type: "invalid_request_error"}}, false
	}
	i := s.nextStep(req)
	if i < 0 {
		if s.opts.Fallback != "" {
			return &step{text: []string{s.opts.Fallback}}, reply{}, true
		}
		msg := fmt.Sprintf("scripted model: no scripted step left for this request (request %d)", rec.Seq)
		if left := len(s.consumed) - s.nConsumed; left > 0 {
			msg += fmt.Sprintf("; %d unconsumed steps remain but none matches its last user message", left)
		}
		return fail(http.StatusBadRequest, msg)
	}
	st := &s.script.steps[i]
	for _, e := range st.expects {
		if why := e.check(req, body); why != "" {
			return fail(http.StatusBadRequest, fmt.Sprintf("scripted model: step %d: expectation failed: %s (script line %d)", st.num, why, e.line))
		}
	}
	s.consumed[i] = true
	s.nConsumed++
	rec.Step, rec.Fault = st.num, st.fault.String()

	if st.fault.kind == faultStatus {
		e := faultError(st.fault, authMsg)
		return nil, reply{status: st.fault.status, err: e, retryAfter: st.fault.retryAfter}, false
	}
	return st, reply{}, true
}

// nextStep is the index of the first unconsumed step that applies to req,
// or -1.
func (s *Server) nextStep(req *chatRequest) int {
	for i := range s.script.steps {
		if !s.consumed[i] && s.script.steps[i].applies(req) {
			return i
		}
	}
	return -1
}

// missingReasoning applies DeepSeek's thinking-mode rule: an assistant
// message carrying tool calls that this server produced together with
// reasoning must send that reasoning back as reasoning_content, in every
// later request. It explains the first violation, or returns "".
func (s *Server) missingReasoning(req *chatRequest) string {
	for i, m := range req.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, tc := range m.ToolCalls {
			want, ok := s.reasoning[tc.ID]
			if !ok {
				continue
			}
			if m.ReasoningContent == nil {
				return fmt.Sprintf("messages[%d] with tool call %s has no reasoning_content", i, tc.ID)
			}
			if *m.ReasoningContent != want {
				return fmt.Sprintf("messages[%d] with tool call %s has reasoning_content %s, but the model produced %s",
					i, tc.ID, excerpt(*m.ReasoningContent), excerpt(want))
			}
			break // one recognised call identifies the message
		}
	}
	return ""
}

// contextLengthMessage is what OpenAI and DeepSeek answer for a prompt
// longer than the model's context window.
func contextLengthMessage(window, prompt int, maxTokens *int) string {
	completion := 0
	if maxTokens != nil {
		completion = *maxTokens
	}
	return fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
		window, prompt+completion, prompt, completion)
}

// faultError is the error body of a "fault <status>" step: the script's
// message, or what DeepSeek says for that status.
func faultError(f fault, authMsg string) apiError {
	typ, msg := "invalid_request_error", http.StatusText(f.status)
	switch {
	case f.status == 401:
		typ, msg = "authentication_error", authMsg
	case f.status == 402:
		msg = "Insufficient Balance"
	case f.status == 422:
		msg = "Invalid Parameters"
	case f.status == 429:
		typ, msg = "rate_limit_error", "Rate Limit Reached"
	case f.status == 503:
		typ, msg = "server_error", "Server Overloaded"
	case f.status >= 500:
		typ, msg = "server_error", "Server Error"
	}
	if f.message != "" {
		msg = f.message
	}
	return apiError{Message: msg, Type: typ}
}
