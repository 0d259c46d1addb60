package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// Request is a tool call awaiting a decision.
type Request struct {
	SessionID string
	Tool      string
	ReadOnly  bool
	Args      json.RawMessage
	// AlwaysAsk marks a call that needs a fresh human answer every time
	// (such as a write to the agent's long-term memory): no rule, grant
	// or posture allows it, and without anyone to ask it is refused.
	AlwaysAsk bool
	// Paths, when set, are the paths a file-changing call touches, each
	// in every spelling that names it (as written, and with symbolic
	// links resolved): path rules are matched against them instead of
	// the arguments. See Policy.Judge.
	Paths []string
	// Reads, when set, are the paths whose content the call reads or
	// carries elsewhere (tools.FileReader), each in every spelling that
	// names it: the deny and ask rules about reading are matched
	// against them, whatever the tool. See read.go.
	Reads []string
	// Control names Reasonix's control files the call changes, for the
	// user; such a call is also AlwaysAsk.
	Control []string
	// Preview, when set, is what the call will do in the tool's words
	// (tools.Previewer), shown to the person asked in place of its
	// arguments.
	Preview string
	// Proposes marks a call whose every change is a proposal a person
	// reviews before any file changes (an editor's review mode): what only
	// the mode fallback would ask about is allowed without asking, as the
	// review is the question. Deny and ask rules, and calls that always
	// ask (Reasonix's control files), still hold.
	Proposes bool
}

// Posture is how readily approvals are given.
type Posture int

const (
	// PostureAsk follows the policy: "ask" asks.
	PostureAsk Posture = iota
	// PostureAuto allows what only the mode fallback would have asked
	// about; explicit ask and deny rules still hold.
	PostureAuto
	// PostureYolo allows everything that is not denied.
	PostureYolo
)

// ParsePosture reads [permissions] approval.
func ParsePosture(s string) (Posture, error) {
	switch s {
	case "", "ask":
		return PostureAsk, nil
	case "auto":
		return PostureAuto, nil
	case "yolo":
		return PostureYolo, nil
	}
	return PostureAsk, fmt.Errorf("permission approval must be ask, auto or yolo, not %q", s)
}

// Answer is a user's reply to an approval prompt.
type Answer int

const (
	AnswerDeny Answer = iota
	AnswerOnce
	AnswerSession
	AnswerAlways
)

// Prompt is what an Approver shows the user.
type Prompt struct {
	Request
	// Scope is the rule a session or permanent grant adds, such as
	// `Bash(go test:*)`.
	Scope string
	// Why explains why the user is asked, e.g. the ask rule that matched.
	Why string
	// Escalation, when set, is why a shell command that the sandbox may
	// have blocked should run again outside it: the question is whether
	// to allow that, once.
	Escalation string
}

// Approver asks the user. Implementations: a terminal prompt for
// `reasonix run`, an editor dialog over LSP.
type Approver interface {
	Approve(ctx context.Context, p Prompt) (Answer, error)
}

// Verdict is the outcome of a Gate check.
type Verdict struct {
	Allowed bool
	// Reason says why a call was refused, for the model and the log.
	Reason string
	// Asked is set when the user was consulted.
	Asked bool
	// Proposal is set when the call was allowed only because its changes
	// are proposals (Request.Proposes): they must not be made for real.
	Proposal bool
}

// Gate decides whether a tool call may run.
type Gate interface {
	Check(ctx context.Context, r Request) Verdict
}

// Refusal is a call refused because it needed approval and no one could
// be asked: the Checker has no Approver.
type Refusal struct {
	Request
	// Why says what the call needed, such as "it needs approval".
	Why string
	// Posture is the least posture that allows the call without asking:
	// PostureAuto when only the mode fallback asked, PostureYolo when an
	// ask rule did. PostureAsk means no posture does: only a person may
	// allow the call.
	Posture Posture
	// Allow is the allow rule that would let the call run without asking,
	// the one a grant adds (see Scope), such as `Bash(go test:*)`; empty
	// when no allow rule would (an ask rule matched, or only a person may
	// allow the call).
	Allow string
}

// Checker is the standard Gate: static rules, then the user for "ask",
// remembering what the user granted for the session.
type Checker struct {
	Policy Policy
	// Approver asks the user; nil means no one can be asked, and what
	// would be asked is refused unless the posture allows it: unattended
	// runs fail closed.
	Approver Approver
	// Persist saves an "always allow" grant as an allow rule in the
	// project config. Nil, or an error, degrades the grant to the session.
	Persist func(rule string) error
	// Notify reports things the user should know, such as a grant not
	// saved. Optional.
	Notify func(msg string)
	// Refused hears of each call refused because no one could be asked,
	// so the user learns what to allow. Optional.
	Refused func(Refusal)
	// Posture answers some questions without asking.
	Posture Posture

	mu      sync.Mutex        // guards Policy's rule lists and granted
	granted map[string][]Rule // session id → rules granted for it
}

