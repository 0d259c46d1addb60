package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/txtar"
)

// Script is a parsed model script: the ordered steps a Server answers with.
// A Script is never changed after parsing; each Server keeps its own record
// of which steps it has consumed, so one Script can back several servers.
type Script struct {
	steps []step
}

// Len is the number of steps in the script.
func (s *Script) Len() int { return len(s.steps) }

// step is one scripted response and the conditions for giving it.
type step struct {
	num  int // 1-based position in the script
	line int // line of the step's first directive

	reasoning []string // lines, joined with "\n" when sent
	text      []string
	calls     []call
	finish    string
	delay     time.Duration

	matches []string
	expects []expectation
	fault   fault
}

func (st *step) reasoningText() string { return strings.Join(st.reasoning, "\n") }
func (st *step) contentText() string   { return strings.Join(st.text, "\n") }

// finishReason is the finish_reason the step reports.
func (st *step) finishReason() string {
	switch {
	case st.finish != "":
		return st.finish
	case len(st.calls) > 0:
		return "tool_calls"
	default:
		return "stop"
	}
}

// callID is the id of the step's n-th call. Each step is consumed at most
// once per server, so the ids are unique per server.
func (st *step) callID(n int) string { return fmt.Sprintf("call_%d_%d", st.num, n) }

type call struct {
	name string
	args string // the arguments text exactly as it is sent
}

type faultKind int

const (
	faultNone      faultKind = iota
	faultStatus              // answer with an HTTP error status
	faultDrop                // stream part, then close the connection
	faultMalformed           // stream a few chunks, then one that is not JSON
	faultTruncate            // stream the content, end without finishing
)

type fault struct {
	kind       faultKind
	line       int
	status     int    // faultStatus only
	retryAfter int    // seconds for the Retry-After header; 0 for none
	message    string // overrides the default error message
}

// String names the fault as it is written in a script.
func (f fault) String() string {
	switch f.kind {
	case faultStatus:
		return strconv.Itoa(f.status)
	case faultDrop:
		return "drop"
	case faultMalformed:
		return "malformed"
	case faultTruncate:
		return "truncate"
	}
	return ""
}

// ParseArchive parses the "model" section of a txtar scenario archive.
// Line numbers in errors count from the top of the archive.
func ParseArchive(data []byte) (*Script, error) {
	a := txtar.Parse(data)
	line := 1 + bytes.Count(a.Comment, []byte("\n"))
	var model *txtar.File
	first := 0
	for i := range a.Files {
		f := &a.Files[i]
		if f.Name == "model" {
			if model != nil {
				return nil, fmt.Errorf("scripted: line %d: second model section", line)
			}
			model, first = f, line+1
		}
		line += 1 + bytes.Count(f.Data, []byte("\n"))
	}
	if model == nil {
		return nil, errors.New("scripted: archive has no model section")
	}
	return parse(model.Data, first)
}

// Parse parses a bare script.
func Parse(text []byte) (*Script, error) { return parse(text, 1) }

