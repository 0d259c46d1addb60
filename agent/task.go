package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/store"
	"github.com/reasonix/reasonix/tools"
)

// Sub-tasks. The task tool hands a sub-task to a child session: a Session
// of its own, with its own system prompt (task_prompt.md), its own
// append-only log and its own limits, so the parent's log gains only the
// call and the child's report, and both prefixes stay byte-stable. A
// read-only child is offered only the trusted read-only tools; a writer
// child the parent's tools, under the parent's gate, environment and
// jail, so its edits take the same path (in the editor, WorkspaceEdits).
// No child is offered the task tool: delegation goes one level deep.
//
// A child runs under its parent's session id, so permissions granted for
// the session hold in it and the front ends route its events to the
// parent's view; its tool events carry Event.Parent, the task call's id.
// Children are not stored: the parent's session file holds the call and
// the report, which is all the parent's model ever saw.

const taskName = "task"

//go:embed task.md
var taskDescription string

//go:embed task_prompt.md
var taskSystemPrompt string

// taskTool is the task tool. It is a turnTool: a child session needs
// the parent's turn. agents are the custom agents a call may name
// (agents.go), read when the session started.
type taskTool struct {
	agents []*customAgent
}

var (
	_ turnTool   = taskTool{}
	_ callReader = taskTool{}
)

func (taskTool) Name() string { return taskName }

// Description lists the custom agents after what the tool does: the
// model picks one by what it says of itself.
func (tt taskTool) Description() string {
	if len(tt.agents) == 0 {
		return taskDescription
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(taskDescription))
	b.WriteString("\n\nCustom agents (subagent_type), each with instructions of its own and only the tools it names; one that edits or runs commands needs read_only: false:")
	for _, ag := range tt.agents {
		fmt.Fprintf(&b, "\n- %s: %s", ag.name, ag.description)
	}
	return b.String()
}

// ReadOnly is false: whether a call only reads depends on its arguments
// (readOnlyCall), and the tool alone must not pass for a reader.
func (taskTool) ReadOnly() bool { return false }

func (tt taskTool) Schema() json.RawMessage {
	agent := ""
	if len(tt.agents) > 0 {
		names := make([]string, len(tt.agents))
		for i, ag := range tt.agents {
			names[i] = ag.name
		}
		enum, _ := json.Marshal(names)
		agent = `,"subagent_type":{"type":"string","enum":` + string(enum) + `,"description":"A custom agent to do the sub-task; none for a general helper."}`
	}
	return json.RawMessage(`{"type":"object","properties":{` +
		`"description":{"type":"string","description":"The sub-task in a few words."},` +
		`"prompt":{"type":"string","description":"Everything the helper needs."},` +
		`"read_only":{"type":"boolean","description":"Default true; false lets it edit and run commands."},` +
		`"max_steps":{"type":"integer","minimum":1,"description":"At most this many model requests."}` + agent + `},` +
		`"required":["description","prompt"],"additionalProperties":false}`)
}

// gated is true: a task call changes nothing itself — its child's calls
// are judged one by one — but a rule about task holds: a deny rule
// refuses it, an ask rule asks.
func (taskTool) gated() bool { return true }

// readOnlyCall reports whether a task call asks for a read-only child;
// arguments that do not parse do not.
func (taskTool) readOnlyCall(args string) bool {
	var a taskArgs
	if json.Unmarshal([]byte(args), &a) != nil {
		return false
	}
	return a.ReadOnly == nil || *a.ReadOnly
}

// Execute runs the call on the turn that made it (runTask).
func (tt taskTool) Execute(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Result, error) {
	k, ok := toolCallOf(ctx)
	if !ok {
		return tools.Result{}, errors.New("task runs only in an agent's turn")
	}
	return k.t.runTask(ctx, k.c, args, k.ev, tt.agents), nil
}

// TaskTool returns the task tool, for registries.
func TaskTool() tools.Tool { return taskTool{} }

type taskArgs struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	ReadOnly    *bool  `json:"read_only"`
	MaxSteps    int    `json:"max_steps"`
	// SubagentType names a custom agent.
	SubagentType string `json:"subagent_type"`
}

