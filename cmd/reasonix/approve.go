package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

// termApprover asks on the terminal. Prompts are serialised: parallel
// calls wait their turn.
type termApprover struct {
	in io.Reader
	r  *renderer
	// edits, when set, gives the file edits a call would make, for the
	// question to show as a diff (previewEdits).
	edits func(tool string, args json.RawMessage) []tools.FileEdit

	mu sync.Mutex // serialises prompts and guards the fields below
	br *bufio.Reader
	// line receives the answer a read started by readLine gets; reading
	// is set while that read is pending.
	line    chan lineRead
	reading bool
}

// lineRead is one line read from the terminal, or why none was.
type lineRead struct {
	s   string
	err error
}

func (t *termApprover) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.br == nil {
		t.br = bufio.NewReader(t.in)
	}
	t.r.mu.Lock()
	// Every line shows what the model wrote (a command, a note), made
	// visible: an escape sequence in it must not hide or erase the rest.
	var change *shownChange
	var question string
	if p.Escalation != "" {
		t.r.line(fmt.Sprintf("? the shell sandbox may have blocked: %s\n  (%s)", describeArgs(p), permission.Visible(p.Escalation)))
		question = "  run it again outside the sandbox, this once? [y] yes  [n] no: "
	} else if p.AlwaysAsk {
		// Nothing is remembered: the user approves this change alone.
		what := p.Tool + " " + describeArgs(p)
		if p.Preview != "" {
			what = agent.DescribeCall(p.Tool, p.Args) // the preview says the rest
		}
		t.r.line(fmt.Sprintf("? %s\n  (%s)", what, permission.Visible(p.Why)))
		change = t.change(p)
		question = "  allow this call, this once? [y] yes  [n] no: "
	} else {
		t.r.line(fmt.Sprintf("? %s %s", p.Tool, describeArgs(p)))
		change = t.change(p)
		question = fmt.Sprintf("  allow? [y] once  [s] %s for this session  [a] always, saved to reasonix.toml  [n] no: ", permission.Visible(p.Scope))
	}
	if change != nil {
		change.show(t.r)
	}
	fmt.Fprint(t.r.err, question)
	t.r.mu.Unlock()
	for {
		ans, err := t.readLine(ctx)
		if err != nil {
			return permission.AnswerDeny, err
		}
		switch strings.ToLower(strings.TrimSpace(ans)) {
		case "y", "yes", "o", "once":
			return permission.AnswerOnce, nil
		case "s", "session":
			return permission.AnswerSession, nil
		case "a", "always":
			return permission.AnswerAlways, nil
		case "n", "no", "d", "deny", "":
			return permission.AnswerDeny, nil
		case "v", "view":
			if change != nil {
				t.r.mu.Lock()
				change.showWhole(ctx, t.r)
				fmt.Fprint(t.r.err, question)
				t.r.mu.Unlock()
				continue
			}
		}
		fmt.Fprint(t.r.err, "  please answer y, s, a or n: ")
	}
}

// Confirm asks a yes-or-no question, whose text the caller has shown,
// ending with prompt; anything but yes is no.
func (t *termApprover) Confirm(ctx context.Context, prompt string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.br == nil {
		t.br = bufio.NewReader(t.in)
	}
	fmt.Fprint(t.r.err, prompt)
	ans, err := t.readLine(ctx)
	if err != nil {
		fmt.Fprintln(t.r.err)
		return false
	}
	switch strings.ToLower(strings.TrimSpace(ans)) {
	case "y", "yes":
		return true
	}
	return false
}

