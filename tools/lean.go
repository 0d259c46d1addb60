package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The tool profiles, the values of [tools] profile. The full profile
// offers every built-in tool with its whole description. The lean one is
// for models with small context windows (8k tokens, served locally): the
// few tools that read, search, edit and run, each described in a few
// lines, and schemas without per-argument descriptions, so that the
// prefix sent on every request stays under 3k tokens. Its tools are the
// same values as the full profile's: only what the model is shown
// differs, so permissions, previews and caps are those of the full tool.
const (
	ProfileFull = "full"
	ProfileLean = "lean"
)

// leanDescriptions holds the lean description of each built-in tool of
// the lean profile, by name; guarded by builtinMu.
var leanDescriptions = map[string]string{}

// RegisterLean puts the built-in tool name in the lean profile, shown
// with description. Meant for init; a second description of a name
// panics, as a programming error.
func RegisterLean(name, description string) {
	builtinMu.Lock()
	defer builtinMu.Unlock()
	if _, dup := leanDescriptions[name]; dup {
		panic("tools: lean description registered twice: " + name)
	}
	leanDescriptions[name] = strings.TrimSpace(description)
}

// leanDescription returns the lean description of a built-in tool.
func leanDescription(name string) (string, bool) {
	builtinMu.Lock()
	defer builtinMu.Unlock()
	d, ok := leanDescriptions[name]
	return d, ok
}

// LeanRegistry holds the built-ins of the lean profile, filtered by
// enabled when it is not empty. A name in enabled that is not a tool of
// the profile is an error that names those that are.
func LeanRegistry(enabled []string) (*Registry, error) {
	var lean []Tool
	for _, t := range Builtins() {
		if _, ok := leanDescription(t.Name()); ok {
			lean = append(lean, t)
		}
	}
	if len(enabled) > 0 {
		var picked []Tool
		for _, name := range enabled {
			i := slices.IndexFunc(lean, func(t Tool) bool { return t.Name() == name })
			if i < 0 {
				names := make([]string, len(lean))
				for j, t := range lean {
					names[j] = t.Name()
				}
				return nil, fmt.Errorf("tool %q in [tools] enabled is not in the lean profile (%s)", name, strings.Join(names, ", "))
			}
			picked = append(picked, lean[i])
		}
		slices.SortFunc(picked, func(a, b Tool) int { return strings.Compare(a.Name(), b.Name()) })
		lean = picked
	}
	r, err := NewRegistry(lean...)
	if err != nil {
		return nil, err
	}
	r.lean = true
	return r, nil
}

// LeanSchema is schema without the descriptions of its arguments, at
// every depth: it accepts exactly the arguments schema accepts, as a
// description constrains nothing. A property named "description" stays.
func LeanSchema(schema json.RawMessage) json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return schema
	}
	stripDescriptions(s)
	b, err := json.Marshal(s)
	if err != nil {
		return schema
	}
	return b
}

// stripDescriptions removes the description of the schema s and of the
// schemas within it: its properties' and its items'.
func stripDescriptions(s map[string]any) {
	delete(s, "description")
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			if p, ok := p.(map[string]any); ok {
				stripDescriptions(p)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		stripDescriptions(items)
	}
}