// taskLeftOut are the tools no child is offered: delegation, plan mode
// and the todo list are the parent's, and so is talking to the user (a child reports what
// it could not settle).
var taskLeftOut = map[string]bool{taskName: true, exitPlanName: true, TodoToolName: true, "ask": true}

// taskTools is the registry of a child: the parent's tools less
// taskLeftOut, and for a read-only child only the trusted read-only ones.
func taskTools(parent *tools.Registry, readOnly bool) (*tools.Registry, error) {
	return parent.Pick(func(t tools.Tool) bool {
		return !taskLeftOut[t.Name()] && (!readOnly || tools.TrustedReadOnly(t))
	})
}

// runTask runs a task call: a child session does the sub-task, and its
// report, with a line of its usage, is the call's result. agents are
// the custom agents the call may name.
func (t *turn) runTask(ctx context.Context, c provider.ToolCall, args json.RawMessage, ev *ToolEvent, agents []*customAgent) tools.Result {
	var ta taskArgs
	if err := tools.DecodeArgs(args, &ta); err != nil {
		return tools.Errorf("%v", err)
	}
	if strings.TrimSpace(ta.Prompt) == "" {
		return tools.Errorf("prompt is required: the helper sees nothing but it")
	}
	readOnly := ta.ReadOnly == nil || *ta.ReadOnly
	if !readOnly && t.s.PlanMode() {
		ev.Denied = true
		return tools.Result{
			Content: "Plan mode: a task that may change files was not run. Only read-only tasks (read_only: true) run until the user approves a plan; present it with exit_plan_mode.",
			IsError: true, Summary: "plan mode",
		}
	}
	var as *customAgent
	if ta.SubagentType != "" {
		var err error
		if as, err = findAgent(agents, ta.SubagentType); err != nil {
			return tools.Errorf("%v", err)
		}
	}
	reg, err := taskTools(t.s.tools, readOnly)
	if err == nil && as != nil {
		reg, err = reg.Pick(as.allows)
	}
	if err != nil {
		return tools.Errorf("the task could not start: %v", err)
	}
	child, err := t.a.taskAgent(t, c.ID, reg, ta.MaxSteps, as)
	if err != nil {
		return tools.Errorf("the task could not start: %v", err)
	}
	s := child.taskSession(t.s.ID, reg)
	s.steps = t.s.steps.sub(c.ID, t.n)
	s.spendFrom(t, child.ModelRef)
	ct := &turn{a: child, s: s, n: 1, log: t.log, nested: true, effort: t.effort, subagent: "general-purpose"}
	if as != nil {
		ct.subagent = as.name
	}
	// What the parent changed so far is the child's to save before a
	// shell command, as its own changes are.
	for _, p := range t.changedFiles() {
		ct.noteChanged([]string{p})
	}
	start := time.Now()
	res, err := ct.run(ctx, prepared{text: ta.Prompt})
	took := time.Since(start)
	t.noteChanged(ct.changedFiles())
	if cerr := t.chargeHelper(ct, child.ModelRef); cerr != nil && err == nil {
		err = cerr
	}

	report := strings.TrimSpace(res.Text)
	stop := res.Stop
	switch {
	case err == nil:
	case ctx.Err() != nil:
		stop = StopCancelled
		report = "The task was cancelled."
	case errors.Is(err, ErrMaxSteps):
		report = fmt.Sprintf("The task stopped after %d model requests (its max_steps) before it finished.%s", ct.steps, lastFindings(s))
	case errors.Is(err, ErrBudgetExceeded):
		if over := (*budgetStop)(nil); errors.As(err, &over) && over.parent {
			report = fmt.Sprintf("The task stopped: the session's %s.%s", over.notice, lastFindings(s))
		} else {
			report = fmt.Sprintf("The task stopped: it used up its token budget (%d tokens).%s", child.TokenBudget, lastFindings(s))
		}
	default:
		stop = StopError
		report = fmt.Sprintf("The task failed: %v.%s", err, lastFindings(s))
	}
	if report == "" {
		report = "(the task gave no report)"
	}
	line := fmt.Sprintf("[task %s: %s, %s, %d tokens (%.0f%% cached), %.1fs",
		stop, countOf(ct.steps, "model request"), countOf(ct.calls, "tool call"), ct.usage.Total(), 100*ct.usage.HitRatio(), took.Seconds())
	if child.Price != nil {
		line += fmt.Sprintf(", $%.4f", ct.cost)
	}
	switch {
	case as != nil:
		line += fmt.Sprintf(", agent %s on %s", as.name, child.ModelRef)
	case child.ModelRef != t.a.ModelRef:
		line += ", on " + child.ModelRef
	}
	line += "]"
	return tools.Result{
		Content: report + "\n\n" + line,
		IsError: err != nil,
		// In the words of the turn's own accounting line.
		Summary: fmt.Sprintf("%s: %s, %s", stop, countOf(ct.steps, "request"), countOf(ct.calls, "tool call")),
		Changed: ct.changedFiles(),
	}
}

