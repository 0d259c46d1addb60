package agent

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/reasonix/reasonix/agent/provider"
)

// Budgets. token_budget and cost_budget bound what a session spends, the
// requests of its tasks and its planner included, and task_token_budget
// what each task spends. A request is charged before it is sent: it
// reserves what it may cost at most — its prompt, as the session
// estimates it, and its max_tokens of output, or all that is left when
// that is less or max_tokens is unset — and the reservation holds until
// its response is accounted, when the usage the provider reports takes
// its place, or until it fails, when it is let go. What is left for a
// request is the budget less what was spent and what requests in flight
// hold, so requests sent at once — a session's parallel tasks — cannot
// together spend past it: each sees what the others may yet spend.
//
// A request whose reservation does not fit is not sent. If it would fit
// but for what requests in flight hold, it waits for them to settle,
// since they may spend less than they hold; if it does not fit what is
// left once they have, the turn stops with ErrBudgetExceeded, as when the
// budget is used up. Where only part of its max_tokens is left, the
// request goes with the lower max_tokens, so its answer cannot pass the
// budget.
//
// Without max_tokens a request's output has no bound Reasonix can send:
// it reserves all that is left, so the requests of parallel tasks go one
// at a time under a budget.

// A hold is the reservation of a request in flight: tokens and cost held
// on each session of on, the request's own and those it spends from.
// out is the output it may write, prompt its prompt, as estimated.
type hold struct {
	on     []*Session
	tokens int
	cost   float64
	prompt int
	out    int
}

// A budget is one budget a request spends from: a session and its
// limits, 0 for none.
type budget struct {
	s      *Session
	tokens int
	cost   float64
}

// budgets are the budgets t's requests spend from: its session's, then
// the session that one spends from, if any (a task's, the planner's).
func (t *turn) budgets() []budget {
	var bs []budget
	for a, s := t.a, t.s; s != nil; a, s = s.upBy, s.up {
		b := budget{s: s, tokens: a.TokenBudget}
		if a.Price != nil {
			// The cost budget counts only when the model has a price.
			b.cost = a.CostBudget
		}
		bs = append(bs, b)
	}
	return bs
}

// spentLocked is what s has spent against its budgets: its own usage,
// what its running children have spent, and the estimates of responses
// that reported no usage. s.mu must be held.
func (s *Session) spentLocked() (int, float64) {
	return s.usage.Total() + s.helperTokens + s.estimated, s.cost + s.helperCost + s.estimatedCost
}

// spendFrom makes s, the session of a child of t (a task, the planner),
// spend from the budgets of t's session as well as its own: its requests
// reserve and count there as they are made, as the parent's would.
// Children run in parallel, each within its own limits, so counting them
// only when they report would let them spend past it. A child on the
// parent's model starts from the parent's tokens per byte, for the
// estimates of its prompts.
func (s *Session) spendFrom(t *turn, model string) {
	s.up, s.upBy = t.s, t.a
	if model == t.a.ModelRef {
		t.s.mu.Lock()
		s.perByte = t.s.perByte
		t.s.mu.Unlock()
	}
}

// reserve charges a request t is about to send to m, whose prompt is
// about prompt tokens, to the budgets t spends from, waiting while what
// is left is held by requests in flight; it lowers req.MaxTokens to what
// is left for the answer. It returns a *budgetStop when the request does
// not fit, and ctx.Err() when ctx ends first. The hold is t's until the
// response is accounted (account) or the request fails (release).
func (t *turn) reserve(ctx context.Context, m modelInfo, prompt int, req *provider.Request) error {
	t.release() // a request whose response was never accounted
	bs := t.budgets()
	for {
		h, wait, first, stop := tryReserve(bs, m, prompt, req.MaxTokens)
		switch {
		case stop != nil:
			return stop
		case wait == nil:
			t.held = h
			if h != nil && req.MaxTokens > 0 && h.out < req.MaxTokens {
				req.MaxTokens = h.out
			}
			return nil
		case first:
			msg := "a request waits for requests in flight to settle: what is left of the session's budget is held by them"
			if req.MaxTokens == 0 {
				msg += " ([agent] max_tokens would let them hold less)"
			}
			t.event(Event{Kind: EventNotice, Text: msg})
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wait:
		}
	}
}

// unbounded stands for no limit on a request's output.
const unbounded = math.MaxInt

// tryReserve reserves a request on bs when it fits (a nil hold when no
// budget bounds it), or returns what to wait for when it would fit but
// for what others hold — first when no request of that session waited
// before, so the user is told once — or why it does not fit at all.
// maxOut is the request's max_tokens, 0 for none.
func tryReserve(bs []budget, m modelInfo, prompt, maxOut int) (h *hold, wait <-chan struct{}, first bool, stop *budgetStop) {
	for _, b := range bs {
		b.s.mu.Lock()
		defer b.s.mu.Unlock()
	}
	out := unbounded
	if maxOut > 0 {
		out = maxOut
	}
	// Per budget, the room left for the answer: now, and once what
	// others hold has settled.
	limited := false
	var blocked *budget
	for i := range bs {
		b := &bs[i]
		room, settled := b.room(m, prompt)
		if room == unbounded {
			continue
		}
		limited = true
		out = min(out, room)
		if room >= 1 {
			continue
		}
		if settled < 1 {
			return nil, nil, false, b.short(m, prompt, i > 0)
		}
		if blocked == nil {
			blocked = b
		}
	}
	switch {
	case !limited:
		return nil, nil, false, nil
	case blocked != nil:
		if blocked.s.settled == nil {
			blocked.s.settled = make(chan struct{})
		}
		first = !blocked.s.waited
		blocked.s.waited = true
		return nil, blocked.s.settled, first, nil
	}
	// A budget limits the answer: out is bounded.
	h = &hold{prompt: prompt, out: out, tokens: prompt + out}
	if m.price != nil {
		h.cost = m.price.Cost(0, prompt, out)
	}
	for _, b := range bs {
		b.s.heldTokens += h.tokens
		b.s.heldCost += h.cost
		h.on = append(h.on, b.s)
	}
	return h, nil, false, nil
}