// readLine reads one answer, giving up when ctx ends. The pending read
// stays with the approver and serves the next prompt. Nothing is read
// ahead of a question: between questions the terminal is free for
// another program to read (a pager showing a change).
func (t *termApprover) readLine(ctx context.Context) (string, error) {
	if t.line == nil {
		t.line = make(chan lineRead, 1)
	}
	if !t.reading {
		t.reading = true
		go func() {
			s, err := t.br.ReadString('\n')
			t.line <- lineRead{s, err}
		}()
	}
	select {
	case l := <-t.line:
		t.reading = false
		if l.err != nil && l.s == "" {
			return "", l.err
		}
		return l.s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// describeArgs is the subject of a call in a question: its command, its
// path, or its arguments, with what would disguise them made visible.
func describeArgs(p permission.Prompt) string {
	s := strings.TrimSpace(string(p.Args))
	var m map[string]any
	if err := json.Unmarshal(p.Args, &m); err == nil {
		if c, ok := m["command"].(string); ok {
			return permission.Visible(c)
		}
		if path, ok := m["path"].(string); ok {
			return permission.Visible(path)
		}
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return permission.Visible(s)
}

// ApprovePlan shows the plan and asks whether to carry it out. Anything
// other than yes is feedback that keeps the agent planning.
func (t *termApprover) ApprovePlan(ctx context.Context, sessionID, plan string) (bool, string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.br == nil {
		t.br = bufio.NewReader(t.in)
	}
	t.r.mu.Lock()
	if plan = strings.TrimSpace(plan); strings.HasSuffix(t.r.lastNotice, "\n"+plan) {
		// The planner's notice has just shown it.
		fmt.Fprint(t.r.err, "? carry out this plan? [y] yes, or type what to change: ")
		t.r.lastNotice = ""
	} else {
		t.r.line("? The plan:\n\n" + permission.Visible(plan) + "\n")
		fmt.Fprint(t.r.err, "  carry it out? [y] yes, or type what to change: ")
	}
	t.r.mu.Unlock()
	ans, err := t.readLine(ctx)
	if err != nil {
		return false, "", err
	}
	ans = strings.TrimSpace(ans)
	switch strings.ToLower(ans) {
	case "y", "yes":
		return true, "", nil
	case "", "n", "no":
		return false, "", nil
	}
	return false, ans, nil
}

// Ask puts the model's question on the terminal: the options numbered,
// answered by number or in the user's own words; an empty line is no
// answer.
func (t *termApprover) Ask(ctx context.Context, q tools.Question) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.br == nil {
		t.br = bufio.NewReader(t.in)
	}
	var b strings.Builder
	// The model wrote the question and its options: shown, not obeyed.
	fmt.Fprintf(&b, "? %s", shown(strings.TrimSpace(q.Question)))
	for i, o := range q.Options {
		fmt.Fprintf(&b, "\n  [%d] %s", i+1, shown(o))
	}
	t.r.mu.Lock()
	t.r.line(b.String())
	fmt.Fprint(t.r.err, "  answer with a number, or type your own answer: ")
	t.r.mu.Unlock()
	ans, err := t.readLine(ctx)
	if err != nil {
		return "", err
	}
	ans = strings.TrimSpace(ans)
	if n, err := strconv.Atoi(ans); err == nil && n >= 1 && n <= len(q.Options) {
		return q.Options[n-1], nil
	}
	return ans, nil
}

// refusals reports the calls an unattended run refused because they
// needed approval and no one could be asked: a line for each as it
// happens, with how to allow such a call the first time it applies (a CI
// log that refuses twenty calls says so once), and at the end a summary
// with the allow rules that would have let them run.
type refusals struct {
	r *renderer

	mu      sync.Mutex // guards the fields below
	count   int
	advised map[permission.Posture]bool // kinds of refusal already explained
	// rules are the allow rules that would have let the calls that only
	// needed approval run, without repeats; plain counts those calls.
	rules []string
	plain int
}

func newRefusals(r *renderer) *refusals {
	return &refusals{r: r, advised: map[permission.Posture]bool{}}
}

func (f *refusals) refused(x permission.Refusal) {
	f.mu.Lock()
	f.count++
	first := !f.advised[x.Posture]
	f.advised[x.Posture] = true
	if x.Posture == permission.PostureAuto {
		f.plain++
		if x.Allow != "" && !slices.Contains(f.rules, x.Allow) {
			f.rules = append(f.rules, x.Allow)
		}
	}
	f.mu.Unlock()

	msg := fmt.Sprintf("refused %s — %s", quotedCall(x.Tool, x.Args), x.Why)
	switch {
	case first:
		msg += ", and no one can be asked here; " + howToAllow(x)
	case x.Allow != "":
		msg += " (allow rule: " + x.Allow + ")"
	}
	f.r.notice(msg)
}

// howToAllow says what lets a refused call run next time.
func howToAllow(x permission.Refusal) string {
	switch x.Posture {
	case permission.PostureAuto:
		if x.Allow == "" {
			return "allow it with --approval auto, or run in a terminal"
		}
		return "allow it with --approval auto, a [permissions] allow rule such as " + x.Allow + ", or run in a terminal"
	case permission.PostureYolo:
		return "run in a terminal to approve it, or pass --approval yolo to let ask rules through"
	}
	return "run in a terminal to approve it"
}

// summary ends the report, where a log's reader looks last.
func (f *refusals) summary() {
	f.mu.Lock()
	count, plain, rules := f.count, f.plain, f.rules
	f.mu.Unlock()
	if count == 0 {
		return
	}
	msg := fmt.Sprintf("%s were refused because no one could approve them", plural(count, "call"))
	if count == 1 {
		msg = "1 call was refused because no one could approve it"
	}
	if plain > 0 {
		which := "to allow it"
		switch {
		case plain < count:
			which = fmt.Sprintf("to allow the %d that needed only approval", plain)
		case count > 1:
			which = "to allow them"
		}
		msg += "; " + which + ", pass --approval auto"
		if len(rules) > 0 {
			quoted := make([]string, len(rules))
			for i, r := range rules {
				quoted[i] = strconv.Quote(r)
			}
			msg += fmt.Sprintf(" or add to reasonix.toml: [permissions] allow = [%s]", strings.Join(quoted, ", "))
		}
	}
	f.r.notice(msg)
}

// quotedCall names a call with its subject quoted: bash "go test ./...".
func quotedCall(tool string, args json.RawMessage) string {
	if subject, ok := strings.CutPrefix(agent.DescribeCall(tool, args), tool+" "); ok {
		return tool + " " + strconv.Quote(subject)
	}
	return tool
}
