package agent

import (
	"encoding/json"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/gotest"
)

// EventKind names what an Event reports.
type EventKind string

const (
	// EventTurnStart opens a turn; Text is the user's prompt.
	EventTurnStart EventKind = "turn_start"
	// EventText is a piece of the answer as the model streams it.
	EventText EventKind = "text"
	// EventReasoning is a piece of the model's reasoning.
	EventReasoning EventKind = "reasoning"
	// EventRetry says the model request failed transiently and is being
	// retried; text and reasoning streamed since the step began are void.
	EventRetry EventKind = "retry"
	// EventToolStart announces a tool call before it is checked and run.
	EventToolStart EventKind = "tool_start"
	// EventToolProgress says how far along a running tool call is; Text
	// is the tool's own words ("step 3 of 10").
	EventToolProgress EventKind = "tool_progress"
	// EventToolResult carries a tool call's outcome.
	EventToolResult EventKind = "tool_result"
	// EventUsage reports the tokens and cost of one model request, with
	// the running totals of the turn and the session.
	EventUsage EventKind = "usage"
	// EventNotice is something the user should know that is not an error.
	EventNotice EventKind = "notice"
	// EventCompaction reports a compaction: Text is the one-line notice
	// ("compacted: 41k → 6.2k tokens, 38 messages archived"), Compaction
	// the details.
	EventCompaction EventKind = "compaction"
	// EventRepair says a tool-call repair pass fired (repair.go): Repair
	// names the pass, Text says what it did ("storm: bash echo hi
	// repeats the call made 1 before it; not run").
	EventRepair EventKind = "repair"
	// EventFileChanged reports a change the turn made to a file, by a
	// tool or a shell command; File says which and what it held before
	// the turn.
	EventFileChanged EventKind = "file_changed"
	// EventCheck reports the check of a turn's edits (check.go): Text
	// says what it found, Check the new errors.
	EventCheck EventKind = "check"
	// EventError reports a failure that ends the turn.
	EventError EventKind = "error"
	// EventTurnDone closes a turn; Done holds its outcome.
	EventTurnDone EventKind = "turn_done"
	// EventRewind reports a rewind (rewind.go): Rewind holds what it did.
	EventRewind EventKind = "rewind"
	// EventHook reports that one of the user's hooks ran (hooks.go): Text
	// names the hook and its event and says how it ended.
	EventHook EventKind = "hook"
)

// Event is one thing that happened in a session. The loop never prints:
// it emits events, and a renderer (the terminal, an LSP client's panel)
// decides what to show. Events are JSON so they can cross a wire as is.
type Event struct {
	Kind      EventKind   `json:"kind"`
	SessionID string      `json:"sessionId"`
	Turn      int         `json:"turn"`
	Step      int         `json:"step,omitempty"`
	Text      string      `json:"text,omitempty"`
	Tool      *ToolEvent  `json:"tool,omitempty"`
	Usage     *UsageEvent `json:"usage,omitempty"`
	Done      *TurnResult `json:"done,omitempty"`
	Error     string      `json:"error,omitempty"`
	// Compaction is set on EventCompaction.
	Compaction *CompactResult `json:"compaction,omitempty"`
	// Repair is set on EventRepair: the pass, "storm", "scavenge",
	// "truncation" or "flatten".
	Repair string `json:"repair,omitempty"`
	// File is set on EventFileChanged.
	File *FileChange `json:"file,omitempty"`
	// Rewind is set on EventRewind.
	Rewind *RewindPlan `json:"rewind,omitempty"`
	// Check is set on EventCheck: the new errors the check found.
	Check []tools.Diagnostic `json:"check,omitempty"`
	// Tests is set on the EventCheck of a run of the tests that reach
	// the turn's changes (check_tests.go).
	Tests *gotest.Report `json:"tests,omitempty"`
	// Parent is set on the events of a sub-task's child session: the id
	// of the task call that runs it (task.go).
	Parent string `json:"parent,omitempty"`
}

// ToolEvent describes a tool call.
type ToolEvent struct {
	CallID string `json:"callId"`
	Name   string `json:"name"`
	// Title is the call in a few words, such as "bash go test ./...".
	Title     string          `json:"title"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	ReadOnly  bool            `json:"readOnly,omitempty"`
	// The fields below are set on EventToolResult.
	Summary    string   `json:"summary,omitempty"`
	Result     string   `json:"result,omitempty"`
	IsError    bool     `json:"isError,omitempty"`
	Denied     bool     `json:"denied,omitempty"`
	Changed    []string `json:"changed,omitempty"`
	DurationMs int64    `json:"durationMs,omitempty"` // the run once allowed, not the time spent asking
}

// UsageEvent is the accounting after one model request.
type UsageEvent struct {
	Model   string         `json:"model"`
	Request provider.Usage `json:"request"`
	Turn    provider.Usage `json:"turn"`
	Session provider.Usage `json:"session"`
	// Costs are in US dollars; Priced is false when the model has no
	// known price and the costs are zero for that reason.
	RequestCost float64 `json:"requestCost"`
	TurnCost    float64 `json:"turnCost"`
	SessionCost float64 `json:"sessionCost"`
	Priced      bool    `json:"priced"`
}

// StopReason says why a turn ended.
type StopReason string

const (
	StopDone      StopReason = "done"
	StopMaxSteps  StopReason = "max_steps"
	StopBudget    StopReason = "token_budget"
	StopCancelled StopReason = "cancelled"
	StopError     StopReason = "error"
)

// TurnResult is the outcome of one turn.
type TurnResult struct {
	SessionID string         `json:"sessionId"`
	Turn      int            `json:"turn"`
	Text      string         `json:"text"`
	Stop      StopReason     `json:"stop"`
	Steps     int            `json:"steps"`
	ToolCalls int            `json:"toolCalls"`
	Usage     provider.Usage `json:"usage"`
	Cost      float64        `json:"cost"`
	Session   provider.Usage `json:"sessionUsage"`
	// SessionCost is the running cost of the whole session.
	SessionCost float64 `json:"sessionCost"`
	Priced      bool    `json:"priced"`
	// Model is the model reference that wrote the turn's last answer:
	// the session's, or escalation_model's when the answer was
	// escalated, and then EscalatedFrom is the session's.
	Model         string `json:"model,omitempty"`
	EscalatedFrom string `json:"escalatedFrom,omitempty"`
	// Effort is the reasoning effort the turn's requests asked for
	// (/effort, [agent] reasoning_effort); empty when they asked none.
	Effort string `json:"effort,omitempty"`
	// Changes lists the files the turn changed, as the agent sees them
	// when it ended (Before texts are left out here: the file_changed
	// events carried them).
	Changes []FileChange `json:"changes,omitempty"`
	// NewErrors are the errors the check of the turn's edits found in
	// the changed files that were not there before the turn, and that
	// its repair round did not fix (check.go).
	NewErrors []tools.Diagnostic `json:"newErrors,omitempty"`
	// Tests is the last run of the tests that reach the turn's changes,
	// on their text (check_tests.go); nil when none ran.
	Tests *gotest.Report `json:"tests,omitempty"`
	// Action is set when the prompt was a built-in command, which ran
	// no turn (builtin.go).
	Action *Action `json:"action,omitempty"`
}

// DescribeCall renders a tool call in a few words, in the tool's own
// words (Describe): the tool and what the call is about ("read_file
// calc.go", "bash go test ./...", "move_file a.go → b.go").
func DescribeCall(name string, args json.RawMessage) string {
	_, c := Describe(name, args)
	return c.Title
}
