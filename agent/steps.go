package agent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/reasonix/reasonix/agent/provider"
)

// stepsSuffix ends the name of a session's step records,
// <id>.steps.ndjson beside its file.
const stepsSuffix = ".steps.ndjson"

// StepsPath is the file holding session id's step records.
func (st *Store) StepsPath(id string) string { return filepath.Join(st.Dir, id+stepsSuffix) }

// The kinds of a StepRecord.
const (
	StepRequest = "request"
	StepTool    = "tool"
)

// A StepRecord is one line of a session's step records: one attempt of a
// model request, or one tool call. Records are written as the steps
// happen, so `reasonix trace` and `reasonix stats` see where the time,
// the tokens and the money went, retries included, which the session
// file (one usage record per answered request) does not say.
type StepRecord struct {
	// Time is when the step began: for a request attempt, when it was
	// sent.
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	Turn int       `json:"turn"`
	// Step is the turn's model request the record belongs to (a tool
	// call's, the request that asked for it); in a child session, the
	// child's own request.
	Step int `json:"step"`
	// Task is set on the steps of a child session: the id of the task
	// call that ran it, or "planner".
	Task string `json:"task,omitempty"`

	// Model is the provider/model reference a request went to. Purpose
	// is "" for the turn's own requests, "escalation" for one sent again
	// to escalation_model, "summary" for a compaction's summary.
	Model   string `json:"model,omitempty"`
	Purpose string `json:"purpose,omitempty"`
	// Attempt numbers the attempts of one request from 1; Retry is set
	// on an attempt that failed and was sent again, with its cause
	// (provider.RetryRateLimit and the others).
	Attempt int    `json:"attempt,omitempty"`
	Retry   string `json:"retry,omitempty"`
	// Messages and Bytes are the request's size: its messages, and the
	// bytes of its messages and tool schemas as JSON.
	Messages int             `json:"messages,omitempty"`
	Bytes    int             `json:"bytes,omitempty"`
	Usage    *provider.Usage `json:"usage,omitempty"`
	// Cost is what the attempt cost at the model's price when it ran;
	// zero when it failed or the price is unknown.
	Cost float64 `json:"cost,omitempty"`
	// LatencyMs is the attempt's time from sending to its end (the
	// answer complete, or the failure); TTFTMs to the first streamed
	// piece of the answer, zero when none came.
	LatencyMs int64  `json:"latency_ms,omitempty"`
	TTFTMs    int64  `json:"ttft_ms,omitempty"`
	Finish    string `json:"finish,omitempty"`
	Error     string `json:"error,omitempty"`

	// Tool, CallID and Arguments (redacted as the session is) name a
	// tool call; ResultBytes is the size of its result as the tool
	// returned it, DurationMs its run once allowed.
	Tool        string          `json:"tool,omitempty"`
	CallID      string          `json:"call_id,omitempty"`
	Arguments   json.RawMessage `json:"arguments,omitempty"`
	ResultBytes int             `json:"result_bytes,omitempty"`
	DurationMs  int64           `json:"duration_ms,omitempty"`
	Denied      bool            `json:"denied,omitempty"`
}

// stepWriter appends step records to one file, each with a single write
// as it happens. It never fails a run: the first record it cannot write
// is logged, later ones are dropped quietly.
type stepWriter struct {
	mu     sync.Mutex // guards the fields below
	path   string
	f      *os.File
	warned bool
	closed bool
}

// stepLog is what a session records its steps through; a child session
// shares its parent's writer under its task's label and its parent's
// turn. A nil stepLog records nothing (a session kept in memory only).
type stepLog struct {
	w    *stepWriter
	task string
	turn int // the parent's turn, for a child session
}

func newStepLog(path string) *stepLog { return &stepLog{w: &stepWriter{path: path}} }

// sub is the log of a child session run by task in the parent's turn.
func (l *stepLog) sub(task string, turn int) *stepLog {
	if l == nil {
		return nil
	}
	return &stepLog{w: l.w, task: task, turn: turn}
}

func (l *stepLog) record(r StepRecord) {
	if l == nil {
		return
	}
	if l.task != "" {
		r.Task, r.Turn = l.task, l.turn
	}
	b, err := json.Marshal(r)
	if err == nil {
		b = append(b, '\n')
	}
	w := l.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if err == nil && w.f == nil {
		w.f, err = os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	}
	if err == nil {
		_, err = w.f.Write(b)
	}
	if err != nil && !w.warned {
		w.warned = true
		slog.Warn("step records: a record could not be written; the run goes on", "path", w.path, "err", err)
	}
}

