package store

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

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

// A StepWriter appends step records to one file, each with a single write
// as it happens. It never fails a run: the first record it cannot write
// is logged, later ones are dropped quietly.
type StepWriter struct {
	mu     sync.Mutex // guards the fields below
	path   string
	f      *os.File
	warned bool
	closed bool
}

// NewStepWriter returns a writer of the step records at path, a
// session's StepsPath. The file is created with the first record.
func NewStepWriter(path string) *StepWriter { return &StepWriter{path: path} }

// Write appends r.
func (w *StepWriter) Write(r StepRecord) {
	b, err := json.Marshal(r)
	if err == nil {
		b = append(b, '\n')
	}
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

// Close ends the records; with remove, their file goes too (the
// session's file was removed: a session that never got an answer).
func (w *StepWriter) Close(remove bool) {
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
