package agent

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/reasonix/reasonix/agent/config"
)

// Reasoning effort. A reasoning model can be asked to think less or more
// before it answers: the request's reasoning_effort. [agent]
// reasoning_effort sets it for every session, /effort LEVEL for one,
// /effort LEVEL PROMPT for one turn. It is a parameter of the request,
// beside the model and the temperature, not text of the prompt, so a
// change keeps the cached prefix whole: the next request differs from
// the last in that field only. A turn's helpers (tasks, the planner) ask
// for the turn's effort.

// Effort is the reasoning effort /effort set for the session; empty means
// the agent's.
func (s *Session) Effort() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.effort
}

// SetEffort makes the session's later turns ask for the reasoning effort
// e; empty goes back to the agent's.
func (s *Session) SetEffort(e string) {
	s.mu.Lock()
	s.effort = e
	s.mu.Unlock()
}

// effortOf is the reasoning effort s's turns ask for: the session's, else
// the agent's; empty for none.
func (a *Agent) effortOf(s *Session) string {
	return cmp.Or(s.Effort(), a.ReasoningEffort)
}

// setEffort is /effort: without a level it shows the effort; with one
// alone it sets the session's; with a prompt after it, it runs that
// prompt (itself a command, perhaps) at that effort, once.
func (a *Agent) setEffort(ctx context.Context, s *Session, p prepared, rest string, nested bool) (prepared, error) {
	if rest == "" {
		p.local = a.effortText(s)
		return p, nil
	}
	if nested {
		return p, fmt.Errorf("/effort: the prompt after /model REF or /effort LEVEL cannot be an /effort")
	}
	level, tail := slashName(rest)
	if !config.ValidEffort(level) {
		return p, fmt.Errorf("/effort takes %s, not %q", strings.Join(config.Efforts, ", "), level)
	}
	if tail == "" {
		// The front end says so, as for /model REF: in `reasonix
		// run` a change alone means nothing.
		s.SetEffort(level)
		p.action.Effort = level
		return p, nil
	}
	return a.thenPrompt(ctx, s, p, tail, func(q *prepared) { q.effort = level })
}

// effortText is /effort's answer without a level.
func (a *Agent) effortText(s *Session) string {
	levels := strings.Join(config.Efforts, "|")
	switch e := s.Effort(); {
	case e != "":
		return fmt.Sprintf("Reasoning effort: %s (set by /effort). /effort %s changes it.", e, levels)
	case a.ReasoningEffort != "":
		return fmt.Sprintf("Reasoning effort: %s ([agent] reasoning_effort). /effort %s changes it for this session.", a.ReasoningEffort, levels)
	}
	return fmt.Sprintf("Reasoning effort: not set; requests ask for none, and the model's default applies. /effort %s sets it for this session.", levels)
}