// close ends the log; with remove, its file goes too (the session's file
// was removed: a session that never got an answer).
func (l *stepLog) close(remove bool) {
	if l == nil {
		return
	}
	w := l.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	w.closed = true
	if remove {
		os.Remove(w.path)
	}
}

// requestSteps records the attempts of one model request. Its observe
// sees every chunk the provider streams: a retry chunk ends an attempt,
// the first piece of an answer times the attempt's first token.
type requestSteps struct {
	log   *stepLog
	base  StepRecord
	price func(provider.Usage) float64
	start time.Time
	first time.Time
}

// requestSteps starts the records of a request to model m.
func (t *turn) requestSteps(m modelInfo, purpose string, req provider.Request, bytes int) *requestSteps {
	return &requestSteps{
		log: t.s.steps,
		base: StepRecord{Kind: StepRequest, Turn: t.n, Step: t.steps, Model: m.ref, Purpose: purpose,
			Attempt: 1, Messages: len(req.Messages), Bytes: bytes},
		price: func(u provider.Usage) float64 {
			if m.price == nil {
				return 0
			}
			return m.price.Cost(u.CacheHitTokens, u.CacheMissTokens, u.CompletionTokens)
		},
		start: time.Now(),
	}
}

// wrap returns emit, observing each chunk first.
func (r *requestSteps) wrap(emit func(provider.Chunk)) func(provider.Chunk) {
	return func(c provider.Chunk) {
		r.observe(c)
		emit(c)
	}
}

func (r *requestSteps) observe(c provider.Chunk) {
	now := time.Now()
	if c.Kind != provider.ChunkRetry {
		if r.first.IsZero() {
			r.first = now
		}
		return
	}
	rec := r.attempt(now)
	rec.Retry = c.Retry.Cause
	if rec.Retry == "" {
		rec.Retry = provider.RetryTransport
	}
	rec.Error = c.Retry.Reason
	r.log.record(rec)
	// The next attempt is sent once the delay is over.
	r.base.Attempt++
	r.start = now.Add(time.Duration(c.Retry.Delay) * time.Millisecond)
	r.first = time.Time{}
}

// attempt is the record of the current attempt, ending at end.
func (r *requestSteps) attempt(end time.Time) StepRecord {
	rec := r.base
	rec.Time = r.start.UTC()
	rec.LatencyMs = max(end.Sub(r.start).Milliseconds(), 0)
	if !r.first.IsZero() {
		rec.TTFTMs = max(r.first.Sub(r.start).Milliseconds(), 0)
	}
	return rec
}

// done records the last attempt, which answered resp or failed with err.
func (r *requestSteps) done(resp provider.Response, err error) {
	rec := r.attempt(time.Now())
	if err != nil {
		rec.Error = err.Error()
	} else {
		u := resp.Usage
		rec.Usage, rec.Cost, rec.Finish = &u, r.price(u), resp.FinishReason
	}
	r.log.record(rec)
}

// toolStep records a tool call that ran (or was refused or answered
// without running).
func (t *turn) toolStep(start time.Time, ev *ToolEvent) {
	if t.s.steps == nil {
		return
	}
	args := ev.Arguments
	if r := t.s.redact; r != nil && len(r.secrets) > 0 {
		args = rawOrString(r.apply(string(args)))
	}
	rec := StepRecord{Time: start.UTC(), Kind: StepTool, Turn: t.n, Step: t.steps,
		Tool: ev.Name, CallID: ev.CallID, Arguments: args, ResultBytes: len(ev.Result),
		DurationMs: ev.DurationMs, Denied: ev.Denied}
	if ev.IsError {
		rec.Error = firstLine(ev.Result, 200)
		if rec.Error == "" {
			rec.Error = "error"
		}
	}
	t.s.steps.record(rec)
}

// firstLine is the first line of s, at most n bytes of it.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// ReadSteps reads session id's step records, oldest first. A session
// without any (one from before they existed) has none: nil, no error.
// Lines that are not records (a line torn by a killed process) are
// skipped.
func (st *Store) ReadSteps(id string) ([]StepRecord, error) {
	f, err := os.Open(st.StepsPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("step records of %s: %w", id, err)
	}
	defer f.Close()
	var out []StepRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var r StepRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Kind != "" {
			out = append(out, r)
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("step records of %s: %w", id, err)
	}
	return out, nil
}
