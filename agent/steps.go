package agent

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/store"
)

// stepLog is what a session records its steps through; a child session
// shares its parent's writer under its task's label and its parent's
// turn. A nil stepLog records nothing (a session kept in memory only).
type stepLog struct {
	w    *store.StepWriter
	task string
	turn int // the parent's turn, for a child session
}

func newStepLog(path string) *stepLog { return &stepLog{w: store.NewStepWriter(path)} }

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
	l.w.Write(r)
}

// close ends the log; with remove, its file goes too (the session's file
// was removed: a session that never got an answer).
func (l *stepLog) close(remove bool) {
	if l == nil {
		return
	}
	l.w.Close(remove)
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
