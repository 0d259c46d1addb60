package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools/hooks"
	"github.com/reasonix/reasonix/tools/permission"
)

// hookHarness is a harness whose agent runs hs, with a probe tool named
// bash that records its calls.
func hookHarness(t *testing.T, responses []provider.Response, hs ...hooks.Hook) (*harness, *probeTool) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the hooks of these tests are sh scripts")
	}
	bash := &probeTool{name: "bash"}
	h := newHarness(t, responses, bash)
	h.a.Hooks = &hooks.Runner{Hooks: hs, Dir: h.a.Env.Root}
	return h, bash
}

// hookLines are the texts of the turn's hook events.
func (h *harness) hookLines() []string {
	var out []string
	for _, e := range h.kinds(EventHook) {
		out = append(out, e.Text)
	}
	return out
}

func TestPreToolUseHookBlocks(t *testing.T) {
	h, bash := hookHarness(t, []provider.Response{
		calls(tc("1", "bash", `{"command":"rm -rf build"}`)),
		answer("ok"),
	}, hooks.Hook{Event: hooks.PreToolUse, Matcher: "Bash", Command: `grep -q '"rm ' && { echo 'rm is not allowed here; use git clean' >&2; exit 2; }; exit 0`})
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(t.Context(), s, "clean up"); err != nil {
		t.Fatal(err)
	}
	if bash.peak.Load() != 0 {
		t.Error("the blocked call ran")
	}
	r := h.kinds(EventToolResult)[0].Tool
	if !r.Denied || !r.IsError || !strings.Contains(r.Result, "rm is not allowed here; use git clean") {
		t.Errorf("result = %+v", r)
	}
	msgs := h.lastRequest(t).Messages
	if last := msgs[len(msgs)-1]; last.Role != provider.RoleTool || !strings.Contains(last.Content, "rm is not allowed here") {
		t.Errorf("the model was sent %+v", last)
	}
	if lines := h.hookLines(); len(lines) != 1 || !strings.Contains(lines[0], "hook PreToolUse [Bash]") || !strings.Contains(lines[0], "blocked (exit 2)") {
		t.Errorf("hook lines = %q", lines)
	}
}

// TestPreToolUseHookAsks: "ask" makes the gate ask even where the rules
// allow; "allow" does not get past a deny rule.
func TestPreToolUseHookAsks(t *testing.T) {
	for _, c := range []struct {
		name, decision, mode string
		deny                 []string
		asked                int
		ran                  bool
	}{
		{"ask where allowed", "ask", "allow", nil, 1, false},
		{"allow under a deny rule", "allow", "allow", []string{"bash"}, 0, false},
		{"allow where allowed", "allow", "allow", nil, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, bash := hookHarness(t, []provider.Response{calls(tc("1", "bash", `{"command":"ls"}`)), answer("ok")},
				hooks.Hook{Event: hooks.PreToolUse, Command: `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "` + c.decision + `"}}'`})
			policy, err := permission.NewPolicy(c.mode, nil, nil, c.deny)
			if err != nil {
				t.Fatal(err)
			}
			ap := &fakeApprover{}
			h.a.Gate = &permission.Checker{Policy: policy, Approver: ap}
			s, _ := h.a.NewSession()
			if _, err := h.a.Run(t.Context(), s, "list"); err != nil {
				t.Fatal(err)
			}
			if len(ap.prompts) != c.asked || (bash.peak.Load() > 0) != c.ran {
				t.Errorf("asked %d times, ran %v", len(ap.prompts), bash.peak.Load() > 0)
			}
		})
	}
}

