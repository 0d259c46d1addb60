package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/agent/compact"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
)

// Run drives one turn: it appends prompt as a user message and alternates
// model requests and tool calls until the model answers without calling a
// tool, a limit is reached, or ctx ends. It is RunInput with the prompt
// alone.
//
// The returned error is nil when the model finished; ErrMaxSteps or
// ErrBudgetExceeded (wrapped) when a limit stopped it; ctx.Err() when it
// was cancelled; otherwise the provider's or store's failure. The result
// is meaningful in every case.
func (a *Agent) Run(ctx context.Context, s *Session, prompt string) (TurnResult, error) {
	return a.RunInput(ctx, s, Input{Text: prompt})
}

// RunInput puts in through the prompt pipeline (input.go) and runs the
// turn it makes. A built-in command runs no turn: the result's Action
// says which it was and Text holds its answer, if any.
func (a *Agent) RunInput(ctx context.Context, s *Session, in Input) (TurnResult, error) {
	p, err := a.prepare(ctx, s, in)
	if err != nil || p.action != nil {
		// No turn starts to tell them.
		for _, n := range p.notices {
			a.emit(Event{Kind: EventNotice, SessionID: s.ID, Text: n})
		}
	}
	switch {
	case err != nil:
		a.emit(Event{Kind: EventError, SessionID: s.ID, Error: err.Error()})
		return TurnResult{SessionID: s.ID, Stop: StopError}, err
	case p.action != nil:
		// Answered here, without the model; the log is untouched.
		return a.runBuiltin(ctx, s, p)
	}
	if ref := cmp.Or(p.model, s.Model()); ref != "" {
		on, err := a.onModel(ref)
		if err != nil {
			err = fmt.Errorf("model %q: %w", ref, err)
			a.emit(Event{Kind: EventError, SessionID: s.ID, Error: err.Error()})
			return TurnResult{SessionID: s.ID, Stop: StopError}, err
		}
		a = on
	}
	if err := a.modelReady(); err != nil {
		a.emit(Event{Kind: EventError, SessionID: s.ID, Error: err.Error()})
		return TurnResult{SessionID: s.ID, Stop: StopError}, err
	}
	t, end, err := a.begin(s, true)
	if err != nil {
		return TurnResult{SessionID: s.ID}, err
	}
	defer end()
	t.effort = cmp.Or(p.effort, a.effortOf(s))

	res, err := t.run(ctx, p)
	res.SessionID, res.Turn, res.Model, res.Effort = s.ID, t.n, a.ModelRef, t.effort
	if m := t.answered; m.ref != "" && m.ref != a.ModelRef {
		// The last answer came from escalation_model.
		res.Model, res.EscalatedFrom = m.ref, a.ModelRef
	}
	res.Changes = t.changes()
	// Whatever way the turn ended, files may have changed: it can be
	// rewound to.
	if _, cerr := a.recordCheckpoint(s, t.n, in.Text, t.log); cerr != nil {
		a.emit(Event{Kind: EventNotice, SessionID: s.ID, Turn: t.n, Text: fmt.Sprintf("this turn cannot be rewound to: %v", cerr)})
	}
	for i := range res.Changes {
		// The file_changed events carried them.
		res.Changes[i].Before, res.Changes[i].BeforeOmitted = nil, false
	}
	t.usageMu.Lock()
	res.Usage, res.Cost, res.Priced = t.usage, t.cost, a.Price != nil || t.answered.price != nil
	t.usageMu.Unlock()
	res.Session, res.SessionCost = s.Usage()
	res.ContextFill = a.contextFill(s)
	res.Steps, res.ToolCalls = t.steps, t.calls
	if err != nil && res.Stop == "" {
		res.Stop = StopError
	}
	if err != nil && !errors.Is(err, ErrMaxSteps) && !errors.Is(err, ErrBudgetExceeded) && ctx.Err() == nil {
		a.emit(Event{Kind: EventError, SessionID: s.ID, Turn: t.n, Error: err.Error()})
	}
	a.emit(Event{Kind: EventTurnDone, SessionID: s.ID, Turn: t.n, Done: &res})
	return res, err
}

