package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/permission"
)

func TestTermApproverAnswers(t *testing.T) {
	in := strings.NewReader("maybe\ns\nA\n\n")
	var errb bytes.Buffer
	ap := &termApprover{in: in, r: newRenderer(&bytes.Buffer{}, &errb, false, false, false)}
	p := permission.Prompt{Request: permission.Request{Tool: "bash", Args: []byte(`{"command":"go test ./..."}`)}, Scope: "Bash(go test:*)"}
	want := []permission.Answer{permission.AnswerSession, permission.AnswerAlways, permission.AnswerDeny}
	for i, w := range want {
		got, err := ap.Approve(context.Background(), p)
		if err != nil || got != w {
			t.Fatalf("answer %d = %v, %v; want %v", i, got, err, w)
		}
	}
	if !strings.Contains(errb.String(), "? bash go test ./...") || !strings.Contains(errb.String(), "please answer") {
		t.Fatalf("prompt:\n%s", errb.String())
	}
	// End of input denies with an error rather than hanging.
	if _, err := ap.Approve(context.Background(), p); err == nil {
		t.Fatal("EOF accepted as an answer")
	}
}

// TestApprovalOnATerminal runs the real binary under a pseudo-terminal
// (util-linux script), so it prompts before a write: "n" denies the call,
// "a" allows it and saves the rule to the project's reasonix.toml.
func TestApprovalOnATerminal(t *testing.T) {
	requireScript(t)
	tests := []struct {
		answer   string
		expect   string
		written  bool
		ruleSave bool
	}{
		{"n", "Permission denied: the user denied this call", false, false},
		{"a", "Created out.txt", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			srv, cfg := startScripted(t, `call write_file {"path": "out.txt", "content": "hi\n"}
---
expect tool `+tt.expect+`
text finished
`)
			work, home := t.TempDir(), t.TempDir()
			out := runOnTerminal(t, work, home, tt.answer+"\n", "run", "--config", cfg, "'write out.txt'")
			if !strings.Contains(out, "? write_file out.txt") {
				t.Fatalf("no prompt on the terminal:\n%s", out)
			}
			if srv.Remaining() != 0 {
				t.Fatalf("the model did not see %q:\n%s", tt.expect, out)
			}
			_, statErr := os.Stat(filepath.Join(work, "out.txt"))
			if (statErr == nil) != tt.written {
				t.Fatalf("out.txt written = %v, want %v", statErr == nil, tt.written)
			}
			rules, _ := os.ReadFile(filepath.Join(work, "reasonix.toml"))
			if saved := strings.Contains(string(rules), `allow = ["Edit(out.txt)"]`); saved != tt.ruleSave {
				t.Fatalf("rule saved = %v, want %v; reasonix.toml:\n%s", saved, tt.ruleSave, rules)
			}
		})
	}
}

// requireScript skips a test that needs a pseudo-terminal when util-linux
// script, which gives it one, is not installed.
func requireScript(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("util-linux script is not installed")
	}
}

// runOnTerminal runs the binary in dir under a pseudo-terminal (util-linux
// script), typing input, and returns what the terminal showed. Arguments
// are joined into one shell command line: quote them for the shell.
func runOnTerminal(t *testing.T, dir, home, input string, args ...string) string {
	t.Helper()
	return runOnTerminalEnv(t, dir, home, nil, input, args...)
}

// runOnTerminalEnv is runOnTerminal with env's variables (KEY=value) set
// and PAGER and NO_COLOR unset unless env sets them.
func runOnTerminalEnv(t *testing.T, dir, home string, env []string, input string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	line := strings.Join(append([]string{reasonixBin}, args...), " ")
	cmd := exec.CommandContext(ctx, "script", "-qec", line, "/dev/null")
	cmd.Dir = dir
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "PAGER=") || strings.HasPrefix(kv, "NO_COLOR=")
	})
	cmd.Env = append(append(cmd.Env, "REASONIX_HOME="+home, "TERM=xterm"), env...)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return string(out)
}

