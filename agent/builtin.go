package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/agent/config"
)

// ActionKind names a built-in command.
type ActionKind string

const (
	ActionHelp    ActionKind = "help"
	ActionNew     ActionKind = "new"
	ActionClear   ActionKind = "clear"
	ActionCompact ActionKind = "compact"
	ActionModel   ActionKind = "model"
	ActionCost    ActionKind = "cost"
	ActionMCP     ActionKind = "mcp"
	ActionTrust   ActionKind = "trust"
	ActionRewind  ActionKind = "rewind"
	ActionContext ActionKind = "context"
	ActionInit    ActionKind = "init"
	ActionEffort  ActionKind = "effort"
)

// Action is the outcome of a built-in command, in TurnResult.Action. The
// agent answers /help, /cost, /mcp, /model and /compact itself (the
// answer is the result's Text); /new and /clear act on what the front
// end holds — which session it shows — so the agent only reports them,
// and each front end performs them its own way (docs/SPEC.md).
type Action struct {
	Kind ActionKind `json:"kind"`
	// Model is the model reference /model REF switched the session to.
	Model string `json:"model,omitempty"`
	// Effort is the reasoning effort /effort LEVEL set for the session.
	Effort string `json:"effort,omitempty"`
	// Cancelled is set by a front end whose user declined to /clear.
	Cancelled bool `json:"cancelled,omitempty"`
	// Revoke is /trust revoke: forget what was trusted of the
	// workspace's configuration.
	Revoke bool `json:"revoke,omitempty"`
	// Turn is the turn /rewind N rewound to before, and Rewind what it
	// did; both unset for /rewind alone, which lists the turns.
	Turn   int         `json:"turn,omitempty"`
	Rewind *RewindPlan `json:"rewind,omitempty"`
}

// trustText is /trust's answer: what the workspace's own configuration
// brings that needs the user's trust, and whether it is in force. Asking
// and recording are the front end's: it has someone to ask.
func (a *Agent) trustText() string {
	if a.config == nil {
		return "Nothing in this workspace's configuration needs trust."
	}
	t := a.config.Workspace
	switch {
	case len(t.Items) == 0:
		return "Nothing in this workspace's configuration needs trust: it starts no server, sends no key and loosens nothing."
	case t.Trusted:
		return fmt.Sprintf("You trust the configuration of %s, which brings:\n%s\n/trust revoke turns it off.", t.Dir, t.Describe())
	}
	return t.Question()
}

// runBuiltin answers a built-in command without the model: it emits the
// command as the turn's prompt, the answer as text, and the end, and does
// not touch the session's log — but for /compact, whose purpose that is.
func (a *Agent) runBuiltin(ctx context.Context, s *Session, p prepared) (TurnResult, error) {
	res := TurnResult{SessionID: s.ID, Stop: StopDone, Action: p.action, Text: p.local, Model: a.modelOf(s)}
	a.emit(Event{Kind: EventTurnStart, SessionID: s.ID, Text: p.text})
	var err error
	if p.action.Kind == ActionCompact {
		if _, err = a.Compact(ctx, s); err != nil {
			if errors.Is(err, ErrNothingToCompact) {
				err = ErrNothingToCompact // without "compaction: ", which /compact says
			}
			err = fmt.Errorf("/compact: %w", err)
			a.emit(Event{Kind: EventError, SessionID: s.ID, Error: err.Error()})
			res.Stop = StopError
		} else {
			res.Text = "The conversation was compacted."
		}
	}
	if p.action.Kind == ActionRewind && p.action.Turn > 0 {
		plan, rerr := a.Rewind(ctx, s, p.action.Turn)
		if rerr != nil {
			err = fmt.Errorf("/rewind: %w", rerr)
			a.emit(Event{Kind: EventError, SessionID: s.ID, Error: err.Error()})
			res.Stop = StopError
		} else {
			act := *p.action
			act.Rewind = &plan
			res.Action, res.Text = &act, a.RewindSummary(plan)
		}
	}
	if p.action.Kind == ActionInit {
		if res.Text, err = a.runInit(ctx, s); err != nil {
			a.emit(Event{Kind: EventError, SessionID: s.ID, Error: err.Error()})
			res.Stop = StopError
		}
	}
	if res.Text != "" {
		a.emit(Event{Kind: EventText, SessionID: s.ID, Text: res.Text})
	}
	res.Session, res.SessionCost = s.Usage()
	res.ContextFill = a.sessionModel(s).contextFill(s)
	res.Priced = a.Price != nil
	a.emit(Event{Kind: EventTurnDone, SessionID: s.ID, Done: &res})
	return res, err
}

