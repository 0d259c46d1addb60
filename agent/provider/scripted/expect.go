package scripted

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// expectation is one "expect" line: a condition the request answered by its
// step must meet.
type expectation struct {
	kind string // user, system, tool, tools or request
	arg  string
	line int
}

func parseExpect(line int, rest string) (expectation, error) {
	kind, arg := cutWord(rest)
	switch kind {
	case "user", "system", "tool", "request":
	case "tools":
		arg = strings.TrimSpace(arg)
	default:
		return expectation{}, fmt.Errorf("expect needs user, system, tool, tools or request, got %q", kind)
	}
	if arg == "" {
		return expectation{}, fmt.Errorf("expect %s needs an argument", kind)
	}
	return expectation{kind: kind, arg: arg, line: line}, nil
}

// check reports why req does not meet e, or "" when it does.
func (e expectation) check(req *chatRequest, body []byte) string {
	switch e.kind {
	case "user":
		last, ok := req.lastUser()
		if !ok {
			return fmt.Sprintf("expected a user message containing %q, but the request has none", e.arg)
		}
		if !strings.Contains(last, e.arg) {
			return fmt.Sprintf("expected the last user message to contain %q, it is %s", e.arg, excerpt(last))
		}
	case "system":
		for _, m := range req.Messages {
			if m.Role == "system" {
				if !strings.Contains(m.Content, e.arg) {
					return fmt.Sprintf("expected the first system message to contain %q, it is %s", e.arg, excerpt(m.Content))
				}
				return ""
			}
		}
		return fmt.Sprintf("expected a system message containing %q, but the request has none", e.arg)
	case "tool":
		var seen []string
		for _, m := range req.Messages[req.lastAssistant()+1:] {
			if m.Role != "tool" {
				continue
			}
			if strings.Contains(m.Content, e.arg) {
				return ""
			}
			seen = append(seen, excerptN(m.Content, 1000))
		}
		if len(seen) == 0 {
			return fmt.Sprintf("expected a tool message after the last assistant message containing %q, but there is none", e.arg)
		}
		return fmt.Sprintf("expected a tool message after the last assistant message containing %q; they are %s", e.arg, strings.Join(seen, ", "))
	case "tools":
		var names []string
		for _, t := range req.Tools {
			if t.Function.Name == e.arg {
				return ""
			}
			names = append(names, t.Function.Name)
		}
		return fmt.Sprintf("expected the request to offer tool %q, it offers [%s]", e.arg, strings.Join(names, ", "))
	case "request":
		if !bytes.Contains(body, []byte(e.arg)) {
			return fmt.Sprintf("expected the request body to contain %q", e.arg)
		}
	}
	return ""
}

// applies reports whether the step's match lines all hold for req.
func (st *step) applies(req *chatRequest) bool {
	if len(st.matches) == 0 {
		return true
	}
	last, ok := req.lastUser()
	if !ok {
		return false
	}
	for _, m := range st.matches {
		if !strings.Contains(last, m) {
			return false
		}
	}
	return true
}

// excerpt quotes s for an error message, shortened so one huge message
// cannot drown the explanation.
func excerpt(s string) string { return excerptN(s, 200) }

// excerptN quotes s, cut to about max bytes.
func excerptN(s string, max int) string {
	if len(s) <= max {
		return fmt.Sprintf("%q", s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", s[:cut])
}