func parse(text []byte, firstLine int) (*Script, error) {
	p := parser{cur: step{num: 1}}
	for i, line := range strings.Split(string(text), "\n") {
		n := firstLine + i
		line = strings.TrimSuffix(line, "\r")
		if line == "---" {
			if err := p.endStep(); err != nil {
				return nil, err
			}
			continue
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if err := p.directive(n, strings.TrimLeft(line, " \t")); err != nil {
			return nil, fmt.Errorf("scripted: line %d: %w", n, err)
		}
	}
	if err := p.endStep(); err != nil {
		return nil, err
	}
	if len(p.steps) == 0 {
		return nil, errors.New("scripted: script has no steps")
	}
	return &Script{steps: p.steps}, nil
}

type parser struct {
	steps []step
	cur   step
	// Lines of the directives that may appear once per step, for errors.
	finishLine, delayLine int
}

// endStep closes the current step. A step with no directives (two "---" in
// a row, or a trailing "---") is skipped rather than being an error.
func (p *parser) endStep() error {
	st := p.cur
	if st.line == 0 {
		return nil
	}
	if st.fault.kind == faultStatus && (len(st.text) > 0 || len(st.reasoning) > 0 || len(st.calls) > 0 || st.finish != "") {
		return fmt.Errorf("scripted: line %d: fault %d answers with an HTTP error; its step cannot also have text, reasoning, call or finish", st.fault.line, st.fault.status)
	}
	p.steps = append(p.steps, st)
	p.cur = step{num: len(p.steps) + 1}
	p.finishLine, p.delayLine = 0, 0
	return nil
}

// directive adds one directive line to the current step.
func (p *parser) directive(n int, line string) error {
	st := &p.cur
	if st.line == 0 {
		st.line = n
	}
	name, rest := cutWord(line)
	switch name {
	case "reasoning":
		st.reasoning = append(st.reasoning, rest)
	case "text":
		st.text = append(st.text, rest)
	case "call":
		fname, args := cutWord(rest)
		if fname == "" {
			return errors.New("call needs a tool name")
		}
		args = strings.TrimSpace(args)
		if args == "" {
			args = "{}"
		}
		if !json.Valid([]byte(args)) {
			return fmt.Errorf("call %s: arguments are not valid JSON: %s", fname, args)
		}
		st.calls = append(st.calls, call{name: fname, args: args})
	case "call-raw":
		fname, args := cutWord(rest)
		if fname == "" {
			return errors.New("call-raw needs a tool name")
		}
		st.calls = append(st.calls, call{name: fname, args: args})
	case "finish":
		if p.finishLine != 0 {
			return fmt.Errorf("second finish in one step (first on line %d)", p.finishLine)
		}
		reason := strings.TrimSpace(rest)
		if reason == "" || strings.ContainsAny(reason, " \t") {
			return fmt.Errorf("finish needs one word, got %q", rest)
		}
		st.finish, p.finishLine = reason, n
	case "delay":
		if p.delayLine != 0 {
			return fmt.Errorf("second delay in one step (first on line %d)", p.delayLine)
		}
		d, err := time.ParseDuration(strings.TrimSpace(rest))
		if err != nil || d < 0 {
			return fmt.Errorf("delay needs a non-negative Go duration such as 50ms, got %q", rest)
		}
		st.delay, p.delayLine = d, n
	case "match":
		if rest == "" {
			return errors.New("match needs a substring")
		}
		st.matches = append(st.matches, rest)
	case "expect":
		e, err := parseExpect(n, rest)
		if err != nil {
			return err
		}
		st.expects = append(st.expects, e)
	case "fault":
		if st.fault.kind != faultNone {
			return fmt.Errorf("second fault in one step (first on line %d)", st.fault.line)
		}
		f, err := parseFault(rest)
		if err != nil {
			return err
		}
		f.line = n
		st.fault = f
	default:
		return fmt.Errorf("unknown directive %q", name)
	}
	return nil
}

func parseFault(rest string) (fault, error) {
	word, more := cutWord(rest)
	switch word {
	case "drop", "malformed", "truncate":
		if strings.TrimSpace(more) != "" {
			return fault{}, fmt.Errorf("fault %s takes no arguments", word)
		}
		kind := map[string]faultKind{"drop": faultDrop, "malformed": faultMalformed, "truncate": faultTruncate}[word]
		return fault{kind: kind}, nil
	}
	status, err := strconv.Atoi(word)
	if err != nil || status < 400 || status > 599 {
		return fault{}, fmt.Errorf("fault needs an HTTP status 400-599, drop, malformed or truncate, got %q", word)
	}
	f := fault{kind: faultStatus, status: status}
	if opt, after := cutWord(more); strings.HasPrefix(opt, "retry-after=") {
		secs, err := strconv.Atoi(strings.TrimPrefix(opt, "retry-after="))
		if err != nil || secs < 0 {
			return fault{}, fmt.Errorf("retry-after needs whole seconds, got %q", opt)
		}
		f.retryAfter, more = secs, after
	}
	f.message = strings.TrimSpace(more)
	return f, nil
}

// cutWord splits s at its first space or tab. The rest keeps everything
// after that one separator, so text can start with spaces.
func cutWord(s string) (word, rest string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}
