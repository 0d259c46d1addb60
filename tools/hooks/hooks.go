// Package hooks runs the user's hooks: programs that Claude Code's
// settings.json format attaches to points of the agent's work — before
// and after a tool call, when a prompt is submitted, when the agent is
// about to stop, when a session starts and before a compaction. A hook
// gets the event as JSON on its stdin and answers with its exit code,
// its stderr and, optionally, JSON on its stdout; it may block what was
// about to happen and tell the model why.
//
// Hooks are the user's own programs: they run outside the shell
// sandbox, in the workspace, with a timeout. Which hooks are in force —
// the user's always, a workspace's only once the user trusts it — is the
// configuration's business (agent/config); this package parses the
// format, matches tool names and runs the commands.
package hooks

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Event names a point of the agent's work hooks attach to, as Claude
// Code names it.
type Event string

// The events hooks attach to.
const (
	// PreToolUse runs before a tool call is judged and run; it may block
	// the call, whose result is then the hook's reason.
	PreToolUse Event = "PreToolUse"
	// PostToolUse runs after a tool call ran; it may give the model
	// something to read about the result.
	PostToolUse Event = "PostToolUse"
	// UserPromptSubmit runs before a prompt becomes a turn; it may block
	// the prompt or add context to it.
	UserPromptSubmit Event = "UserPromptSubmit"
	// Stop runs when the model answers without calling a tool; it may
	// make the agent go on, with its reason as the next message.
	Stop Event = "Stop"
	// SessionStart runs before a session's first turn in this process;
	// what it prints is added to that turn's prompt.
	SessionStart Event = "SessionStart"
	// PreCompact runs before a compaction.
	PreCompact Event = "PreCompact"
	// SubagentStart runs before a task's helper starts; what it prints
	// as additionalContext joins the helper's prompt.
	SubagentStart Event = "SubagentStart"
	// SubagentStop is Stop for a task's helper: it runs when the helper
	// answers without calling a tool, and may make it go on.
	SubagentStop Event = "SubagentStop"
	// Notification runs when Reasonix is about to ask the user (a
	// permission question); it cannot block. Users attach desktop
	// notifications to it.
	Notification Event = "Notification"
	// SessionEnd runs when a session that ran a turn in this process
	// ends: the run is over, the editor's server shuts down, /clear; it
	// cannot block.
	SessionEnd Event = "SessionEnd"
)

// Events lists the events hooks attach to.
var Events = []Event{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStart, SubagentStop, SessionStart, SessionEnd, PreCompact, Notification}

// DefaultTimeout bounds a hook that names no timeout of its own.
const DefaultTimeout = 60 * time.Second

// Command is one entry of a matcher's "hooks" list.
type Command struct {
	// Type is "command", the only kind run.
	Type    string `json:"type" toml:"type"`
	Command string `json:"command" toml:"command"`
	// Timeout is in seconds; 0 means DefaultTimeout.
	Timeout int `json:"timeout,omitempty" toml:"timeout"`
}

// Group is one entry of an event's list: a matcher and the commands
// that run when it matches.
type Group struct {
	// Matcher selects tool calls by the tool's name (see Match); the
	// events that are not about a tool ignore it, but for PreCompact's
	// trigger and SessionStart's source.
	Matcher string    `json:"matcher,omitempty" toml:"matcher"`
	Hooks   []Command `json:"hooks" toml:"hooks"`
}

// Settings is the "hooks" object of a settings.json (and the [hooks]
// table of a reasonix.toml): each event's groups.
type Settings map[string][]Group

// Hook is one command attached to one event, as it is in force.
type Hook struct {
	Event   Event
	Matcher string
	Command string
	// Timeout is in seconds; 0 means DefaultTimeout.
	Timeout int
	// Source says where the hook is set, for the log ("file:line").
	Source string
}

// timeout is how long the hook may run.
func (h Hook) timeout() time.Duration {
	if h.Timeout > 0 {
		return time.Duration(h.Timeout) * time.Second
	}
	return DefaultTimeout
}

// Content is what identifies the hook for the user's trust: a changed
// event, matcher, command or timeout is another hook.
func (h Hook) Content() []any {
	return []any{"hook", string(h.Event), h.Matcher, h.Command, h.Timeout}
}

// File is the part of a settings.json this package reads; the file's
// other settings belong to other programs.
type File struct {
	Hooks Settings `json:"hooks"`
}

// ParseFile reads the hooks of a settings.json.
func ParseFile(data []byte) (Settings, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("hooks: %w", err)
	}
	return f.Hooks, nil
}

// An Entry is one hook of a Settings, with the position of its group in
// the event's list (for the caller to find its line).
type Entry struct {
	Hook
	Group int
}

// Flatten lists the hooks of s in a stable order: the known events in
// the order of Events, each event's groups and commands as written. It
// returns problems with entries it leaves out (an unknown event, a
// matcher that is not a valid pattern, a command of another type).
func (s Settings) Flatten() (entries []Entry, problems []string) {
	for name := range s {
		if !slices.Contains(Events, Event(name)) {
			problems = append(problems, fmt.Sprintf("hooks: event %q is not one Reasonix runs (%v); its hooks are ignored", name, Events))
		}
	}
	slices.Sort(problems)
	for _, ev := range Events {
		for gi, g := range s[string(ev)] {
			if _, err := compile(g.Matcher); err != nil {
				problems = append(problems, fmt.Sprintf("hooks: %s matcher %q: %v (ignored)", ev, g.Matcher, err))
				continue
			}
			for _, c := range g.Hooks {
				switch {
				case c.Type != "command":
					problems = append(problems, fmt.Sprintf("hooks: %s hook of type %q: only \"command\" hooks run (ignored)", ev, c.Type))
				case c.Command == "":
					problems = append(problems, fmt.Sprintf("hooks: %s hook with no command (ignored)", ev))
				case c.Timeout < 0:
					problems = append(problems, fmt.Sprintf("hooks: %s hook %q: negative timeout (ignored)", ev, c.Command))
				default:
					entries = append(entries, Entry{Hook: Hook{Event: ev, Matcher: g.Matcher, Command: c.Command, Timeout: c.Timeout}, Group: gi})
				}
			}
		}
	}
	return entries, problems
}