// begin reserves s for a turn of a, counted when newTurn is set (a
// compaction between turns is not), and returns its state and the
// function that releases s; ErrBusy when s is running a turn.
func (a *Agent) begin(s *Session, newTurn bool) (*turn, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return nil, nil, ErrBusy
	}
	s.running = true
	if newTurn {
		s.turns++
	}
	return &turn{a: a, s: s, n: s.turns, log: &changeLog{}}, func() {
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}, nil
}

// turn is the state of one Run.
type turn struct {
	a     *Agent
	s     *Session
	n     int
	steps int
	calls int

	// usageMu guards usage and cost: parallel tasks add theirs from
	// their own goroutines.
	usageMu sync.Mutex
	usage   provider.Usage
	cost    float64

	// changedMu guards changed, the files the turn's tools changed, and
	// shell.
	changedMu sync.Mutex
	changed   map[string]bool
	// log keeps the text of each file the turn changed before its first
	// change (changes.go); a task's turn shares its parent's. shell
	// finds the files shell commands change.
	log   *changeLog
	shell *shellWatch
	// nested is set on the turns of tasks and the planner, whose changes
	// are checked with the turn that runs them.
	nested bool
	// effort is the reasoning effort the turn's requests ask for; its
	// helpers' turns ask for the same.
	effort string
	check  checkState

	// storm holds the turn's latest calls, for the storm repair pass
	// (repair_storm.go); scavenged counts the responses whose calls
	// were scavenged (repair_scavenge.go).
	storm     storm
	scavenged int
	// cutOff holds the ids of calls whose arguments the output limit cut
	// off beyond repair (repair_truncation.go); set before they run.
	cutOff map[string]bool

	// answered is the model that wrote the turn's latest answer: the
	// session's, or escalation_model's.
	answered modelInfo
	// held is the reservation of the turn's request in flight against
	// its budgets (budget.go), until its response is accounted. The
	// turn sends one request at a time, from its own goroutine.
	held *hold

	// stopRounds counts the times Stop hooks sent the model back to
	// work this turn (hooks.go).
	stopRounds int
	// subagent is, on a task's turn, the helper's agent as SubagentStop
	// hooks read it: its custom agent's name, or "general-purpose".
	subagent string

	// emitMu serialises events of this turn: parallel tool calls report
	// from several goroutines, and a Sink sees one event at a time per
	// session.
	emitMu sync.Mutex
}

func (t *turn) event(e Event) {
	e.SessionID, e.Turn = t.s.ID, t.n
	if r := t.s.redact; r != nil && len(r.secrets) > 0 {
		e.Text = r.apply(e.Text)
		e.Error = r.apply(e.Error)
		if e.Tool != nil {
			tool := *e.Tool
			tool.Result = r.apply(tool.Result)
			tool.Title = r.apply(tool.Title)
			tool.Arguments = []byte(r.apply(string(tool.Arguments)))
			e.Tool = &tool
		}
		if e.File != nil && e.File.Before != nil {
			// A file's text before may hold a secret a tool result
			// would not show.
			file := *e.File
			before := r.apply(*file.Before)
			file.Before = &before
			e.File = &file
		}
	}
	if e.Step == 0 {
		e.Step = t.steps
	}
	t.emitMu.Lock()
	defer t.emitMu.Unlock()
	t.a.emit(e)
}

