package agent

import (
	"fmt"

	"github.com/reasonix/reasonix/agent/provider"
)

// stormWindow is how many of the turn's latest calls a repeat is looked
// for in.
const stormWindow = 6

// A storm is a model calling the same tool with the same arguments again
// and again, getting the same answer each time. The rule:
//
//   - A call repeats an earlier one when the tool is the same and the
//     arguments are equal once canonical (key order and spacing aside).
//   - Only the turn's last stormWindow calls count, suppressed ones
//     included.
//   - A call that may change something (any tool that is not read-only,
//     bash included) ends what came before: after it, a read may see a
//     different file and a command a different result, so repeating an
//     earlier call is legitimate again. The changing call itself stays in
//     the window, so running the same command twice in a row is a storm.
//
// A repeat is not run; its result tells the model what the earlier call
// returned and to do something different or answer.
type storm struct {
	seen []stormCall // calls since the last change, oldest first
	n    int         // calls of the turn so far
}

type stormCall struct {
	key string
	at  int // the call's number in the turn
	// result is the earlier call's result, or res points at it while
	// the response it belongs to is being run.
	result string
	res    *provider.Message
}

// stormHit is a repeat found by check: ago calls after the call it
// repeats.
type stormHit struct {
	ago  int
	orig *stormCall
}

// check decides, for the calls of one response in order, which repeat an
// earlier call; results are where their results will be, for later calls
// to quote.
func (st *storm) check(calls []provider.ToolCall, results []provider.Message, readOnly func(provider.ToolCall) bool) []*stormHit {
	hits := make([]*stormHit, len(calls))
	for i, c := range calls {
		key := c.Name + "\x00" + canonicalArgs(c.Arguments)
		for k := len(st.seen) - 1; k >= 0; k-- {
			e := &st.seen[k]
			if st.n-e.at > stormWindow-1 {
				break
			}
			if e.key == key {
				o := *e // seen may be cut and reused below
				hits[i] = &stormHit{ago: st.n - e.at, orig: &o}
				break
			}
		}
		if hits[i] == nil {
			e := stormCall{key: key, at: st.n, res: &results[i]}
			if !readOnly(c) {
				st.seen = st.seen[:0]
			}
			st.seen = append(st.seen, e)
		}
		st.n++
	}
	return hits
}

// settle records the results of the calls that ran, once they have.
func (st *storm) settle() {
	for k := range st.seen {
		if e := &st.seen[k]; e.res != nil {
			e.result, e.res = e.res.Content, nil
		}
	}
}

// stormResult is what the model reads in place of a repeated call's result.
func stormResult(c provider.ToolCall, h *stormHit) string {
	prev := h.orig.result
	if h.orig.res != nil {
		prev = h.orig.res.Content
	}
	calls := "calls"
	if h.ago == 1 {
		calls = "call"
	}
	return fmt.Sprintf("Not run: you already called %s with these arguments %d %s ago and got:\n%s\n\nCalling it again will not change that. Do something different, or answer.",
		c.Name, h.ago, calls, abbreviate(prev, 600))
}
