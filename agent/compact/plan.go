package compact

import (
	"errors"

	"github.com/reasonix/reasonix/agent/provider"
)

// Budgets are a compaction's limits, in estimated tokens.
type Budgets struct {
	// Window is the model's context window.
	Window int
	// Tail bounds the recent messages kept as they are (the last message
	// group is kept whatever its size).
	Tail int
	// Pinned bounds the kept messages of the fold region together: user
	// messages and earlier digests.
	Pinned int
	// UserMax is the largest user message kept verbatim: a normal-sized
	// turn. A longer one (a pasted file) is folded like tool output.
	UserMax int
	// Summary bounds the summary the model writes (its max_tokens).
	Summary int
}

// Compaction limits. See docs/ARCHITECTURE.md, "Compaction".
const (
	// userMaxTokens bounds a normal-sized user turn, unless a sixteenth
	// of the window is less.
	userMaxTokens = 2000
	// summaryMinTokens and summaryMaxTokens bound the summary's length.
	summaryMinTokens = 512
	summaryMaxTokens = 4096
	// DefaultPlanWindow is the window a compaction asked for by hand
	// plans with when the model's is not configured.
	DefaultPlanWindow = 128_000
)

// NewBudgets derives the limits from the window, the compaction ratio and
// the size of the fixed prefix (system message and tool schemas): of
// what the conversation may grow to before the next compaction (avail),
// an eighth is kept as the tail and two thirds may hold the kept user
// messages and digests — hundreds of user turns in a 32k window, beside a
// prefix of twenty tools — so a compaction always frees about a fifth.
func NewBudgets(window int, ratio float64, prefix int) Budgets {
	trigger := int(ratio * float64(window))
	avail := max(trigger-prefix, 0)
	return Budgets{
		Window:  window,
		Tail:    avail / 8,
		Pinned:  avail * 2 / 3,
		UserMax: min(userMaxTokens, window/16),
		Summary: min(max(avail/8, summaryMinTokens), summaryMaxTokens),
	}
}

// A Plan is what one compaction keeps, folds and drops.
type Plan struct {
	// Fold is the fold region: what the summary covers, in order.
	Fold []provider.Message
	// Kept are the messages of the fold region kept verbatim, in order.
	Kept []provider.Message
	// Dropped are the others: they go to the archive.
	Dropped []provider.Message
	// Tail is kept as it is, after the digest.
	Tail []provider.Message
	// KeptAt and DroppedAt are the indices in the history planned from
	// of Kept's and Dropped's messages; TailAt is where Tail starts.
	KeptAt, DroppedAt []int
	TailAt            int
}

// ErrNothingToCompact says a compaction would free nothing: the history is
// only the system message, kept messages and the tail.
var ErrNothingToCompact = errors.New("nothing to compact: the history holds only kept messages and the latest work")

// NewPlan splits msgs (msgs[0] is the system message) into what a
// compaction keeps and folds.
//
// The boundary between the fold region and the tail is the earliest
// message whose tail fits b.Tail, moved later until the tail starts with a
// user or assistant message: a tail never opens with a tool result whose
// call was folded away (an orphan the provider would reject). When the
// tail holds a user message it starts at the first one, so it never opens
// with the end of an earlier turn. The tail
// always holds at least the last such message and what follows it — the
// prompt of the turn about to run, or the last tool call and its results
// in the middle of one — so a request never ends with the digest.
//
// In the fold region, user messages of at most b.UserMax tokens and
// earlier digests are kept. If together they exceed b.Pinned, the oldest
// digests are folded into the new one first (a digest of digests), then
// the oldest user messages: the only case where a user's own words are
// summarised, and they are still in the archive.
func NewPlan(msgs []provider.Message, k Sizer, b Budgets) (Plan, error) {
	n := len(msgs)
	last := n - 1 // the tail's latest possible start
	for last > 1 && msgs[last].Role == provider.RoleTool {
		last--
	}
	if last <= 1 {
		return Plan{}, ErrNothingToCompact
	}
	start, size := last, k.OfAll(msgs[last:])
	for i := last - 1; i > 1; i-- {
		size += k.Of(msgs[i])
		if size > b.Tail {
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
	p := Plan{Fold: msgs[1:start], Tail: msgs[start:], TailAt: start}

	keep := make([]bool, len(p.Fold))
	pinned := 0
	for i, m := range p.Fold {
		if m.Digest || (m.Role == provider.RoleUser && k.Of(m) <= b.UserMax) {
			keep[i] = true
			pinned += k.Of(m)
		}
	}
	// Over budget: unpin the oldest digests, then the oldest user turns.
	for _, digests := range []bool{true, false} {
		for i := 0; i < len(p.Fold) && pinned > b.Pinned; i++ {
			if keep[i] && p.Fold[i].Digest == digests {
				keep[i] = false
				pinned -= k.Of(p.Fold[i])
			}
		}
	}
	for i, m := range p.Fold {
		if keep[i] {
			p.Kept, p.KeptAt = append(p.Kept, m), append(p.KeptAt, 1+i)
		} else {
			p.Dropped, p.DroppedAt = append(p.Dropped, m), append(p.DroppedAt, 1+i)
		}
	}
	if len(p.Dropped) == 0 {
		return Plan{}, ErrNothingToCompact
	}
	return p, nil
}
