// Package tools defines what the agent can do: the Tool interface, the
// Registry the agent sees, and the seams (FS, Env) through which every tool
// touches the world. Built-in tools live in tools/builtin and register
// themselves from init; MCP tools are adapted into the same interface.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Tool is one capability offered to the model.
//
// Execute has two error channels. A problem the model should see and can act
// on (bad arguments, a missing file, a non-unique edit) is a Result with
// IsError set. A returned error means the system failed (the context ended,
// the disk is gone); the agent reports it to the model too, but also to the
// user.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON Schema of the arguments object.
	Schema() json.RawMessage
	// ReadOnly reports whether the tool never changes anything outside the
	// process. Read-only calls may run in parallel and are allowed by the
	// permission fallback.
	ReadOnly() bool
	Execute(ctx context.Context, env *Env, args json.RawMessage) (Result, error)
}

// Result is what a tool call returns to the model.
type Result struct {
	// Content is the text the model reads.
	Content string
	// IsError marks a failed call; the model sees Content either way.
	IsError bool
	// Summary is a short, one-line description for people watching
	// ("42 lines", "exit 1"). Optional.
	Summary string
	// Changed lists the absolute paths the call wrote, moved or deleted.
	Changed []string
	// Notice, when set, is something the user should be told about the
	// call, beyond its summary (a change it made that was undone).
	Notice string
}

// Errorf returns a failed Result whose content is the formatted message.
func Errorf(format string, args ...any) Result {
	msg := fmt.Sprintf(format, args...)
	return Result{Content: "Error: " + msg, IsError: true, Summary: firstLine(msg)}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	const max = 100
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// DecodeArgs unmarshals raw JSON arguments into v, rejecting unknown fields
// so a misspelled argument is reported instead of silently ignored. The
// returned error is worded for the model.
func DecodeArgs(raw json.RawMessage, v any) error {
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("invalid arguments: trailing data after the JSON object")
	}
	return nil
}

// Untrusted is implemented by tools whose ReadOnly answer comes from a
// third party, such as an MCP server's readOnlyHint. Plan mode runs only
// tools whose read-only claim is trusted.
type Untrusted interface {
	UntrustedReadOnly() bool
}

// TrustedReadOnly reports whether t is read-only on Reasonix's own word.
func TrustedReadOnly(t Tool) bool {
	if !t.ReadOnly() {
		return false
	}
	u, ok := t.(Untrusted)
	return !ok || !u.UntrustedReadOnly()
}

// AlwaysAsker is implemented by tools whose every call needs a fresh human
// approval (writes to long-term memory, for instance).
type AlwaysAsker interface {
	AlwaysAsk() bool
}

// Previewer is implemented by tools that always ask (AlwaysAsker) and can
// show the person asked what a call will do beyond what its arguments
// say: the note it saves and the one that replaces, the note it archives.
// An error is worded for the model and means the call cannot run: it is
// not put to the user.
type Previewer interface {
	Preview(env *Env, args json.RawMessage) (string, error)
}

// Exclusive is implemented by read-only tools whose calls run alone, never
// in a parallel batch beside other calls: a question to the user is one
// at a time.
type Exclusive interface {
	Exclusive() bool
}

// FileChanger is implemented by tools that change files through Env.FS.
// ChangedPaths lists, from a call's arguments and before it runs, every
// path the call may create, change, delete or move (both ends of a move),
// spelt as the arguments spell them. The permission rules are judged
// against these paths, and the write seam holds the call to them. An
// error is worded for the model and means the arguments cannot be read:
// the call is not run.
type FileChanger interface {
	ChangedPaths(args json.RawMessage) ([]string, error)
}

// ErrNotPermitted is wrapped by an FS's refusal of a change the permission
// rules do not allow. It is the model's to see: a tool reports it as a
// failed Result, not as a failure of the system.
var ErrNotPermitted = errors.New("not permitted")
