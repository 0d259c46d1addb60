package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestParseAndFlatten(t *testing.T) {
	s, err := ParseFile([]byte(`{
  "permissions": {"allow": ["Bash(ls)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "check-bash", "timeout": 5}]},
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt"}, {"type": "prompt", "command": "x"}]},
      {"matcher": "(", "hooks": [{"type": "command", "command": "bad"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "done"}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify"}]}],
    "PermissionRequest": [{"hooks": [{"type": "command", "command": "started"}]}]
  }
}`))
	if err != nil {
		t.Fatal(err)
	}
	entries, problems := s.Flatten()
	var got []string
	for _, e := range entries {
		got = append(got, string(e.Event)+" "+e.Matcher+" "+e.Command)
	}
	want := []string{"PreToolUse Bash check-bash", "PreToolUse Edit|Write fmt", "Stop  done", "Notification  notify"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("hooks = %q, want %q", got, want)
	}
	if entries[0].Timeout != 5 || entries[1].Group != 1 {
		t.Errorf("entries = %+v", entries)
	}
	if len(problems) != 3 || !strings.Contains(problems[0], "PermissionRequest") || !strings.Contains(problems[1], "prompt") || !strings.Contains(problems[2], `"("`) {
		t.Errorf("problems = %q", problems)
	}
	if _, err := ParseFile([]byte(`{"hooks": [`)); err == nil {
		t.Error("invalid JSON parsed")
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, tool string
		want          bool
	}{
		{"", "bash", true},
		{"*", "mcp__x__y", true},
		{"Bash", "bash", true},
		{"bash", "bash", true},
		{"Bash", "bash_output", false},
		{"Read", "read_file", true},
		{"Edit|Write", "write_file", true},
		{"Edit|Write", "edit_file", true},
		{"Edit|Write", "multi_edit", false},
		{"MultiEdit", "multi_edit", true},
		{"LS", "ls", true},
		{"Glob|Grep", "grep", true},
		{"Task", "task", true},
		{"Write", "move_file", false},
		{"mcp__memory__.*", "mcp__memory__save", true},
		{"^mcp__", "bash", false},
		{"_file$", "read_file", true},
		{"(", "bash", false},
	} {
		if got := Match(c.pattern, c.tool); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.tool, got, c.want)
		}
	}
}

func unixOnly(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the hooks of these tests are sh scripts")
	}
}

func TestRunDecisions(t *testing.T) {
	unixOnly(t)
	for _, c := range []struct {
		name    string
		event   Event
		command string
		want    Outcome // Exit, Block, Reason, Context, Permission
		wantErr bool
	}{
		{"exit 0", PreToolUse, "true", Outcome{}, false},
		{"exit 2 blocks with stderr", PreToolUse, "echo 'no rm here' >&2; exit 2", Outcome{Exit: 2, Block: true, Reason: "no rm here"}, false},
		{"exit 1 does not block", PreToolUse, "echo oops >&2; exit 1", Outcome{Exit: 1}, false},
		{"JSON block", PostToolUse, `echo '{"decision": "block", "reason": "lint failed"}'`, Outcome{Block: true, Reason: "lint failed"}, false},
		{"JSON deny", PreToolUse, `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not today"}}'`,
			Outcome{Block: true, Reason: "not today", Permission: "deny"}, false},
		{"JSON ask", PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "ask"}}'`, Outcome{Permission: "ask"}, false},
		{"JSON allow", PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`, Outcome{Permission: "allow"}, false},
		{"unknown decision", PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "maybe"}}'`, Outcome{}, true},
		{"prompt context", UserPromptSubmit, "echo 'the build is broken'", Outcome{Context: "the build is broken"}, false},
		{"prompt JSON context", UserPromptSubmit, `echo '{"hookSpecificOutput": {"additionalContext": "ctx"}}'`, Outcome{Context: "ctx"}, false},
		{"tool stdout is not context", PostToolUse, "echo hello", Outcome{}, false},
		{"no such program", PreToolUse, "exec /nonexistent/hook", Outcome{Exit: 127}, false},
		{"SessionStart cannot block", SessionStart, "echo no >&2; exit 2", Outcome{Exit: 2}, false},
		{"PreCompact cannot block", PreCompact, `echo '{"decision": "block"}'`, Outcome{}, true},
		{"Notification cannot block", Notification, "echo no >&2; exit 2", Outcome{Exit: 2}, false},
		{"SessionEnd cannot block", SessionEnd, "echo no >&2; exit 2", Outcome{Exit: 2}, false},
		{"SubagentStop blocks with stderr", SubagentStop, "echo 'run the tests first' >&2; exit 2", Outcome{Exit: 2, Block: true, Reason: "run the tests first"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Runner{Hooks: []Hook{{Event: c.event, Command: c.command}}, Dir: t.TempDir()}
			var logged []Outcome
			res := r.Run(t.Context(), Input{Event: c.event, ReasonixTool: "bash"}, func(o Outcome) { logged = append(logged, o) })
			if len(res.Ran) != 1 || len(logged) != 1 {
				t.Fatalf("ran %d, logged %d", len(res.Ran), len(logged))
			}
			o := res.Ran[0]
			if o.Exit != c.want.Exit || o.Block != c.want.Block || o.Reason != c.want.Reason || o.Context != c.want.Context || o.Permission != c.want.Permission || (o.Err != nil) != c.wantErr {
				t.Errorf("outcome = %+v, want %+v (err %v)", o, c.want, c.wantErr)
			}
			if res.Block != o.Block || res.Reason != o.Reason || res.Permission != o.Permission {
				t.Errorf("result = %+v", res)
			}
			if line := o.String(); !strings.Contains(line, "hook "+string(c.event)) {
				t.Errorf("log line %q does not name the event", line)
			}
		})
	}
}