func (t *turn) run(ctx context.Context, p prepared) (TurnResult, error) {
	a, s := t.a, t.s
	defer t.release()
	defer t.closeShell()
	prompt := p.text
	if s.redact != nil {
		prompt = s.redact.apply(prompt)
	}
	t.event(Event{Kind: EventTurnStart, Text: prompt})
	if a.Env != nil && a.Env.Graph != nil {
		// Between turns the user may have changed files outside the
		// editor (a checkout, a build); the language servers catch up
		// before they next answer.
		a.Env.Graph.DiskChanged()
	}
	for _, n := range p.notices {
		t.event(Event{Kind: EventNotice, Text: n})
	}
	fromHooks, blocked := t.promptHooks(ctx, prompt)
	if blocked {
		return TurnResult{Stop: StopDone}, nil
	}
	p.attached += fromHooks
	plan, approved, err := t.planFirst(ctx, prompt+p.attached)
	switch {
	case errors.Is(err, ErrBudgetExceeded):
		return TurnResult{Stop: StopBudget}, err
	case err != nil:
		return TurnResult{}, err
	case !approved:
		return TurnResult{Text: planNotApproved, Stop: StopDone}, nil
	}
	content := prompt + p.attached + plan
	if s.PlanMode() {
		content = planNote + content
	}
	if err := s.append(provider.Message{Role: provider.RoleUser, Content: content}); err != nil {
		return TurnResult{}, err
	}
	schemas := toolSchemas(s.tools)
	overflowed := false // the last request was refused as too long
	for {
		if t.repairOver() {
			remaining, err := t.endRepair(ctx)
			return TurnResult{Text: t.lastAnswer(), Stop: StopDone, NewErrors: remaining, Tests: t.check.tests}, err
		}
		if a.MaxSteps > 0 && t.steps >= a.MaxSteps {
			msg := fmt.Sprintf("stopped after %d model requests (max_steps = %d); the task may be unfinished — continue the session to go on", t.steps, a.MaxSteps)
			t.event(Event{Kind: EventNotice, Text: msg})
			// Close the turn with an assistant message so the log stays
			// well-formed for the next turn.
			if err := s.append(provider.Message{Role: provider.RoleAssistant, Content: "[" + msg + "]"}); err != nil {
				return TurnResult{}, err
			}
			return TurnResult{Stop: StopMaxSteps}, fmt.Errorf("%w (%d)", ErrMaxSteps, a.MaxSteps)
		}
		if err := t.autoCompact(ctx, schemas); err != nil {
			return t.failed(ctx, err)
		}
		req := provider.Request{
			Model:       a.Model,
			Messages:    s.Messages(),
			Tools:       schemas,
			Temperature: a.Temperature,
			MaxTokens:   a.MaxTokens,

			ReasoningEffort: t.effort,
		}
		// Charged before it is sent: tasks and the planner spend from
		// the session's budget too, at the same time.
		prompt := s.estimate(schemas)
		if err := t.reserve(ctx, a.model(), prompt, &req); err != nil {
			return t.failed(ctx, err)
		}
		t.steps++
		bytes := compact.MessagesBytes(req.Messages) + compact.SchemasBytes(schemas)
		filter := &markerFilter{t: t, drop: a.Escalation != nil}
		resp, err := t.stream(ctx, a.Provider, a.model(), "", req, bytes, filter.forward)
		filter.flush()
		if err != nil && !overflowed && a.ContextWindow > 0 && provider.IsContextLength(err) && ctx.Err() == nil {
			// The estimate fell short: compact, and send it again once.
			overflowed = true
			t.learnWindow(err)
			if _, cerr := t.compact(ctx, CompactOverflow); cerr == nil {
				continue
			} else if !errors.Is(cerr, ErrNothingToCompact) {
				t.event(Event{Kind: EventNotice, Text: cerr.Error()})
			}
		}
		if err != nil {
			return t.failed(ctx, err)
		}
		overflowed = false
		s.sent(len(req.Messages), resp.Usage.PromptTokens, bytes)
		answered, answerBytes := a.model(), bytes
		if reason, rest, ok := needsPro(resp.Message.Content); ok {
			if resp, answered, err = t.escalate(ctx, req, resp, prompt, bytes, reason, rest); err != nil {
				return t.failed(ctx, err)
			}
			if answered.ref != a.ModelRef {
				answerBytes = 0 // the size calibrates the session's own model only
			}
		}
		t.answered = answered
		msg := resp.Message
		msg.Role = provider.RoleAssistant
		t.scavenge(&msg)
		t.truncation(&msg, resp.FinishReason)
		if s.redact != nil {
			msg = s.redact.message(msg)
		}
		if err := s.append(msg); err != nil {
			return TurnResult{}, err
		}
		if _, err := t.account(resp, answerBytes, answered); err != nil {
			return TurnResult{}, err
		}
		if over := t.exhausted(); over != nil {
			t.skipCalls(msg.ToolCalls, "not run: "+over.notice)
			t.event(Event{Kind: EventNotice, Text: over.notice})
			return TurnResult{Text: msg.Content, Stop: StopBudget}, over
		}
		if len(msg.ToolCalls) == 0 {
			if strings.TrimSpace(msg.Content) == "" {
				t.event(Event{Kind: EventNotice, Text: "the model returned an empty answer"})
			}
			if resp.FinishReason == "length" {
				t.event(Event{Kind: EventNotice, Text: "the answer was cut off at the model's output limit (max_tokens)"})
			}
			if why, goOn := t.stopHook(ctx, msg.Content); goOn {
				if err := s.append(provider.Message{Role: provider.RoleUser, Content: why}); err != nil {
					return TurnResult{}, err
				}
				continue
			}
			again, remaining, err := t.checkBeforeDone(ctx)
			if again {
				t.check.answer = msg.Content
				continue
			}
			return TurnResult{Text: msg.Content, Stop: StopDone, NewErrors: remaining, Tests: t.check.tests}, err
		}
		results := t.dispatch(ctx, msg.ToolCalls)
		if err := s.append(results...); err != nil {
			return TurnResult{}, err
		}
		if ctx.Err() != nil {
			return TurnResult{Stop: StopCancelled}, t.closeCancelled(ctx)
		}
	}
}

