package agent

import (
	"errors"
	"math"

	"github.com/reasonix/reasonix/agent/provider"
)

// This file decides what a compaction keeps and what it folds; it is pure,
// so the rules are tested without a model.
//
// A compacted view is
//
//	system message · kept messages · digest · tail
//
// The tail is the most recent work, kept as it was. Everything between the
// system message and the tail is the fold region: its user messages of
// normal size and the digests of earlier compactions are kept verbatim, in
// their order, and everything else (assistant messages, tool results,
// oversized user messages) is summarised into the new digest and moved to
// the archive.

// defaultTokensPerByte estimates prompt tokens before any request has
// reported its count: a little above what BPE tokenizers give English and
// code, so the first estimate errs towards compacting early.
const defaultTokensPerByte = 0.4

// Per-message overhead, in bytes, of the role and framing a provider adds.
const (
	messageOverhead = 12
	callOverhead    = 24
)

// messageBytes is the size of a message as the estimates count it.
func messageBytes(m provider.Message) int {
	n := len(m.Content) + len(m.Reasoning) + len(m.ToolCallID) + len(m.Name) + messageOverhead
	for _, c := range m.ToolCalls {
		n += len(c.ID) + len(c.Name) + len(c.Arguments) + callOverhead
	}
	return n
}

func messagesBytes(msgs []provider.Message) int {
	n := 0
	for _, m := range msgs {
		n += messageBytes(m)
	}
	return n
}

func schemasBytes(ts []provider.ToolSchema) int {
	n := 0
	for _, t := range ts {
		n += len(t.Name) + len(t.Description) + len(t.Parameters) + callOverhead
	}
	return n
}

// sizer turns bytes into estimated tokens.
type sizer float64

func (k sizer) tokens(bytes int) int { return int(math.Ceil(float64(k) * float64(bytes))) }
func (k sizer) of(m provider.Message) int {
	return k.tokens(messageBytes(m))
}
func (k sizer) ofAll(msgs []provider.Message) int { return k.tokens(messagesBytes(msgs)) }

// budgets are a compaction's limits, in estimated tokens.
type budgets struct {
	// window is the model's context window.
	window int
	// tail bounds the recent messages kept as they are (the last message
	// group is kept whatever its size).
	tail int
	// pinned bounds the kept messages of the fold region together: user
	// messages and earlier digests.
	pinned int
	// userMax is the largest user message kept verbatim: a normal-sized
	// turn. A longer one (a pasted file) is folded like tool output.
	userMax int
	// summary bounds the summary the model writes (its max_tokens).
	summary int
}

// Compaction limits. See docs/ARCHITECTURE.md, "Compaction".
const (
	// userMaxTokens bounds a normal-sized user turn, unless a sixteenth
	// of the window is less.
	userMaxTokens = 2000
	// summaryMinTokens and summaryMaxTokens bound the summary's length.
	summaryMinTokens = 512
	summaryMaxTokens = 4096
	// defaultPlanWindow is the window a compaction asked for by hand
	// plans with when the model's is not configured.
	defaultPlanWindow = 128_000
)

// newBudgets derives the limits from the window, the compaction ratio and
// the size of the fixed prefix (system message and tool schemas): of
// what the conversation may grow to before the next compaction (avail),
// an eighth is kept as the tail and two thirds may hold the kept user
// messages and digests — hundreds of user turns in a 32k window, beside a
// prefix of twenty tools — so a compaction always frees about a fifth.
func newBudgets(window int, ratio float64, prefix int) budgets {
	trigger := int(ratio * float64(window))
	avail := max(trigger-prefix, 0)
	return budgets{
		window:  window,
		tail:    avail / 8,
		pinned:  avail * 2 / 3,
		userMax: min(userMaxTokens, window/16),
		summary: min(max(avail/8, summaryMinTokens), summaryMaxTokens),
	}
}

// plan is what one compaction keeps, folds and drops.
type plan struct {
	// fold is the fold region: what the summary covers, in order.
	fold []provider.Message
	// kept are the messages of the fold region kept verbatim, in order.
	kept []provider.Message
	// dropped are the others: they go to the archive.
	dropped []provider.Message
	// tail is kept as it is, after the digest.
	tail []provider.Message
}

// ErrNothingToCompact says a compaction would free nothing: the history is
// only the system message, kept messages and the tail.
var ErrNothingToCompact = errors.New("nothing to compact: the history holds only kept messages and the latest work")

// planCompaction splits msgs (msgs[0] is the system message) into what a
// compaction keeps and folds.
//
// The boundary between the fold region and the tail is the earliest
// message whose tail fits b.tail, moved later until the tail starts with a
// user or assistant message: a tail never opens with a tool result whose
// call was folded away (an orphan the provider would reject). When the
// tail holds a user message it starts at the first one, so it never opens
// with the end of an earlier turn. The tail
// always holds at least the last such message and what follows it — the
// prompt of the turn about to run, or the last tool call and its results
// in the middle of one — so a request never ends with the digest.
//
// In the fold region, user messages of at most b.userMax tokens and
// earlier digests are kept. If together they exceed b.pinned, the oldest
// digests are folded into the new one first (a digest of digests), then
// the oldest user messages: the only case where a user's own words are
// summarised, and they are still in the archive.
func planCompaction(msgs []provider.Message, k sizer, b budgets) (plan, error) {
	n := len(msgs)
	last := n - 1 // the tail's latest possible start
	for last > 1 && msgs[last].Role == provider.RoleTool {
		last--
	}
	if last <= 1 {
		return plan{}, ErrNothingToCompact
	}
	start, size := last, k.ofAll(msgs[last:])
	for i := last - 1; i > 1; i-- {
		size += k.of(msgs[i])
		if size > b.tail {
			break
		}
		if msgs[i].Role != provider.RoleTool {
			start = i
		}
	}
	// A tail that reaches back into an earlier turn starts at that turn's
	// end instead: after the next user message, so the digest is followed
	// by a user message rather than by a stray end of a turn.
	for i := start; i <= last; i++ {
		if msgs[i].Role == provider.RoleUser {
			start = i
			break
		}
	}
	p := plan{fold: msgs[1:start], tail: msgs[start:]}

	keep := make([]bool, len(p.fold))
	pinned := 0
	for i, m := range p.fold {
		if m.Digest || (m.Role == provider.RoleUser && k.of(m) <= b.userMax) {
			keep[i] = true
			pinned += k.of(m)
		}
	}
	// Over budget: unpin the oldest digests, then the oldest user turns.
	for _, digests := range []bool{true, false} {
		for i := 0; i < len(p.fold) && pinned > b.pinned; i++ {
			if keep[i] && p.fold[i].Digest == digests {
				keep[i] = false
				pinned -= k.of(p.fold[i])
			}
		}
	}
	for i, m := range p.fold {
		if keep[i] {
			p.kept = append(p.kept, m)
		} else {
			p.dropped = append(p.dropped, m)
		}
	}
	if len(p.dropped) == 0 {
		return plan{}, ErrNothingToCompact
	}
	return p, nil
}
