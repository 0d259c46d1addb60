package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Input is what a hook reads on its stdin, as JSON, in Claude Code's
// field names. Fields that do not apply to the event are left out.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd"`
	Event          Event  `json:"hook_event_name"`
	// ToolName is Claude Code's name for the tool when it has one
	// (ClaudeName), so that scripts written for it work unchanged;
	// ReasonixTool is Reasonix's own name.
	ToolName     string          `json:"tool_name,omitempty"`
	ReasonixTool string          `json:"reasonix_tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	// ToolResponse is set for PostToolUse.
	ToolResponse *ToolResponse `json:"tool_response,omitempty"`
	// Prompt is set for UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`
	// Source is set for SessionStart: "startup" or "resume".
	Source string `json:"source,omitempty"`
	// Trigger is set for PreCompact: "manual" or "auto".
	Trigger string `json:"trigger,omitempty"`
	// StopHookActive is set for Stop and SubagentStop when the agent
	// goes on because a stop hook said so before in this turn.
	StopHookActive bool `json:"stop_hook_active,omitempty"`
	// LastAssistantMessage is, for Stop and SubagentStop, the answer
	// the model is stopping with.
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	// AgentType is set for SubagentStart and SubagentStop: the helper's
	// custom agent, or "general-purpose" for a task that names none;
	// AgentID is the helper's session.
	AgentType string `json:"agent_type,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	// Message and NotificationType are set for Notification: what the
	// user is told ("Reasonix needs your permission to use bash") and
	// why ("permission_prompt").
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
	// Reason is set for SessionEnd: "clear" or "other".
	Reason string `json:"reason,omitempty"`
}

// ToolResponse is a tool call's outcome as a PostToolUse hook reads it.
type ToolResponse struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
	Summary string `json:"summary,omitempty"`
}

// key is what the event's matchers select: the tool's name, the
// compaction's trigger, the session's source or end, the helper's agent
// or the notification's type.
func (in Input) key() (string, bool) {
	switch in.Event {
	case PreToolUse, PostToolUse:
		return in.ReasonixTool, true
	case PreCompact:
		return in.Trigger, true
	case SessionStart:
		return in.Source, true
	case SessionEnd:
		return in.Reason, true
	case SubagentStart, SubagentStop:
		return in.AgentType, true
	case Notification:
		return in.NotificationType, true
	}
	return "", false
}

// Outcome is what one hook did.
type Outcome struct {
	Hook Hook
	// Exit is the hook's exit code, or -1 when it did not run to an
	// exit (Err says why).
	Exit int
	// Err is why the hook failed to start, was stopped (its timeout,
	// the turn cancelled) or what was wrong with its answer.
	Err error
	// Block is set when the hook blocked what was about to happen, by
	// exiting with 2 or with a JSON decision; Reason is why.
	Block  bool
	Reason string
	// Context is what the hook adds to the prompt (UserPromptSubmit,
	// SessionStart): its stdout, or its JSON's additionalContext.
	Context string
	// Permission is a PreToolUse hook's permissionDecision: "allow",
	// "deny", "ask" or "".
	Permission string
	// Stderr is what the hook wrote to its stderr, cut to a bound.
	Stderr string
}

// String is the log line of the outcome: the hook, its event, and how
// it ended.
func (o Outcome) String() string {
	h := o.Hook
	var b strings.Builder
	fmt.Fprintf(&b, "hook %s", h.Event)
	if h.Matcher != "" {
		fmt.Fprintf(&b, " [%s]", h.Matcher)
	}
	fmt.Fprintf(&b, " %q", clip(h.Command, 80))
	if h.Source != "" {
		fmt.Fprintf(&b, " (%s)", h.Source)
	}
	switch {
	case o.Err != nil:
		fmt.Fprintf(&b, ": failed: %v", o.Err)
	case o.Block:
		fmt.Fprintf(&b, ": blocked (exit %d)", o.Exit)
		if o.Reason != "" {
			fmt.Fprintf(&b, ": %s", clip(o.Reason, 200))
		}
	case o.Exit != 0:
		fmt.Fprintf(&b, ": error, exit %d (not blocking)", o.Exit)
		if s := strings.TrimSpace(o.Stderr); s != "" {
			fmt.Fprintf(&b, ": %s", clip(s, 200))
		}
	default:
		b.WriteString(": ok")
		if o.Permission != "" {
			fmt.Fprintf(&b, ", permission %s", o.Permission)
		}
	}
	return b.String()
}

// Result is what the hooks of one event decided together.
type Result struct {
	// Ran holds each hook's outcome, in the order they ran.
	Ran []Outcome
	// Block is set when any hook blocked; Reason joins their reasons.
	Block  bool
	Reason string
	// Context joins what the hooks add to the prompt.
	Context string
	// Permission is the strictest permissionDecision given: "deny",
	// then "ask", then "allow".
	Permission string
}

// Runner runs the hooks in force.
type Runner struct {
	Hooks []Hook
	// Dir is the workspace: the hooks' working directory, their cwd
	// field and $CLAUDE_PROJECT_DIR.
	Dir string
	// Env is the hooks' environment; nil means Reasonix's own.
	Env []string
}

// Has reports whether any hook is attached to ev; callers skip the work
// of building an Input otherwise.
func (r *Runner) Has(ev Event) bool {
	if r == nil {
		return false
	}
	for _, h := range r.Hooks {
		if h.Event == ev {
			return true
		}
	}
	return false
}

// Run runs, one after another in the order they are set, the hooks of
// in.Event whose matcher selects in, and combines what they decided.
// Each is stopped at its timeout or when ctx ends; a hook that fails
// does not block (its outcome says why). log, when set, hears each
// outcome as it comes.
func (r *Runner) Run(ctx context.Context, in Input, log func(Outcome)) Result {
	var res Result
	if r == nil {
		return res
	}
	key, keyed := in.key()
	if in.Cwd == "" {
		in.Cwd = r.Dir
	}
	if in.ReasonixTool != "" && in.ToolName == "" {
		in.ToolName = ClaudeName(in.ReasonixTool)
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		// Nothing a hook could be given; the Input is ours, so this is a
		// bug rather than the hook's fault.
		panic(fmt.Sprintf("hooks: input: %v", err))
	}
	// One line, so that a script may read it with `read`.
	stdin = append(stdin, '\n')
	var reasons, contexts []string
	for _, h := range r.Hooks {
		if h.Event != in.Event || keyed && !Match(h.Matcher, key) {
			continue
		}
		o := r.run(ctx, h, stdin)
		if log != nil {
			log(o)
		}
		res.Ran = append(res.Ran, o)
		if o.Block {
			res.Block = true
			if o.Reason != "" {
				reasons = append(reasons, o.Reason)
			}
		}
		if o.Context != "" {
			contexts = append(contexts, o.Context)
		}
		if rank(o.Permission) > rank(res.Permission) {
			res.Permission = o.Permission
		}
	}
	res.Reason = strings.Join(reasons, "\n")
	res.Context = strings.Join(contexts, "\n")
	return res
}

// rank orders permission decisions by strictness.
func rank(p string) int {
	switch p {
	case "allow":
		return 1
	case "ask":
		return 2
	case "deny":
		return 3
	}
	return 0
}

// maxOutput bounds what is kept of a hook's stdout and stderr: a
// reason for the model, a few lines of context.
const maxOutput = 64 << 10

// run runs one hook with stdin and reads its answer.
func (r *Runner) run(ctx context.Context, h Hook, stdin []byte) Outcome {
	o := Outcome{Hook: h, Exit: -1}
	ctx, cancel := context.WithTimeout(ctx, h.timeout())
	defer cancel()
	cmd := shell(h.Command)
	cmd.Dir = r.Dir
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	// A new slice: the hooks of parallel calls share r.Env.
	cmd.Env = slices.Concat(env, []string{"CLAUDE_PROJECT_DIR=" + r.Dir, "REASONIX_PROJECT_DIR=" + r.Dir})
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr := &capped{max: maxOutput}, &capped{max: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	prepareGroup(cmd)
	if err := cmd.Start(); err != nil {
		o.Err = fmt.Errorf("start: %w", err)
		return o
	}
	// The hook and what it started end with its timeout or the turn;
	// output a leftover child still holds open is not waited for long.
	stop := context.AfterFunc(ctx, func() { killGroup(cmd.Process) })
	defer stop()
	cmd.WaitDelay = time.Second
	err := cmd.Wait()
	o.Stderr = stderr.String()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			o.Err = fmt.Errorf("timed out after %s", h.timeout())
		} else {
			o.Err = fmt.Errorf("stopped: %w", context.Cause(ctx))
		}
		return o
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		o.Exit = exit.ExitCode()
	case err != nil:
		o.Err = err
		return o
	default:
		o.Exit = 0
	}
	switch o.Exit {
	case 0:
		o.answer(stdout.String())
	case 2:
		o.Block = true
		o.Reason = strings.TrimSpace(o.Stderr)
		if o.Reason == "" {
			o.Reason = fmt.Sprintf("blocked by the %s hook %q", h.Event, clip(h.Command, 80))
		}
	}
	if o.Block && !h.Event.canBlock() {
		// Said in the log as an error that blocks nothing.
		o.Block, o.Reason = false, ""
		if o.Exit == 0 {
			o.Err = fmt.Errorf("a %s hook cannot block (ignored)", h.Event)
		}
	}
	return o
}

// canBlock reports whether a hook of ev can block what it attaches to:
// a session that started has started, one that ends ends, a compaction
// is what lets a session that no longer fits its model go on, and a
// notification only tells.
func (ev Event) canBlock() bool {
	switch ev {
	case SessionStart, SessionEnd, SubagentStart, PreCompact, Notification:
		return false
	}
	return true
}

// answer reads what a hook that exited with 0 printed: JSON that
// decides, or for the events that add context, plain text.
func (o *Outcome) answer(stdout string) {
	text := strings.TrimSpace(stdout)
	if strings.HasPrefix(text, "{") {
		var a struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
			Specific struct {
				PermissionDecision       string `json:"permissionDecision"`
				PermissionDecisionReason string `json:"permissionDecisionReason"`
				AdditionalContext        string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(text), &a); err == nil {
			o.Context = a.Specific.AdditionalContext
			if a.Decision == "block" {
				o.Block, o.Reason = true, a.Reason
			}
			switch p := a.Specific.PermissionDecision; p {
			case "allow", "ask":
				o.Permission = p
			case "deny":
				o.Permission, o.Block = p, true
				o.Reason = strings.TrimSpace(a.Specific.PermissionDecisionReason + "\n" + o.Reason)
			case "":
			default:
				o.Err = fmt.Errorf("unknown permissionDecision %q (ignored)", p)
			}
			if o.Block && o.Reason == "" {
				o.Reason = fmt.Sprintf("blocked by the %s hook %q", o.Hook.Event, clip(o.Hook.Command, 80))
			}
			return
		}
	}
	if o.Hook.Event == UserPromptSubmit || o.Hook.Event == SessionStart || o.Hook.Event == SubagentStart {
		o.Context = text
	}
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// shell is the command that runs line as the user's shell would.
func shell(line string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		return exec.Command("cmd", "/C", line)
	}
	return exec.Command("/bin/sh", "-c", line)
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