// room is how many tokens of output a request with prompt tokens of
// prompt to m may write within b: now, with what requests in flight hold
// taken, and once they have settled; unbounded when b sets no limit it
// counts against. b.s.mu is held.
func (b *budget) room(m modelInfo, prompt int) (now, settled int) {
	now, settled = unbounded, unbounded
	spent, spentCost := b.s.spentLocked()
	if b.tokens > 0 {
		settled = b.tokens - spent - prompt
		now = settled - b.s.heldTokens
	}
	if b.cost > 0 && m.price != nil {
		// All of the prompt may miss the cache.
		left := b.cost - spentCost - m.price.Cost(0, prompt, 0)
		perToken := m.price.Cost(0, 0, 1)
		tokens := func(usd float64) int {
			switch {
			case usd < 0:
				return -1
			case perToken == 0 || usd/perToken >= unbounded:
				return unbounded
			}
			return int(usd / perToken)
		}
		settled = min(settled, tokens(left))
		now = min(now, tokens(left-b.s.heldCost))
	}
	return now, settled
}

// short is the stop of a request that does not fit in b even once what
// requests in flight hold has settled; parent says b is the budget of
// the session a child spends from. b.s.mu is held.
func (b *budget) short(m modelInfo, prompt int, parent bool) *budgetStop {
	spent, spentCost := b.s.spentLocked()
	var notice string
	if b.tokens > 0 && b.tokens-spent-prompt < 1 {
		notice = tokensUsed(spent, b.tokens)
		if spent < b.tokens {
			notice += fmt.Sprintf(", too few for the next request (a prompt of about %d tokens)", prompt)
		}
	} else {
		notice = costSpent(spentCost, b.cost)
		if spentCost < b.cost {
			notice += fmt.Sprintf(", too little for the next request (a prompt of about %d tokens)", prompt)
		}
	}
	return &budgetStop{notice: notice, parent: parent}
}

// release lets go of the reservation of t's request in flight, if any,
// and wakes the requests waiting for one to settle.
func (t *turn) release() {
	h := t.held
	if h == nil {
		return
	}
	t.held = nil
	for _, s := range h.on {
		s.mu.Lock()
		s.heldTokens -= h.tokens
		s.heldCost -= h.cost
		if s.settled != nil {
			close(s.settled)
			s.settled = nil
		}
		s.mu.Unlock()
	}
}

// settle replaces the reservation of the request t got resp for with its
// usage, which account has charged. A response that reported no usage
// (a stream cut short for its arguments' size, a provider that does not
// say) is charged to the budgets at an estimate: its prompt as reserved,
// and its output at the session's tokens per byte.
func (t *turn) settle(resp provider.Response, m modelInfo) {
	h := t.held
	if h == nil {
		return
	}
	if resp.Usage.Total() == 0 {
		msg := resp.Message
		size := len(msg.Content) + len(msg.Reasoning)
		for _, c := range msg.ToolCalls {
			size += len(c.Name) + len(c.Arguments) + c.Oversize
		}
		out := t.s.sizer().Tokens(size)
		var cost float64
		if m.price != nil {
			cost = m.price.Cost(0, h.prompt, out)
		}
		for _, s := range h.on {
			s.mu.Lock()
			s.estimated += h.prompt + out
			s.estimatedCost += cost
			s.mu.Unlock()
		}
	}
	t.release()
}

// exhausted says how a budget t spends from is used up, or returns nil
// while none is.
func (t *turn) exhausted() *budgetStop {
	for i, b := range t.budgets() {
		b.s.mu.Lock()
		used, cost := b.s.spentLocked()
		b.s.mu.Unlock()
		switch {
		case b.tokens > 0 && used >= b.tokens:
			return &budgetStop{notice: tokensUsed(used, b.tokens), parent: i > 0}
		case b.cost > 0 && cost >= b.cost:
			return &budgetStop{notice: costSpent(cost, b.cost), parent: i > 0}
		}
	}
	return nil
}

// tokensUsed and costSpent are the notices of a token and a cost budget
// used up, or too nearly to send the next request.
func tokensUsed(used, budget int) string {
	return fmt.Sprintf("token budget exhausted: %d of %d tokens used", used, budget)
}

func costSpent(spent, budget float64) string {
	return fmt.Sprintf("cost budget exhausted: $%.4f of $%s spent", spent, strconv.FormatFloat(budget, 'f', -1, 64))
}

// A budgetStop is the error of a turn a budget stopped:
// ErrBudgetExceeded, with the notice that says which budget and how.
// parent says it is the budget of the session a child (a task, the
// planner) spends from, rather than the child's own.
type budgetStop struct {
	notice string
	parent bool
}

func (e *budgetStop) Error() string {
	_, amounts, _ := strings.Cut(e.notice, ": ")
	return ErrBudgetExceeded.Error() + ": " + amounts
}

func (e *budgetStop) Unwrap() error { return ErrBudgetExceeded }
