package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reasonix/reasonix/agent/provider"
)

// truncation looks at the calls of a response the output limit cut off
// (finish_reason "length"). A call whose arguments are not JSON is
// repaired in msg when closeJSON can close them and the tool's required
// arguments are all there; otherwise it is marked, and dispatch tells the
// model its arguments were cut off and to send them in smaller pieces.
func (t *turn) truncation(msg *provider.Message, finish string) {
	if t.a.NoRepair || finish != "length" {
		return
	}
	for i := range msg.ToolCalls {
		c := &msg.ToolCalls[i]
		if json.Valid([]byte(c.Arguments)) {
			continue
		}
		schema, offered := t.offered(c.Name)
		if fixed, ok := closeJSON(c.Arguments); offered && ok && hasArgs(fixed, requiredArgs(schema)) {
			c.Arguments = fixed
			t.repaired(repairTruncation, "closed the arguments of %s, cut off at the output limit", DescribeCall(c.Name, json.RawMessage(fixed)))
			continue
		}
		if t.cutOff == nil {
			t.cutOff = map[string]bool{}
		}
		t.cutOff[c.ID] = true
		t.repaired(repairTruncation, "the arguments of %s were cut off at the output limit after %d bytes; asked for them again in smaller pieces", c.Name, len(c.Arguments))
	}
}

// cutOffResult is what the model reads for a call whose arguments the
// output limit cut off beyond repair.
func cutOffResult(c provider.ToolCall) string {
	return fmt.Sprintf("Not run: the arguments of this %s call were cut off at your output limit (finish_reason \"length\") after %d bytes. "+
		"Send the call again in smaller pieces: for a large file, write a first part with write_file and add the rest with further edits; for many edits, use several calls.",
		c.Name, len(c.Arguments))
}

// closeJSON closes JSON text that was cut off, when that loses nothing
// that was sent: it appends the brackets and braces still open, after a
// complete value or an empty container. It refuses (false) when the cut
// falls inside a string (closing it would, say, write half a file as if
// it were the whole), a number (12 may have been 125), a literal, or
// after a key, a colon or a comma (a value was on its way).
func closeJSON(s string) (string, bool) {
	type level struct {
		obj     bool
		wantKey bool // in an object: the next string is a key
	}
	var stack []level
	inStr, esc, strIsKey := false, false, false
	last := byte(0)  // the last significant byte outside strings
	lastKey := false // the last string closed was a key
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == '"':
				inStr, last, lastKey = false, '"', strIsKey
			}
			continue
		}
		switch ch {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inStr = true
			strIsKey = len(stack) > 0 && stack[len(stack)-1].obj && stack[len(stack)-1].wantKey
			if strIsKey {
				stack[len(stack)-1].wantKey = false
			}
		case '{':
			stack = append(stack, level{obj: true, wantKey: true})
		case '[':
			stack = append(stack, level{})
		case '}', ']':
			if len(stack) == 0 {
				return "", false
			}
			stack = stack[:len(stack)-1]
		case ',':
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].wantKey = true
			}
		}
		last = ch
	}
	if inStr || len(stack) == 0 {
		return "", false
	}
	trimmed := strings.TrimRight(s, " \t\n\r")
	switch {
	case last == '"' && !lastKey, last == '}', last == ']', last == '{', last == '[':
	case strings.HasSuffix(trimmed, "true"), strings.HasSuffix(trimmed, "false"), strings.HasSuffix(trimmed, "null"):
		// A whole literal; "nul" or "tru" fall through to the refusal.
	default:
		return "", false
	}
	var b strings.Builder
	b.WriteString(trimmed)
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i].obj {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	}
	if !json.Valid([]byte(b.String())) {
		return "", false
	}
	return b.String(), true
}
