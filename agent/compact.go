package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reasonix/reasonix/agent/compact"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/store"
)

// Compaction keeps a session within its model's context window. When a
// request's prompt reaches CompactRatio of ContextWindow (or the provider
// refuses a prompt as too long), the older work is folded into a digest
// written by the model, the originals are moved to the session's archive,
// and the session goes on from the compacted view. It is the one point
// where the prompt's prefix changes: the request after a compaction is a
// new prefix that every later request extends byte for byte. What is kept
// and folded is decided by package compact, which also shapes the summary
// requests; they are sent from compact_summary.go.

// Why a compaction ran.
const (
	// CompactThreshold: a prompt reached compact_ratio of the window.
	CompactThreshold = "threshold"
	// CompactOverflow: the provider refused a prompt as too long.
	CompactOverflow = "overflow"
	// CompactManual: Agent.Compact was called (the /compact command).
	CompactManual = "manual"
)

// defaultCompactRatio is [agent] compact_ratio's default.
const defaultCompactRatio = 0.8

// ErrNothingToCompact says a compaction would free nothing: the history is
// only the system message, kept messages and the tail.
var ErrNothingToCompact = compact.ErrNothingToCompact

// Summarizer is the model that writes compaction summaries when it is not
// the session's own ([agent] summary_model).
type Summarizer struct {
	Provider provider.Provider
	// Model is the model name sent in requests, ModelRef its
	// provider/model form.
	Model    string
	ModelRef string
	// Price is nil when unknown.
	Price *config.Price
	// Window is its context window in tokens; 0 when unknown.
	Window int
}

func (sm Summarizer) model() modelInfo {
	return modelInfo{name: sm.Model, ref: sm.ModelRef, price: sm.Price}
}

// summarizer is the model that writes summaries: Agent.Summarizer, or
// the session's own.
func (a *Agent) summarizer() Summarizer {
	if a.Summarizer != nil {
		return *a.Summarizer
	}
	return Summarizer{Provider: a.Provider, Model: a.Model, ModelRef: a.ModelRef, Price: a.Price, Window: a.ContextWindow}
}

func (a *Agent) compactRatio() float64 {
	if a.CompactRatio > 0 && a.CompactRatio <= 1 {
		return a.CompactRatio
	}
	return defaultCompactRatio
}

// CompactResult describes one compaction. It is also the payload of the
// EventCompaction event.
type CompactResult struct {
	// Reason is CompactThreshold, CompactOverflow or CompactManual.
	Reason string `json:"reason"`
	// Before and After estimate the prompt tokens of the session's next
	// request without and with the compaction.
	Before int `json:"before"`
	After  int `json:"after"`
	// Archived counts the messages moved to the archive; Kept the
	// messages of the new view (the system message and digest included).
	Archived int `json:"archived"`
	Kept     int `json:"kept"`
	// UserFolded counts the user's own messages among those archived:
	// the summary stands for them now (the archive keeps their words).
	UserFolded int `json:"userFolded,omitempty"`
	// Requests counts the summary requests sent; Pieces the pieces the
	// history was summarised in (1 unless it was too long for one
	// request).
	Requests int `json:"requests"`
	Pieces   int `json:"pieces"`
	// Usage and Cost are the summary requests'.
	Usage provider.Usage `json:"usage"`
	Cost  float64        `json:"cost"`
}

// Notice is the compaction in one line, as front ends show it:
// "compacted: 41k → 6.2k tokens, 38 messages archived".
func (r CompactResult) Notice() string {
	s := fmt.Sprintf("compacted: %s → %s tokens, %s archived", FormatTokens(r.Before), FormatTokens(r.After), countOf(r.Archived, "message"))
	if r.UserFolded > 0 {
		s += fmt.Sprintf(", %s of yours summarised", countOf(r.UserFolded, "message"))
	}
	if r.Pieces > 1 {
		s += fmt.Sprintf(", summarised in %d pieces", r.Pieces)
	}
	return s
}

// FormatTokens renders a token count compactly: 950, 6.2k, 41k, 1.2M.
func FormatTokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%d", n)
}

func countOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Compact compacts the session now, whatever its size: what the /compact
// command does. It must not be called while a turn of the session runs
// (it returns ErrBusy), and returns ErrNothingToCompact (wrapped) when the
// history holds nothing to fold. The session's model (the one /model
// chose) writes the summary unless summary_model names another, and its
// window sizes the compaction; without a configured window it plans as if
// the window were 128k tokens. Like a compaction inside a turn, it emits
// EventCompaction and accounts the summary requests to the session.
func (a *Agent) Compact(ctx context.Context, s *Session) (CompactResult, error) {
	if ref := s.Model(); ref != "" {
		on, err := a.onModel(ref)
		if err != nil {
			return CompactResult{}, fmt.Errorf("model %q: %w", ref, err)
		}
		a = on
	}
	t, end, err := a.begin(s, false)
	if err != nil {
		return CompactResult{}, err
	}
	defer end()
	defer t.release()
	return t.compact(ctx, CompactManual)
}

// autoCompact compacts before a request when the estimated prompt reaches
// the threshold. A history with nothing to fold is left as it is (the
// provider has the last word) until it changes.
func (t *turn) autoCompact(ctx context.Context, schemas []provider.ToolSchema) error {
	a, s := t.a, t.s
	window := t.window()
	if window <= 0 {
		return nil
	}
	if s.estimate(schemas) < int(a.compactRatio()*float64(window)) {
		return nil
	}
	s.mu.Lock()
	blocked := s.foldBlocked == len(s.messages)
	s.mu.Unlock()
	if blocked {
		return nil
	}
	_, err := t.compact(ctx, CompactThreshold)
	if errors.Is(err, ErrNothingToCompact) {
		s.mu.Lock()
		s.foldBlocked = len(s.messages)
		s.mu.Unlock()
		t.event(Event{Kind: EventNotice, Text: "the conversation is near the model's context window, and all it holds is kept: user messages, summaries and the latest work"})
		return nil
	}
	return err
}

// window is the context window the turn's model works in: the configured
// one, or the smaller one its provider named when it refused a request
// (learnWindow).
func (t *turn) window() int {
	w := t.a.ContextWindow
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	if l, ok := t.s.windows[t.a.ModelRef]; ok && w > 0 && l < w {
		w = l
	}
	return w
}

// learnWindow keeps the context window a provider named in refusing a
// request as too long, when it is smaller than the one configured, so the
// session compacts in time from now on instead of being refused again;
// the user is told once, with the setting to correct.
func (t *turn) learnWindow(err error) {
	limit, ok := provider.ContextLimit(err)
	if !ok || limit >= t.window() {
		return
	}
	t.s.mu.Lock()
	if t.s.windows == nil {
		t.s.windows = map[string]int{}
	}
	t.s.windows[t.a.ModelRef] = limit
	t.s.mu.Unlock()
	t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("%s refused a request as longer than its context window of %d tokens; context_window says %d, so this session compacts within %d from now on (set context_window = %d for this provider)",
		t.a.ModelRef, limit, t.a.ContextWindow, limit, limit)})
}

// compact folds the session's older work into a digest.
func (t *turn) compact(ctx context.Context, reason string) (CompactResult, error) {
	a, s := t.a, t.s
	res := CompactResult{Reason: reason}
	schemas := toolSchemas(s.tools)
	msgs := s.Messages()
	k := s.sizer()
	window := t.window()
	if window <= 0 {
		window = compact.DefaultPlanWindow
	}
	b := compact.NewBudgets(window, a.compactRatio(), k.Of(msgs[0])+k.Tokens(compact.SchemasBytes(schemas)))
	if reason == CompactManual {
		b.Tail = 0 // asked for: keep only the latest work
	}
	p, err := compact.NewPlan(msgs, k, b)
	if err != nil {
		return res, fmt.Errorf("compaction: %w", err)
	}
	t.preCompactHook(ctx, reason)
	res.Before = s.estimate(schemas)
	users := 0
	for _, m := range p.Dropped {
		if m.Role == provider.RoleUser {
			users++
		}
	}
	res.UserFolded = users
	summary, err := t.summarize(ctx, msgs[0], p.Fold, users > 0, schemas, b, &res)
	if err != nil {
		return res, fmt.Errorf("compaction: the summary request failed: %w", err)
	}
	digest := provider.Message{Role: provider.RoleAssistant, Content: compact.Digest(len(p.Dropped), users, summary), Digest: true}
	if s.redact != nil {
		digest = s.redact.message(digest)
	}
	view := make([]provider.Message, 0, len(p.Kept)+len(p.Tail)+2)
	view = append(view, msgs[0])
	view = append(view, p.Kept...)
	view = append(view, digest)
	view = append(view, p.Tail...)
	marks := s.compactMarks(len(msgs), p)
	if err := s.replace(view, marks.view, p.Dropped, marks.dropped, len(msgs), reason); err != nil {
		return res, fmt.Errorf("compaction: %w", err)
	}
	if a.Env != nil {
		s.nested.rebase(a.Env, view)
	}
	res.Archived, res.Kept = len(p.Dropped), len(view)
	res.After = s.estimate(schemas)
	t.event(Event{Kind: EventCompaction, Text: res.Notice(), Compaction: &res})
	return res, nil
}