// TestRefusalReport: each refused call gets a line, the how-to comes once
// for each kind of refusal, and the summary lists the allow rules of the
// calls that needed only approval.
func TestRefusalReport(t *testing.T) {
	call := func(tool, key, value string) permission.Request {
		return permission.Request{Tool: tool, Args: []byte(`{"` + key + `":"` + value + `"}`)}
	}
	plain := func(r permission.Request, rule string) permission.Refusal {
		return permission.Refusal{Request: r, Why: "it needs approval", Posture: permission.PostureAuto, Allow: rule}
	}
	tests := []struct {
		name  string
		calls []permission.Refusal
		want  []string
	}{
		{"one", []permission.Refusal{plain(call("bash", "command", "go test ./..."), "Bash(go test:*)")}, []string{
			`note: refused bash "go test ./..." — it needs approval, and no one can be asked here; allow it with --approval auto, a [permissions] allow rule such as Bash(go test:*), or run in a terminal`,
			`note: 1 call was refused because no one could approve it; to allow it, pass --approval auto or add to reasonix.toml: [permissions] allow = ["Bash(go test:*)"]`,
		}},
		{"several", []permission.Refusal{
			plain(call("write_file", "path", "a.go"), "Edit(a.go)"),
			plain(call("bash", "command", "go test ./..."), "Bash(go test:*)"),
			plain(call("bash", "command", "go test ./..."), "Bash(go test:*)"),
			{Request: call("bash", "command", "git push"), Why: `the ask rule "Bash(git push:*)" requires approval`, Posture: permission.PostureYolo},
			{Request: call("remember", "name", "x"), Why: "it needs a person's approval every time"},
		}, []string{
			`note: refused write_file "a.go" — it needs approval, and no one can be asked here; allow it with --approval auto, a [permissions] allow rule such as Edit(a.go), or run in a terminal`,
			`note: refused bash "go test ./..." — it needs approval (allow rule: Bash(go test:*))`,
			`note: refused bash "go test ./..." — it needs approval (allow rule: Bash(go test:*))`,
			`note: refused bash "git push" — the ask rule "Bash(git push:*)" requires approval, and no one can be asked here; run in a terminal to approve it, or pass --approval yolo to let ask rules through`,
			`note: refused remember "x" — it needs a person's approval every time, and no one can be asked here; run in a terminal to approve it`,
			`note: 5 calls were refused because no one could approve them; to allow the 3 that needed only approval, pass --approval auto or add to reasonix.toml: [permissions] allow = ["Edit(a.go)", "Bash(go test:*)"]`,
		}},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			f := newRefusals(newRenderer(&bytes.Buffer{}, &errb, false, false, false))
			for _, x := range tt.calls {
				f.refused(x)
			}
			f.summary()
			got := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
			if len(tt.want) == 0 && errb.Len() == 0 {
				return
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestTermApproverPlan: the plan is shown once. After the planner's
// notice has printed it, the question asks about "this plan" without
// repeating it; a plan no notice showed (exit_plan_mode's) is printed
// with the question. Text other than yes is feedback.
func TestTermApproverPlan(t *testing.T) {
	const plan = "1. Read calc.go.\n2. Add Sub."
	var errb bytes.Buffer
	r := newRenderer(&bytes.Buffer{}, &errb, false, false, false)
	ap := &termApprover{in: strings.NewReader("y\nalso add Mul\n"), r: r}

	r.event(agent.Event{Kind: agent.EventNotice, Text: "plan by scripted/planner (2 model requests, 13.6k tokens):\n\n" + plan})
	ok, feedback, err := ap.ApprovePlan(context.Background(), "s1", plan+"\n")
	if err != nil || !ok || feedback != "" {
		t.Fatalf("yes: %v %q %v", ok, feedback, err)
	}
	if n := strings.Count(errb.String(), "2. Add Sub."); n != 1 {
		t.Errorf("the plan is shown %d times:\n%s", n, errb.String())
	}
	if !strings.HasSuffix(errb.String(), "\n? carry out this plan? [y] yes, or type what to change: ") {
		t.Errorf("question after the notice:\n%s", errb.String())
	}

	errb.Reset()
	ok, feedback, err = ap.ApprovePlan(context.Background(), "s1", plan)
	if err != nil || ok || feedback != "also add Mul" {
		t.Fatalf("feedback: %v %q %v", ok, feedback, err)
	}
	if want := "? The plan:\n\n" + plan + "\n\n  carry it out? [y] yes, or type what to change: "; errb.String() != want {
		t.Errorf("plan without a notice:\n%q\nwant\n%q", errb.String(), want)
	}
}
