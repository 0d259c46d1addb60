package agent

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
)

// Tool-call repair: passes that catch the ways a model's tool calls go
// wrong before they cost a step or end a turn. Each pass is on unless
// Agent.NoRepair is set, and each reports what it did as an EventRepair
// and a log line:
//
//   - storm (repair_storm.go): a call that repeats one the turn just made
//     is not run again; the model is told so.
//   - scavenge (repair_scavenge.go): a call written in the answer or the
//     reasoning instead of tool_calls is recovered and run.
//   - truncation (repair_truncation.go): arguments cut off at the output
//     limit are closed when nothing was lost, else the model is asked to
//     send them again in smaller pieces.
//   - flatten (tools/flatten.go): a tool whose schema the registry shows
//     flattened has its call's dotted arguments re-nested before it runs.
//     The schema is the registry's, part of the cached prefix, so this
//     pass is always on.

// Repair pass names, as EventRepair's Text begins and the log says.
const (
	repairStorm      = "storm"
	repairScavenge   = "scavenge"
	repairTruncation = "truncation"
	repairFlatten    = "flatten"
)

// repaired reports that pass fired: an event for the user, a log line for
// whoever reads the logs.
func (t *turn) repaired(pass, format string, args ...any) {
	what := fmt.Sprintf(format, args...)
	slog.Info("tool-call repair", "pass", pass, "session", t.s.ID, "turn", t.n, "step", t.steps, "what", what)
	t.event(Event{Kind: EventRepair, Text: pass + ": " + what, Repair: pass})
}

// canonicalArgs renders a call's arguments so that equal values compare
// equal whatever their spacing or key order; text that is not JSON is
// compared as sent, trimmed.
func canonicalArgs(args string) string {
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return strings.TrimSpace(args)
	}
	b, _ := json.Marshal(v) // maps marshal with sorted keys
	return string(b)
}

// requiredArgs lists the required properties of a tool's schema.
func requiredArgs(schema json.RawMessage) []string {
	var s struct {
		Required []string `json:"required"`
	}
	json.Unmarshal(schema, &s)
	return s.Required
}

// hasArgs reports whether args, a JSON object, holds every name.
func hasArgs(args string, names []string) bool {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		return false
	}
	for _, n := range names {
		if _, ok := m[n]; !ok {
			return false
		}
	}
	return true
}

// offered reports whether name is a tool the session offers, and its
// schema.
func (t *turn) offered(name string) (json.RawMessage, bool) {
	tool, ok := t.s.tools.Get(name)
	if !ok {
		return nil, false
	}
	return tool.Schema(), true
}
