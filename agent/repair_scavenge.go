package agent

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/reasonix/reasonix/agent/provider"
)

// maxScavenges bounds the responses of one turn whose calls are
// scavenged, so a model that never learns to use tool_calls still ends
// its turn.
const maxScavenges = 4

// The forms a call written as text takes. A tool_call element and a JSON
// fence hold {"name": …, "arguments": …}; a function element names the
// tool and holds the arguments.
var (
	toolCallElem = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*</tool_call>`)
	functionElem = regexp.MustCompile(`(?s)<function=([A-Za-z0-9_.:-]+)>\s*(.*?)\s*</function>`)
	jsonFence    = regexp.MustCompile("(?s)```(?:json)?[ \t]*\n(.*?)\n?```")
)

// scavenge recovers the tool calls a model wrote in its answer, or else
// in its reasoning, instead of in tool_calls, when the response has none.
// A call counts only when it names a tool the session offers and its
// arguments are a JSON object. Recovered calls go into msg's tool_calls,
// and their markup out of its answer, so that the log the next request
// replays is what a model that called them properly would have sent.
func (t *turn) scavenge(msg *provider.Message) {
	if t.a.NoRepair || len(msg.ToolCalls) > 0 || t.scavenged >= maxScavenges {
		return
	}
	where := "answer"
	calls, rest := t.findCalls(msg.Content)
	if len(calls) == 0 {
		// The reasoning is replayed as it was: only calls move.
		where = "reasoning"
		calls, _ = t.findCalls(msg.Reasoning)
		rest = msg.Content
	}
	if len(calls) == 0 {
		return
	}
	t.scavenged++
	names := make([]string, len(calls))
	for i := range calls {
		calls[i].ID = fmt.Sprintf("call_scavenged_%d_%d_%d", t.n, t.steps, i)
		names[i] = calls[i].Name
	}
	msg.ToolCalls = calls
	msg.Content = strings.TrimSpace(rest)
	t.repaired(repairScavenge, "recovered %d call(s) (%s) the model wrote in its %s instead of calling", len(calls), strings.Join(names, ", "), where)
}

// foundCall is a call written in text at [start, end).
type foundCall struct {
	start, end int
	call       provider.ToolCall
}

// findCalls returns the calls written in text, in order, and text without
// them.
func (t *turn) findCalls(text string) ([]provider.ToolCall, string) {
	var all []foundCall
	add := func(start, end int, c provider.ToolCall, ok bool) {
		if ok {
			all = append(all, foundCall{start, end, c})
		}
	}
	for _, m := range toolCallElem.FindAllStringSubmatchIndex(text, -1) {
		c, ok := t.callObject(text[m[2]:m[3]])
		add(m[0], m[1], c, ok)
	}
	for _, m := range functionElem.FindAllStringSubmatchIndex(text, -1) {
		c, ok := t.namedCall(text[m[2]:m[3]], json.RawMessage(cmp.Or(strings.TrimSpace(text[m[4]:m[5]]), "{}")))
		add(m[0], m[1], c, ok)
	}
	for _, m := range jsonFence.FindAllStringSubmatchIndex(text, -1) {
		c, ok := t.callObject(text[m[2]:m[3]])
		add(m[0], m[1], c, ok)
	}
	// A bare object, anywhere else.
	for i := 0; i < len(text); i++ {
		if text[i] != '{' || inside(all, i) {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			continue
		}
		end := i + int(dec.InputOffset())
		if c, ok := t.callObject(string(raw)); ok {
			all = append(all, foundCall{i, end, c})
			i = end - 1
		}
	}
	if len(all) == 0 {
		return nil, text
	}
	sort.Slice(all, func(a, b int) bool { return all[a].start < all[b].start })
	var calls []provider.ToolCall
	var rest strings.Builder
	at := 0
	for _, f := range all {
		if f.start < at {
			continue // inside one already taken
		}
		rest.WriteString(text[at:f.start])
		calls = append(calls, f.call)
		at = f.end
	}
	rest.WriteString(text[at:])
	return calls, rest.String()
}

// inside reports whether position i falls in a call already found.
func inside(all []foundCall, i int) bool {
	for _, f := range all {
		if i >= f.start && i < f.end {
			return true
		}
	}
	return false
}

// callObject reads {"name": …, "arguments": …} (or "parameters").
func (t *turn) callObject(body string) (provider.ToolCall, bool) {
	var o struct {
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(body)), &o) != nil {
		return provider.ToolCall{}, false
	}
	args := o.Arguments
	if args == nil {
		args = o.Parameters
	}
	var s string
	if json.Unmarshal(args, &s) == nil {
		args = json.RawMessage(s) // arguments as a JSON string, as on the wire
	}
	return t.namedCall(o.Name, args)
}

// namedCall is a call of name with args, if name is offered and args is a
// JSON object.
func (t *turn) namedCall(name string, args json.RawMessage) (provider.ToolCall, bool) {
	if _, ok := t.offered(name); !ok {
		return provider.ToolCall{}, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || m == nil {
		return provider.ToolCall{}, false
	}
	var b bytes.Buffer
	json.Compact(&b, args)
	return provider.ToolCall{Name: name, Arguments: b.String()}, true
}