// costText is /cost's answer: the session's tokens, cache hits and cost.
func (a *Agent) costText(s *Session) string {
	u, cost := s.Usage()
	s.mu.Lock()
	turns := s.turns
	s.mu.Unlock()
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return fmt.Sprintf("Session %s: no model requests yet.", s.ID)
	}
	unit := "turns"
	if turns == 1 {
		unit = "turn"
	}
	line := fmt.Sprintf("Session %s: %d %s · %s tokens in (%.1f%% cache hit: %s hit, %s miss) + %s out",
		s.ID, turns, unit, FormatTokens(u.PromptTokens), 100*u.HitRatio(),
		FormatTokens(u.CacheHitTokens), FormatTokens(u.CacheMissTokens), FormatTokens(u.CompletionTokens))
	if a.Price != nil {
		return line + fmt.Sprintf(" · $%.4f", cost)
	}
	return line + " · cost unknown: " + a.ModelRef + " has no price"
}

// modelText is /model's answer without a reference: the session's model
// and the configured ones.
func (a *Agent) modelText(s *Session) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Model: %s", a.modelOf(s))
	if a.config != nil {
		b.WriteString("\nConfigured:")
		for _, p := range a.config.Providers {
			fmt.Fprintf(&b, "\n  %s: %s", p.Name, strings.Join(p.ModelList(), ", "))
		}
	}
	b.WriteString("\n/model REF switches this session to REF; /model REF PROMPT runs one prompt on it.")
	return b.String()
}

// modelOf is the model reference s's turns run on.
func (a *Agent) modelOf(s *Session) string {
	if ref := s.Model(); ref != "" {
		return ref
	}
	return a.ModelRef
}

// Model is the model reference /model switched the session to; empty
// means the agent's.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// SetModel makes the session's later turns run on the model ref names
// (resolved, "provider/model"); empty goes back to the agent's.
func (s *Session) SetModel(ref string) {
	s.mu.Lock()
	s.model = ref
	s.mu.Unlock()
}

// Discard closes the session and deletes its file, so it can no longer
// be listed or resumed: /clear, which discards a conversation without
// saving it.
func (s *Session) Discard() error {
	if s.file == nil {
		return nil
	}
	path := s.file.Path()
	err := s.file.Close()
	if rmErr := os.Remove(path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) && err == nil {
		err = rmErr
	}
	// Its checkpoints hold the texts of the files its turns changed.
	if rmErr := os.RemoveAll(s.file.CheckpointDir()); rmErr != nil && err == nil {
		err = rmErr
	}
	return err
}

// models holds the agents made for other models, shared by copies.
type models struct {
	mu sync.Mutex // guards byRef
	// byRef maps a resolved reference to the agent for it.
	byRef map[string]*Agent
}

// onModel returns the agent that runs turns on the model ref names: a
// itself when ref resolves to its model, else a copy with that model's
// provider and price, sharing everything else (the tools, services and
// store, which the copy does not close).
func (a *Agent) onModel(ref string) (*Agent, error) {
	if a.config == nil {
		return nil, fmt.Errorf("cannot switch to %q: no configuration to resolve model references", ref)
	}
	res, err := a.config.ResolveModel(ref)
	if err != nil {
		return nil, withoutPosition(err)
	}
	if res.String() == a.ModelRef {
		return a, nil
	}
	cache := a.models
	if cache == nil {
		cache = &models{} // an agent not made by Build: nothing to share
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if b, ok := cache.byRef[res.String()]; ok {
		return b, nil
	}
	prov, res, err := newProvider(a.config, res.String())
	if err != nil {
		return nil, withoutPosition(err)
	}
	b := *a
	b.Provider, b.Model, b.ModelRef, b.Price = prov, res.Model, res.String(), nil
	b.ContextWindow = res.Provider.ContextWindow
	if p, ok := res.Provider.PriceOf(res.Model); ok {
		b.Price = &p
	}
	// escalation_model stays configured across a switch, but a model
	// never escalates to itself. a has none when it runs on it.
	switch {
	case a.Escalation != nil && a.Escalation.ModelRef == res.String():
		b.Escalation = nil
	case a.Escalation == nil:
		if b.Escalation, err = newEscalation(a.config, res); err != nil {
			return nil, withoutPosition(err)
		}
	}
	b.ownsGraph, b.ownsPlugins, b.ownsProcs, b.ownsJail, b.ownsShells = false, false, false, false, false
	b.ownsJobs = false
	if cache.byRef == nil {
		cache.byRef = map[string]*Agent{}
	}
	cache.byRef[res.String()] = &b
	return &b, nil
}

// withoutPosition drops the file position of a configuration error about
// a model reference the user typed (/model REF, a command's model): the
// position would name --model or default_model, which it did not come
// from.
func withoutPosition(err error) error {
	var ce *config.Error
	if errors.As(err, &ce) {
		return errors.New(ce.Msg)
	}
	return err
}
