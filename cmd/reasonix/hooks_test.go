package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// writeClaudeSettings writes hooks, in Claude Code's settings.json
// format, to dir/.claude/settings.json.
func writeClaudeSettings(t *testing.T, dir string, hooks map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, ".claude", "settings.json"), string(b))
}

// hookGroup is one matcher's entry with one command.
func hookGroup(matcher, command string) []any {
	return []any{map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": command}}}}
}

// TestHooksInRun: the user's PreToolUse hook in ~/.claude/settings.json
// blocks a bash rm, and what it says is the call's result in the next
// request to the model; the PostToolUse hook reads the next call, and
// its result, as JSON; the SessionEnd hook runs when the run ends;
// stderr logs them.
func TestHooksInRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hooks are sh scripts")
	}
	srv, url := startServer(t, `match clean up
call bash {"command": "rm -rf build"}
---
match clean up
expect tool rm is blocked here: move it to the trash instead
call bash {"command": "echo cleaned"}
---
match clean up
expect tool cleaned
text done
`)
	home, rhome, work, out := realTempDir(t), realTempDir(t), realTempDir(t), realTempDir(t)
	post, end := filepath.Join(out, "post.json"), filepath.Join(out, "end.json")
	writeClaudeSettings(t, home, map[string]any{
		"PreToolUse":  hookGroup("Bash", `if grep -q '"command":"rm '; then echo 'rm is blocked here: move it to the trash instead' >&2; exit 2; fi`),
		"PostToolUse": hookGroup("Bash", "cat > "+post),
		"SessionEnd":  hookGroup("", "cat > "+end),
	})
	mustWrite(t, filepath.Join(rhome, "config.toml"), scriptedConfig(url))
	r := runReasonix(t, work, rhome, []string{"HOME=" + home}, "run", "--approval", "auto", "clean up")
	if r.exit != 0 || !strings.Contains(r.stdout, "done") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[1].Body, "rm is blocked here: move it to the trash instead") {
		t.Errorf("%d requests; the second does not carry the hook's message", len(reqs))
	}
	for _, want := range []string{"hook PreToolUse [Bash]", "blocked (exit 2): rm is blocked here", "hook PostToolUse [Bash]", ": ok", "hook SessionEnd"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	b, err := os.ReadFile(post)
	if err != nil {
		t.Fatalf("the PostToolUse hook did not run: %v", err)
	}
	var in struct {
		SessionID string `json:"session_id"`
		Event     string `json:"hook_event_name"`
		Cwd       string `json:"cwd"`
		ToolName  string `json:"tool_name"`
		ToolInput struct {
			Command string `json:"command"`
		} `json:"tool_input"`
		ToolResponse struct {
			Content string `json:"content"`
			IsError bool   `json:"is_error"`
		} `json:"tool_response"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if in.SessionID == "" || in.Event != "PostToolUse" || in.Cwd != work || in.ToolName != "Bash" || in.ToolInput.Command != "echo cleaned" ||
		!strings.Contains(in.ToolResponse.Content, "cleaned") || in.ToolResponse.IsError {
		t.Errorf("the hook read %s", b)
	}
	b, err = os.ReadFile(end)
	if err != nil {
		t.Fatalf("the SessionEnd hook did not run: %v", err)
	}
	if want := `"session_id":"` + in.SessionID + `"`; !strings.Contains(string(b), want) || !strings.Contains(string(b), `"hook_event_name":"SessionEnd"`) || !strings.Contains(string(b), `"reason":"other"`) {
		t.Errorf("the SessionEnd hook read %s", b)
	}
}

// TestWorkspaceHooksNeedTrust: a workspace's .claude/settings.json hook
// does not run until the user trusts it, and the run says it was left
// out; trusted, it runs.
func TestWorkspaceHooksNeedTrust(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hooks are sh scripts")
	}
	srv, url := startServer(t, "match run 1\ntext one\n---\nmatch run 2\ntext two\n")
	home, rhome, work, out := realTempDir(t), realTempDir(t), realTempDir(t), realTempDir(t)
	mark := filepath.Join(out, "ran")
	writeClaudeSettings(t, work, map[string]any{"UserPromptSubmit": hookGroup("", "echo ran >> "+mark)})
	mustWrite(t, filepath.Join(rhome, "config.toml"), scriptedConfig(url))
	env := []string{"HOME=" + home}

	r := runReasonix(t, work, rhome, env, "run", "run 1")
	if r.exit != 0 {
		t.Fatalf("untrusted: exit %d\nstderr:\n%s", r.exit, r.stderr)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the untrusted workspace's hook ran")
	}
	if !strings.Contains(r.stderr, "UserPromptSubmit hook: runs") || !strings.Contains(r.stderr, "reasonix trust") {
		t.Errorf("stderr does not say the hook was left out:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "hook UserPromptSubmit") {
		t.Errorf("stderr logs a run of the untrusted hook:\n%s", r.stderr)
	}

	trustWorkspace(t, work, rhome)
	r = runReasonix(t, work, rhome, env, "run", "run 2")
	if r.exit != 0 {
		t.Fatalf("trusted: exit %d\nstderr:\n%s", r.exit, r.stderr)
	}
	b, err := os.ReadFile(mark)
	if err != nil || string(b) != "ran\n" {
		t.Errorf("the trusted workspace's hook: %q, %v", b, err)
	}
	if !strings.Contains(r.stderr, fmt.Sprintf("hook UserPromptSubmit %q", "echo ran >> "+mark)) {
		t.Errorf("stderr does not log the hook:\n%s", r.stderr)
	}
	if !slices.ContainsFunc(srv.Requests(), func(q scripted.Request) bool { return strings.Contains(q.Body, "run 2") }) {
		t.Error("the trusted run never asked the model")
	}
}

// TestClaudePermissionsInRun: the allow rules of the user's
// ~/.claude/settings.json let a command run where `run`, with no one to
// ask, would refuse it; its deny rules refuse, whatever else allows.
func TestClaudePermissionsInRun(t *testing.T) {
	srv, url := startServer(t, `match go
call bash {"command": "echo allowed"}
---
match go
expect tool allowed
call bash {"command": "touch denied"}
---
match go
expect tool Permission denied
text done
`)
	home, rhome, work := realTempDir(t), realTempDir(t), realTempDir(t)
	mustWrite(t, filepath.Join(home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(echo:*)", "Bash(touch:*)"], "deny": ["Bash(touch denied)"]}}`)
	mustWrite(t, filepath.Join(rhome, "config.toml"), scriptedConfig(url))
	r := runReasonix(t, work, rhome, []string{"HOME=" + home}, "run", "go")
	if r.exit != 0 || !strings.Contains(r.stdout, "done") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "denied")); err == nil {
		t.Error("the denied command ran")
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests to the model, want 3", n)
	}
}
