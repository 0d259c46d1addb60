package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("util-linux script is not installed")
	}
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

			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			line := strings.Join([]string{reasonixBin, "run", "--config", cfg, "'write out.txt'"}, " ")
			cmd := exec.CommandContext(ctx, "script", "-qec", line, "/dev/null")
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "REASONIX_HOME="+home, "TERM=xterm")
			cmd.Stdin = strings.NewReader(tt.answer + "\n")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.Contains(string(out), "? write_file out.txt") {
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