// stream sends req, reserved already, to m through p, records its
// attempts and forwards its chunks; a failed request lets its
// reservation go.
func (t *turn) stream(ctx context.Context, p provider.Provider, m modelInfo, purpose string, req provider.Request, bytes int, forward func(provider.Chunk)) (provider.Response, error) {
	rec := t.requestSteps(m, purpose, req, bytes)
	resp, err := p.Stream(ctx, req, rec.wrap(forward))
	rec.done(resp, err)
	if err != nil {
		t.release()
	}
	return resp, err
}

// send reserves req, whose prompt is about prompt tokens, and streams it.
func (t *turn) send(ctx context.Context, p provider.Provider, m modelInfo, purpose string, req provider.Request, prompt, bytes int, forward func(provider.Chunk)) (provider.Response, error) {
	if err := t.reserve(ctx, m, prompt, &req); err != nil {
		return provider.Response{}, err
	}
	return t.stream(ctx, p, m, purpose, req, bytes, forward)
}

// forward turns provider chunks into events.
func (t *turn) forward(c provider.Chunk) {
	switch c.Kind {
	case provider.ChunkText:
		t.event(Event{Kind: EventText, Text: c.Text})
	case provider.ChunkReasoning:
		t.event(Event{Kind: EventReasoning, Text: c.Text})
	case provider.ChunkRetry:
		t.event(Event{Kind: EventRetry, Text: fmt.Sprintf("retry %d in %.1fs: %s",
			c.Retry.Attempt, float64(c.Retry.Delay)/1000, c.Retry.Reason)})
	}
}

// failed ends a turn whose model request (or compaction) failed, or was
// not sent for the budget.
func (t *turn) failed(ctx context.Context, err error) (TurnResult, error) {
	if ctx.Err() != nil {
		return TurnResult{Stop: StopCancelled}, t.closeCancelled(ctx)
	}
	var over *budgetStop
	if errors.As(err, &over) {
		t.event(Event{Kind: EventNotice, Text: over.notice})
		// Close the turn with an assistant message so the log stays
		// well-formed for the next turn.
		if err := t.s.append(provider.Message{Role: provider.RoleAssistant, Content: "[" + over.notice + "]"}); err != nil {
			return TurnResult{}, err
		}
		return TurnResult{Stop: StopBudget}, over
	}
	// Record the failure as the assistant's turn, so the next user
	// message does not follow a user message.
	t.s.append(provider.Message{Role: provider.RoleAssistant, Content: "[no answer: the model request failed]"})
	return TurnResult{}, err
}