// replace makes view the session's history, after moving dropped to the
// archive. n is the length of the history the view was planned from.
func (s *Session) replace(view []provider.Message, viewMarks []store.Mark, dropped []provider.Message, droppedMarks []store.Mark, n int, reason string) error {
	s.mu.Lock()
	if len(s.messages) != n {
		s.mu.Unlock()
		return errors.New("the session changed while it was being compacted")
	}
	usage, cost, turns, seq := s.usage, s.cost, s.turns, s.compactions+1
	s.mu.Unlock()
	if s.file != nil {
		block := ArchiveBlock{Seq: seq, Time: time.Now().UTC(), Messages: len(dropped), Reason: reason}
		if err := s.file.RewriteMarked(view, viewMarks, dropped, droppedMarks, block, usage, cost, turns); err != nil {
			return err
		}
	}
	s.mu.Lock()
	if s.file == nil {
		s.archived = append(s.archived, dropped...)
		s.archivedMarks = append(s.archivedMarks, droppedMarks...)
	}
	s.messages, s.marks = view, viewMarks
	s.compactions = seq
	s.sentLen = 0 // the next estimate counts the new view
	s.mu.Unlock()
	return nil
}

// planMarks are the marks of a compaction's view and of what it drops.
type planMarks struct{ view, dropped []store.Mark }

// compactMarks returns the marks of the view and the dropped messages of
// plan p, made from the first n messages. The digest is numbered as a new
// message, and belongs to the latest turn it folds: a rewind to a turn it
// covers cannot keep it (rewind.go).
func (s *Session) compactMarks(n int, p compact.Plan) planMarks {
	s.mu.Lock()
	defer s.mu.Unlock()
	markOf := func(i int) store.Mark {
		if i < len(s.marks) {
			return s.marks[i]
		}
		return store.Mark{}
	}
	var out planMarks
	digest := store.Mark{}
	for i := 1; i < p.TailAt; i++ {
		digest.Turn = max(digest.Turn, markOf(i).Turn)
	}
	s.seq++
	digest.Seq = s.seq
	out.view = append(out.view, markOf(0))
	for _, i := range p.KeptAt {
		out.view = append(out.view, markOf(i))
	}
	out.view = append(out.view, digest)
	for i := p.TailAt; i < n; i++ {
		out.view = append(out.view, markOf(i))
	}
	for _, i := range p.DroppedAt {
		out.dropped = append(out.dropped, markOf(i))
	}
	return out
}

// estimate is the prompt of the session's next request in tokens: the
// last request's reported count plus the messages appended since, or,
// after a compaction or a resume, the whole history and the tool schemas
// at the provider's tokens per byte.
func (s *Session) estimate(schemas []provider.ToolSchema) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.sizerLocked()
	if s.sentLen > 0 && s.sentLen <= len(s.messages) {
		return s.sentTokens + k.OfAll(s.messages[s.sentLen:])
	}
	return k.Tokens(compact.MessagesBytes(s.messages) + compact.SchemasBytes(schemas))
}

// sent records a request of the first n messages that counted tokens
// prompt tokens and bytes bytes.
func (s *Session) sent(n, tokens, bytes int) {
	s.mu.Lock()
	s.sentLen, s.sentTokens = n, tokens
	s.mu.Unlock()
	s.calibrate(tokens, bytes)
}

// calibrate learns the tokens per byte of the provider's tokenizer.
func (s *Session) calibrate(tokens, bytes int) {
	if tokens <= 0 || bytes <= 0 {
		return
	}
	s.mu.Lock()
	s.perByte = float64(tokens) / float64(bytes)
	s.mu.Unlock()
}

func (s *Session) sizer() compact.Sizer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sizerLocked()
}

func (s *Session) sizerLocked() compact.Sizer {
	if s.perByte > 0 {
		return compact.Sizer(s.perByte)
	}
	return compact.DefaultTokensPerByte
}
