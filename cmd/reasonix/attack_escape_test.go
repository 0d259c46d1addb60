package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackTerminalEscapes: a hostile model drives the real binary and
// sends the user's terminal control sequences every way it can — in its
// answer (streamed in pieces of a few bytes, so sequences are split across
// deltas), its reasoning, the arguments an MCP tool echoes into the
// result's summary, and the error message of a failed request; the
// session it leaves is listed and traced. Neither stdout (a file here: escaped too, see
// docs/SECURITY.md) nor stderr holds a raw ESC, C1 control, DEL, stray
// carriage return or bidirectional control; each is shown as an escape.
func TestAttackTerminalEscapes(t *testing.T) {
	args, err := json.Marshal(map[string]string{"message": hostileText})
	if err != nil {
		t.Fatal(err)
	}
	script := "reasoning thinking " + hostileText + "\n" +
		"text Here is the answer: " + hostileText + "\n" +
		"call mcp__example__echo " + string(args) + "\n" +
		"---\n" +
		"text Done " + hostileText + "\n"
	_, cfg := startScripted(t, script)
	work := t.TempDir()
	mustWrite(t, filepath.Join(work, "reasonix.toml"), "[[plugins]]\nname = \"example\"\ncommand = \"reasonix-plugin-example\"\n")

	home := t.TempDir()
	trustWorkspace(t, work, home)
	// The prompt is pasted from a hostile file: the sessions listing
	// shows it.
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "--verbose", "--approval", "yolo", "say hello "+hostileText)
	if r.exit != exitOK {
		t.Fatalf("run: %+v", r)
	}
	for name, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if bad := rawControls(s); bad != "" {
			t.Errorf("%s has %s", name, bad)
		}
	}
	// The hostile bytes are shown, not dropped: the user sees the attack.
	if !strings.Contains(r.stdout, `Here is the answer: \u001b]52;c;cm0gLXJmIH4=\u0007\u001b]0;pwned`) ||
		!strings.Contains(r.stdout, `Done \u001b]52;`) {
		t.Errorf("stdout:\n%q", r.stdout)
	}
	if !strings.Contains(r.stderr, `✓ mcp__example__echo`) || !strings.Contains(r.stderr, `Echo: \u001b]52;`) ||
		!strings.Contains(r.stderr, `thinking \u001b]52;`) {
		t.Errorf("stderr:\n%q", r.stderr)
	}

	// A provider (or whatever answers at its address) that fails the
	// request with a hostile message.
	_, cfg = startScripted(t, "fault 400 bad request "+hostileText+"\n")
	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "say hello")
	if r.exit == exitOK || !strings.Contains(r.stderr, `bad request \u001b]52;`) {
		t.Fatalf("failed run: %+v", r)
	}
	if bad := rawControls(r.stderr); bad != "" {
		t.Errorf("stderr of the failed run has %s", bad)
	}

	// What the session files hold, listed and traced.
	for _, cmd := range [][]string{{"sessions"}, {"trace"}} {
		r = runReasonix(t, work, home, nil, cmd...)
		if bad := rawControls(r.stdout + r.stderr); bad != "" {
			t.Errorf("%s: %s", cmd[0], bad)
		}
	}
}