// TestRunInput checks what a hook reads on stdin, where it runs, and
// that only the hooks whose matcher selects the call run.
func TestRunInput(t *testing.T) {
	unixOnly(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "in.json")
	r := &Runner{Dir: dir, Hooks: []Hook{
		{Event: PostToolUse, Matcher: "Write", Command: "echo wrong > wrong"},
		{Event: PostToolUse, Matcher: "Bash", Command: `cat > in.json; echo "$CLAUDE_PROJECT_DIR" > project`},
		{Event: PreToolUse, Command: "echo wrong > wrong"},
	}}
	res := r.Run(t.Context(), Input{
		SessionID: "s1", Event: PostToolUse, ReasonixTool: "bash",
		ToolInput:    json.RawMessage(`{"command":"ls"}`),
		ToolResponse: &ToolResponse{Content: "a.go", Summary: "exit 0"},
	}, nil)
	if len(res.Ran) != 1 || res.Ran[0].Exit != 0 {
		t.Fatalf("ran %+v", res.Ran)
	}
	if _, err := os.Stat(filepath.Join(dir, "wrong")); err == nil {
		t.Error("a hook whose matcher or event does not fit ran")
	}
	var in map[string]any
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"session_id": "s1", "hook_event_name": "PostToolUse", "cwd": dir,
		"tool_name": "Bash", "reasonix_tool_name": "bash",
	} {
		if in[k] != want {
			t.Errorf("%s = %v, want %v", k, in[k], want)
		}
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "ls" {
		t.Errorf("tool_input = %v", in["tool_input"])
	}
	if tr, _ := in["tool_response"].(map[string]any); tr["content"] != "a.go" {
		t.Errorf("tool_response = %v", in["tool_response"])
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "project")); strings.TrimSpace(string(b)) != dir {
		t.Errorf("CLAUDE_PROJECT_DIR = %q", b)
	}
}

func TestRunCombines(t *testing.T) {
	unixOnly(t)
	r := &Runner{Dir: t.TempDir(), Hooks: []Hook{
		{Event: PreToolUse, Command: `echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`},
		{Event: PreToolUse, Command: "echo first >&2; exit 2"},
		{Event: PreToolUse, Command: `echo '{"hookSpecificOutput": {"permissionDecision": "ask"}}'`},
		{Event: PreToolUse, Command: "echo second >&2; exit 2"},
	}}
	res := r.Run(t.Context(), Input{Event: PreToolUse, ReasonixTool: "bash"}, nil)
	if !res.Block || res.Reason != "first\nsecond" || res.Permission != "ask" || len(res.Ran) != 4 {
		t.Errorf("result = %+v", res)
	}
}

func TestRunStops(t *testing.T) {
	unixOnly(t)
	t.Run("timeout", func(t *testing.T) {
		r := &Runner{Dir: t.TempDir(), Hooks: []Hook{{Event: Stop, Command: "sleep 30", Timeout: 1}}}
		res := r.Run(t.Context(), Input{Event: Stop}, nil)
		if o := res.Ran[0]; o.Err == nil || !strings.Contains(o.Err.Error(), "timed out") || res.Block {
			t.Errorf("outcome = %+v", o)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		r := &Runner{Dir: t.TempDir(), Hooks: []Hook{{Event: Stop, Command: "sleep 30"}}}
		res := r.Run(ctx, Input{Event: Stop}, nil)
		if o := res.Ran[0]; o.Err == nil || res.Block {
			t.Errorf("outcome = %+v", o)
		}
	})
}

// BenchmarkRun measures what one hook adds to the call it attaches to:
// starting sh, writing the input, reading the answer.
func BenchmarkRun(b *testing.B) {
	if runtime.GOOS == "windows" {
		b.Skip("the hook is an sh script")
	}
	r := &Runner{Dir: b.TempDir(), Hooks: []Hook{{Event: PreToolUse, Matcher: "Bash", Command: "cat > /dev/null"}}}
	in := Input{Event: PreToolUse, ReasonixTool: "bash", ToolInput: json.RawMessage(`{"command":"go test ./..."}`)}
	for b.Loop() {
		if res := r.Run(b.Context(), in, nil); len(res.Ran) != 1 || res.Ran[0].Exit != 0 {
			b.Fatalf("%+v", res)
		}
	}
}

// TestRunConcurrently: the hooks of parallel calls share a Runner.
func TestRunConcurrently(t *testing.T) {
	unixOnly(t)
	env := make([]string, 0, 64)
	env = append(env, "PATH="+os.Getenv("PATH"))
	r := &Runner{Dir: t.TempDir(), Env: env, Hooks: []Hook{{Event: PreToolUse, Command: `test "$CLAUDE_PROJECT_DIR" = "$PWD"`}}}
	var wg sync.WaitGroup
	results := make([]Result, 8)
	for i := range results {
		wg.Go(func() { results[i] = r.Run(t.Context(), Input{Event: PreToolUse, ReasonixTool: "read_file"}, nil) })
	}
	wg.Wait()
	for i, res := range results {
		if len(res.Ran) != 1 || res.Ran[0].Exit != 0 {
			t.Errorf("run %d: %+v", i, res.Ran)
		}
	}
}
