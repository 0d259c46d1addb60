package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/tools/permission"
)

// termApprover asks on the terminal. Prompts are serialised: parallel
// calls wait their turn.
type termApprover struct {
	in io.Reader
	r  *renderer

	mu   sync.Mutex // serialises prompts and guards br
	br   *bufio.Reader
	line chan string
}

func (t *termApprover) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.br == nil {
		t.br = bufio.NewReader(t.in)
	}
	t.r.mu.Lock()
	if p.Escalation != "" {
		t.r.line(fmt.Sprintf("? the shell sandbox may have blocked: %s\n  (%s)", describeArgs(p), p.Escalation))
		fmt.Fprint(t.r.err, "  run it again outside the sandbox, this once? [y] yes  [n] no: ")
	} else {
		t.r.line(fmt.Sprintf("? %s %s", p.Tool, describeArgs(p)))
		fmt.Fprintf(t.r.err, "  allow? [y] once  [s] %s for this session  [a] always, saved to reasonix.toml  [n] no: ", p.Scope)
	}
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
		}
		fmt.Fprint(t.r.err, "  please answer y, s, a or n: ")
	}
}

// readLine reads one answer, giving up when ctx ends. The pending read
// stays with the approver and serves the next prompt.
func (t *termApprover) readLine(ctx context.Context) (string, error) {
	if t.line == nil {
		t.line = make(chan string)
		go func() {
			for {
				s, err := t.br.ReadString('\n')
				if err != nil && s == "" {
					close(t.line)
					return
				}
				t.line <- s
			}
		}()
	}
	select {
	case s, ok := <-t.line:
		if !ok {
			return "", io.EOF
		}
		return s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func describeArgs(p permission.Prompt) string {
	s := strings.TrimSpace(string(p.Args))
	var m map[string]any
	if err := json.Unmarshal(p.Args, &m); err == nil {
		if c, ok := m["command"].(string); ok {
			return c
		}
		if path, ok := m["path"].(string); ok {
			return path
		}
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
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
	t.r.line("? The plan:\n\n" + strings.TrimSpace(plan) + "\n")
	fmt.Fprint(t.r.err, "  carry it out? [y] yes, or type what to change: ")
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