func TestPostToolUseHook(t *testing.T) {
	h, _ := hookHarness(t, []provider.Response{
		calls(tc("1", "bash", `{"command":"go vet ./..."}`)),
		answer("ok"),
	}, hooks.Hook{Event: hooks.PostToolUse, Matcher: "Bash", Command: `cat > post.json; echo 'vet is slow here; prefer make lint' >&2; exit 2`})
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(t.Context(), s, "vet"); err != nil {
		t.Fatal(err)
	}
	msgs := h.lastRequest(t).Messages
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, `bash {"command":"go vet ./..."}`) || !strings.Contains(last.Content, "prefer make lint") {
		t.Errorf("the model was sent %q", last.Content)
	}
	b, err := os.ReadFile(filepath.Join(h.a.Env.Root, "post.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		SessionID    string          `json:"session_id"`
		Transcript   string          `json:"transcript_path"`
		Event        string          `json:"hook_event_name"`
		ToolName     string          `json:"tool_name"`
		ToolInput    json.RawMessage `json:"tool_input"`
		ToolResponse struct {
			Content string `json:"content"`
		} `json:"tool_response"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(in.Transcript); err != nil {
		t.Errorf("transcript_path: %v", err)
	}
	if in.SessionID != s.ID || in.Event != "PostToolUse" || in.ToolName != "Bash" || string(in.ToolInput) != `{"command":"go vet ./..."}` || !strings.HasPrefix(in.ToolResponse.Content, "bash ") {
		t.Errorf("the hook read %s", b)
	}
}

func TestPromptHooks(t *testing.T) {
	h, _ := hookHarness(t, []provider.Response{answer("one"), answer("two")},
		hooks.Hook{Event: hooks.SessionStart, Command: "echo 'branch: main'"},
		hooks.Hook{Event: hooks.UserPromptSubmit, Command: `grep -q secret && { echo 'no secrets in prompts' >&2; exit 2; }; echo 'ticket 42'`},
	)
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(t.Context(), s, "first"); err != nil {
		t.Fatal(err)
	}
	msgs := h.lastRequest(t).Messages
	if u := msgs[len(msgs)-1].Content; !strings.HasPrefix(u, "first") || !strings.Contains(u, "branch: main") || !strings.Contains(u, "ticket 42") {
		t.Errorf("first prompt = %q", u)
	}
	if _, err := h.a.Run(t.Context(), s, "second"); err != nil {
		t.Fatal(err)
	}
	msgs = h.lastRequest(t).Messages
	if u := msgs[len(msgs)-1].Content; strings.Contains(u, "branch: main") || !strings.Contains(u, "ticket 42") {
		t.Errorf("second prompt = %q: SessionStart runs once", u)
	}
	n := len(h.prov.requests)
	res, err := h.a.Run(t.Context(), s, "the secret is 1234")
	if err != nil || res.Stop != StopDone || len(h.prov.requests) != n {
		t.Errorf("blocked prompt: %+v, %v, %d requests (was %d)", res, err, len(h.prov.requests), n)
	}
	for _, m := range s.Messages() {
		if strings.Contains(m.Content, "1234") {
			t.Errorf("the blocked prompt is in the conversation: %q", m.Content)
		}
	}
}

// TestStopHook: a Stop hook that blocks sends the model back with its
// reason, and a hook that always blocks ends the turn after
// maxStopRounds rounds.
func TestStopHook(t *testing.T) {
	responses := make([]provider.Response, maxStopRounds+1)
	for i := range responses {
		responses[i] = answer("done")
	}
	h, _ := hookHarness(t, responses, hooks.Hook{Event: hooks.Stop, Command: `cat >> stops.jsonl; echo 'the tests were not run' >&2; exit 2`})
	s, _ := h.a.NewSession()
	res, err := h.a.Run(t.Context(), s, "fix it")
	if err != nil || res.Stop != StopDone || res.Text != "done" {
		t.Fatalf("%+v, %v", res, err)
	}
	if len(h.prov.requests) != maxStopRounds+1 {
		t.Errorf("%d requests, want %d", len(h.prov.requests), maxStopRounds+1)
	}
	msgs := h.lastRequest(t).Messages
	if u := msgs[len(msgs)-1]; u.Role != provider.RoleUser || !strings.Contains(u.Content, "the tests were not run") {
		t.Errorf("last message sent = %+v", u)
	}
	if n := h.kinds(EventNotice); len(n) != 1 || !strings.Contains(n[0].Text, "sent the model back 3 times") {
		t.Errorf("notices = %+v", n)
	}
	b, _ := os.ReadFile(filepath.Join(h.a.Env.Root, "stops.jsonl"))
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != maxStopRounds+1 || strings.Contains(lines[0], "stop_hook_active") || !strings.Contains(lines[1], `"stop_hook_active":true`) {
		t.Errorf("the hook read %q", lines)
	}
}

// notedApprover answers yes, and records whether the Notification hook
// had written its file by the time it was asked.
type notedApprover struct {
	file  string
	asked int
	noted bool
}

func (a *notedApprover) Approve(context.Context, permission.Prompt) (permission.Answer, error) {
	a.asked++
	_, err := os.Stat(a.file)
	a.noted = err == nil
	return permission.AnswerOnce, nil
}

// TestNotificationHookBeforeTheQuestion: the Notification hooks run
// before the user is asked about a call, told what the question is
// about; a call nobody is asked about notifies no one.
func TestNotificationHookBeforeTheQuestion(t *testing.T) {
	h, bash := hookHarness(t, []provider.Response{
		calls(tc("1", "bash", `{"command":"make"}`)),
		calls(tc("2", "read_file", `{"path":"x"}`)),
		answer("ok"),
	}, hooks.Hook{Event: hooks.Notification, Matcher: "permission_prompt", Command: `cat >> notify.jsonl`})
	policy, err := permission.NewPolicy("ask", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ap := &notedApprover{file: filepath.Join(h.a.Env.Root, "notify.jsonl")}
	h.a.Gate = &permission.Checker{Policy: policy, Approver: withNotification(ap)}
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(t.Context(), s, "build"); err != nil {
		t.Fatal(err)
	}
	if ap.asked != 1 || !ap.noted || bash.peak.Load() == 0 {
		t.Fatalf("asked %d times, notified before: %v, ran: %v", ap.asked, ap.noted, bash.peak.Load() > 0)
	}
	b, _ := os.ReadFile(ap.file)
	var in map[string]any
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &in) != nil {
		t.Fatalf("the hook read %q", b)
	}
	if in["hook_event_name"] != "Notification" || in["notification_type"] != "permission_prompt" ||
		in["message"] != "Reasonix needs your permission to use bash" || in["session_id"] != s.ID {
		t.Errorf("the hook read %v", in)
	}
	if withNotification(nil) != nil {
		t.Error("no one to ask became someone")
	}
}

// TestSessionEndHook: a session that ran a turn here runs its
// SessionEnd hooks when it ends, with the reason; one that did not
// (resumed to be listed, say) runs none.
func TestSessionEndHook(t *testing.T) {
	h, _ := hookHarness(t, []provider.Response{answer("ok")},
		hooks.Hook{Event: hooks.SessionEnd, Matcher: "clear", Command: `cat >> ends.jsonl`})
	idle, _ := h.a.NewSession()
	h.a.EndSession(t.Context(), idle, "clear")
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(t.Context(), s, "hi"); err != nil {
		t.Fatal(err)
	}
	h.a.EndSession(t.Context(), s, "other") // the matcher selects "clear" only
	h.a.EndSession(t.Context(), s, "clear")
	b, _ := os.ReadFile(filepath.Join(h.a.Env.Root, "ends.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"hook_event_name":"SessionEnd"`) || !strings.Contains(lines[0], `"reason":"clear"`) ||
		!strings.Contains(lines[0], `"session_id":"`+s.ID+`"`) {
		t.Errorf("the hook read %q", lines)
	}
	if got := h.hookLines(); len(got) != 1 || !strings.Contains(got[0], "hook SessionEnd [clear]") {
		t.Errorf("hook lines = %q", got)
	}
}