// lastFindings quotes the last thing a stopped child said, if anything.
func lastFindings(s *Session) string {
	msgs := s.Messages()
	// The last message of a stopped child is the loop's note on the stop.
	for i := len(msgs) - 2; i > 0; i-- {
		if m := msgs[i]; m.Role == provider.RoleAssistant && strings.TrimSpace(m.Content) != "" {
			return " Its last words:\n\n" + strings.TrimSpace(m.Content)
		}
	}
	return ""
}

// taskAgent is the agent a task's child runs on, with the child's step
// limit: task_max_steps (else max_steps), or the call's if lower. Its
// model is the custom agent's, else subagent_model, else a's; its system
// prompt carries the custom agent's instructions, if the call named one.
func (a *Agent) taskAgent(parent *turn, callID string, reg *tools.Registry, maxSteps int, as *customAgent) (*Agent, error) {
	steps := a.TaskMaxSteps
	if steps == 0 {
		steps = a.MaxSteps
	}
	if maxSteps > 0 && (steps == 0 || maxSteps < steps) {
		steps = maxSteps
	}
	on, system := a, taskSystemPrompt
	if a.Subagent != nil {
		on = a.Subagent
	}
	if as != nil {
		system = as.prompt()
		if as.model != "" {
			m, err := a.onModel(as.model)
			switch {
			case err == nil:
				on = m
			case claudeModels[as.model]:
				// A file written for Claude Code names its models;
				// unless a provider here serves one by that name, the
				// agent runs where a general helper would.
				parent.event(Event{Kind: EventNotice, Parent: callID, Text: fmt.Sprintf("agent %s names the model %q, which no configured provider serves; it runs on %s", as.name, as.model, on.ModelRef)})
			default:
				return nil, fmt.Errorf("agent %s (%s): model: %w", as.name, shortPath(as.path, a.root()), err)
			}
		}
	}
	return on.helper(parent, callID, reg, system, steps, a.TaskTokenBudget), nil
}

// helper is the agent a child session runs on (a task's, the planner's):
// a's model, environment and gate, with the child's tools, prompt and
// limits, storing nothing, and reporting its tool activity through the
// parent's turn under parentID.
func (a *Agent) helper(parent *turn, parentID string, reg *tools.Registry, system string, maxSteps, budget int) *Agent {
	child := *a
	child.Tools, child.Plugins = reg, nil
	child.SystemPrompt = system
	child.Store, child.Plans, child.Planner, child.Subagent = nil, nil, nil, nil
	child.MaxSteps, child.TokenBudget = maxSteps, budget
	// The session's cost budget is the parent's to check.
	child.CostBudget = 0
	// Auxiliary work stays on the session's own model.
	child.Escalation = nil
	child.Sink = func(e Event) {
		switch e.Kind {
		case EventToolStart, EventToolProgress, EventToolResult, EventNotice:
		default:
			return // the child's text and usage are in what it hands back
		}
		e.Parent, e.Step = parentID, 0
		parent.event(e)
	}
	return &child
}

// taskSession starts a child session: a system message of its own, the
// tools reg, and the parent's id.
func (a *Agent) taskSession(id string, reg *tools.Registry) *Session {
	r := newRedactor(a.Secrets)
	s := &Session{ID: id, Created: time.Now(), redact: &r, tools: reg, turns: 1, running: true}
	s.messages = []provider.Message{{Role: provider.RoleSystem, Content: a.systemMessage()}}
	s.marks, s.seq = []store.Mark{{Seq: 1}}, 1
	return s
}