// Check implements Gate.
func (c *Checker) Check(ctx context.Context, r Request) Verdict {
	c.mu.Lock()
	policy := c.Policy
	c.mu.Unlock()
	d, rule := policy.Judge(r)
	if d == Deny {
		why := "denied by the permission mode"
		if rule != nil {
			why = fmt.Sprintf("denied by the rule %q", rule.Raw)
		}
		return Verdict{Reason: why}
	}
	if r.AlwaysAsk || rule != nil && rule.strict {
		if c.Approver == nil {
			why := "it needs a person's approval every time"
			if rule != nil && rule.strict {
				why = rule.why
			}
			return c.refuse(Refusal{Request: r, Why: why, Posture: PostureAsk})
		}
		if n, cut := (Prompt{Request: r}).changeRunes(); r.AlwaysAsk && cut {
			// The person approves this change having seen it: a question
			// cuts the middle of a long one, where anything could hide.
			return Verdict{Reason: fmt.Sprintf("the change is too long to be shown whole to the person who must approve it (%d characters, at most %d); make it in smaller steps, each shown whole", n, MaxChangeRunes)}
		}
		return c.ask(ctx, r, rule, false)
	}
	if c.grantedFor(r) {
		return Verdict{Allowed: true}
	}
	if d == Allow {
		return Verdict{Allowed: true}
	}
	switch {
	case c.Posture == PostureYolo:
		return Verdict{Allowed: true}
	case c.Posture == PostureAuto && rule == nil:
		// Only the mode fallback asked: auto approves it.
		return Verdict{Allowed: true}
	case r.Proposes && rule == nil:
		// Only the mode fallback asked, and the call changes nothing
		// until a person accepts its proposals: asking now would ask
		// twice.
		return Verdict{Allowed: true, Proposal: true}
	}
	if c.Approver == nil {
		if rule != nil {
			return c.refuse(Refusal{Request: r, Why: fmt.Sprintf("the ask rule %q requires approval", rule.Raw), Posture: PostureYolo})
		}
		scope := Scope(r.Tool, policy.relativize(r.Args))
		return c.refuse(Refusal{Request: r, Why: "it needs approval", Posture: PostureAuto, Allow: scope})
	}
	return c.ask(ctx, r, rule, true)
}

// AllowsUnasked reports whether r would be allowed with no one asked: by
// the rules, a grant of its session or the posture, as Check decides. It
// asks no one and records nothing. The agent asks it before running code
// on its own account (the tests of a change), which it does only where a
// call of the same command would run without a question.
func (c *Checker) AllowsUnasked(r Request) bool {
	c.mu.Lock()
	policy := c.Policy
	c.mu.Unlock()
	d, rule := policy.Judge(r)
	switch {
	case d == Deny, r.AlwaysAsk, rule != nil && rule.strict:
		return false
	case d == Allow, c.grantedFor(r):
		return true
	}
	return c.Posture == PostureYolo || c.Posture == PostureAuto && rule == nil
}

// refuse turns down a call that no one could be asked about, and reports
// it.
func (c *Checker) refuse(f Refusal) Verdict {
	if c.Refused != nil {
		c.Refused(f)
	}
	reason := f.Why + ", and no one is available to approve calls in this run"
	if f.Allow != "" {
		reason += fmt.Sprintf(" (the allow rule %q under [permissions] would let it run)", f.Allow)
	}
	return Verdict{Reason: reason}
}

// ask puts the question to the user. Grants are remembered only when
// remember is set: an always-ask call's answer covers that call alone.
func (c *Checker) ask(ctx context.Context, r Request, rule *Rule, remember bool) Verdict {
	p := Prompt{Request: r, Scope: Scope(r.Tool, r.Args), Why: "no rule allows this call"}
	if rule != nil {
		p.Why = fmt.Sprintf("the rule %q asks for approval", rule.Raw)
	}
	switch {
	case rule != nil && rule.strict:
		p.Why = rule.why
	case !remember:
		p.Why = r.alwaysAskWhy()
	}
	ans, err := c.Approver.Approve(ctx, p)
	if err != nil {
		return Verdict{Reason: fmt.Sprintf("approval failed: %v", err), Asked: true}
	}
	if !remember && ans != AnswerDeny {
		return Verdict{Allowed: true, Asked: true}
	}
	switch ans {
	case AnswerOnce:
		return Verdict{Allowed: true, Asked: true}
	case AnswerSession:
		c.grant(r.SessionID, p.Scope)
		return Verdict{Allowed: true, Asked: true}
	case AnswerAlways:
		c.grant(r.SessionID, p.Scope)
		if c.Persist == nil {
			c.notify("this grant lasts for the session only: there is no project config to save it to")
		} else if err := c.Persist(p.Scope); err != nil {
			c.notify(fmt.Sprintf("could not save the rule %q: %v; it lasts for the session only", p.Scope, err))
		} else {
			c.mu.Lock()
			if rule, err := ParseRule(p.Scope); err == nil {
				c.Policy.Allow = append(c.Policy.Allow, rule)
			}
			c.mu.Unlock()
		}
		return Verdict{Allowed: true, Asked: true}
	}
	return Verdict{Reason: "the user denied this call", Asked: true}
}

func (c *Checker) notify(msg string) {
	if c.Notify != nil {
		c.Notify(msg)
	}
}

func (c *Checker) grant(session, scope string) {
	rule, err := ParseRule(scope)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.granted == nil {
		c.granted = map[string][]Rule{}
	}
	c.granted[session] = append(c.granted[session], rule)
}

func (c *Checker) grantedFor(r Request) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	match := c.Policy.matcher(r)
	for _, rule := range c.granted[r.SessionID] {
		if match(rule, false) {
			return true
		}
	}
	return false
}

// PlanApprover asks the user to approve a plan the agent made in plan
// mode. feedback is what the user said when not approving, if anything.
type PlanApprover interface {
	ApprovePlan(ctx context.Context, sessionID, plan string) (approved bool, feedback string, err error)
}