// modelInfo names the model a request went to, for its accounting.
type modelInfo struct {
	name, ref string
	price     *config.Price
}

func (a *Agent) model() modelInfo { return modelInfo{name: a.Model, ref: a.ModelRef, price: a.Price} }

// account adds a response's usage to the turn and session, records it
// with the request's size in bytes, and reports it; the usage takes the
// place of the request's reservation. It returns the request's cost.
func (t *turn) account(resp provider.Response, bytes int, m modelInfo) (float64, error) {
	defer t.settle(resp, m)
	u := resp.Usage
	var cost float64
	if m.price != nil {
		cost = m.price.Cost(u.CacheHitTokens, u.CacheMissTokens, u.CompletionTokens)
	}
	turnUsage, turnCost, sessionUsage, sessionCost, err := t.charge(u, cost, m.ref, bytes)
	if err != nil {
		return cost, err
	}
	model := resp.Model
	if model == "" {
		model = m.name
	}
	t.event(Event{Kind: EventUsage, Usage: &UsageEvent{
		Model: model, Request: u, Turn: turnUsage, Session: sessionUsage,
		RequestCost: cost, TurnCost: turnCost, SessionCost: sessionCost, Priced: m.price != nil,
		ContextFill: t.a.contextFill(t.s),
	}})
	return cost, nil
}

// charge adds u and its cost to the turn and the session, and records
// them in the session file (bytes, the request's size, calibrates the
// compaction's estimates; 0 leaves them alone). It returns the new
// totals of the turn and the session.
func (t *turn) charge(u provider.Usage, cost float64, model string, bytes int) (provider.Usage, float64, provider.Usage, float64, error) {
	s := t.s
	t.usageMu.Lock()
	t.usage.Add(u)
	t.cost += cost
	turnUsage, turnCost := t.usage, t.cost
	t.usageMu.Unlock()
	s.mu.Lock()
	s.usage.Add(u)
	s.cost += cost
	sessionUsage, sessionCost := s.usage, s.cost
	s.mu.Unlock()
	if up := s.up; up != nil {
		// A child spends from its parent's session as it goes.
		up.mu.Lock()
		up.helperTokens += u.Total()
		up.helperCost += cost
		up.mu.Unlock()
	}
	if s.file != nil {
		if err := s.file.AppendUsage(t.n, model, u, cost, bytes); err != nil {
			return turnUsage, turnCost, sessionUsage, sessionCost, err
		}
	}
	return turnUsage, turnCost, sessionUsage, sessionCost, nil
}

// chargeHelper adds what a child session (a task, the planner) spent to
// the turn and the session, as the user pays for it: the session's
// totals, its cost and its token budget count it, and resuming the
// session reads it back.
func (t *turn) chargeHelper(child *turn, model string) error {
	child.usageMu.Lock()
	u, cost := child.usage, child.cost
	child.usageMu.Unlock()
	if u.Total() == 0 {
		return nil
	}
	// What the child spent moves from the running children's share to
	// the session's own.
	t.s.mu.Lock()
	t.s.helperTokens -= u.Total()
	t.s.helperCost -= cost
	t.s.mu.Unlock()
	_, _, _, _, err := t.charge(u, cost, model, 0)
	return err
}

// skipCalls answers tool calls that will not run, keeping the log valid.
func (t *turn) skipCalls(calls []provider.ToolCall, why string) {
	var msgs []provider.Message
	for _, c := range calls {
		msgs = append(msgs, provider.Message{Role: provider.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: why})
	}
	t.s.append(msgs...)
}

// closeCancelled ends a cancelled turn with an assistant note so the next
// turn starts from a well-formed log.
func (t *turn) closeCancelled(ctx context.Context) error {
	if t.s.file != nil {
		t.s.file.Keep() // the user may resume it
	}
	t.s.append(provider.Message{Role: provider.RoleAssistant, Content: "[interrupted by the user]"})
	return ctx.Err()
}
