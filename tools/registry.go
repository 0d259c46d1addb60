package tools

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/reasonix/reasonix/tools/permission"
)

var (
	builtinMu sync.Mutex // guards builtins
	builtins  = map[string]Tool{}
)

// RegisterBuiltin adds a compiled-in tool, and tells the permission
// rules its family and how it renders a call's change (Describer). It is
// meant to be called from init and panics on a duplicate name, which is a
// programming error.
func RegisterBuiltin(t Tool) {
	builtinMu.Lock()
	defer builtinMu.Unlock()
	if _, dup := builtins[t.Name()]; dup {
		panic("tools: builtin registered twice: " + t.Name())
	}
	builtins[t.Name()] = t
	describeToRules(t)
}

// describeToRules tells the permission rules what a tool that describes
// itself is (permission.Describe).
func describeToRules(t Tool) {
	d, ok := t.(Describer)
	if !ok {
		return
	}
	permission.Describe(t.Name(), d.Traits().Family, func(args json.RawMessage) string { return d.Describe(args).Change })
}

// Builtin returns the compiled-in tool of that name.
func Builtin(name string) (Tool, bool) {
	builtinMu.Lock()
	defer builtinMu.Unlock()
	t, ok := builtins[name]
	return t, ok
}

// Builtins returns the compiled-in tools sorted by name.
func Builtins() []Tool {
	builtinMu.Lock()
	defer builtinMu.Unlock()
	out := make([]Tool, 0, len(builtins))
	for _, t := range builtins {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Registry is the set of tools one session offers the model. Its order is
// fixed at construction so the tool schemas, which are part of the cached
// prompt prefix, serialize identically on every request.
type Registry struct {
	order []string
	tools map[string]Tool
	// flat holds the tools whose schemas are shown flattened.
	flat map[string]flatSchema
	// lean shows the tools that have a lean description (lean.go) with
	// it and with their LeanSchema.
	lean bool
}

// NewRegistry builds a registry from tools in the given order. A duplicate
// name is an error (an MCP tool cannot shadow a built-in).
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: make(map[string]Tool, len(ts))}
	for _, t := range ts {
		if _, dup := r.tools[t.Name()]; dup {
			return nil, fmt.Errorf("tool %q registered twice", t.Name())
		}
		r.tools[t.Name()] = t
		r.order = append(r.order, t.Name())
		if f, ok := flatten(t.Schema()); ok {
			if r.flat == nil {
				r.flat = map[string]flatSchema{}
			}
			r.flat[t.Name()] = f
		}
	}
	return r, nil
}

// DefaultRegistry holds the built-ins, filtered by enabled when it is not
// empty. An unknown name in enabled is an error.
func DefaultRegistry(enabled []string) (*Registry, error) {
	all := Builtins()
	if len(enabled) == 0 {
		return NewRegistry(all...)
	}
	byName := make(map[string]Tool, len(all))
	for _, t := range all {
		byName[t.Name()] = t
	}
	var picked []Tool
	for _, name := range enabled {
		t, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("unknown tool %q in [tools] enabled", name)
		}
		picked = append(picked, t)
	}
	sort.Slice(picked, func(i, j int) bool { return picked[i].Name() < picked[j].Name() })
	return NewRegistry(picked...)
}

// With returns a registry of r's tools followed by more. A name already
// taken is an error.
func (r *Registry) With(more ...Tool) (*Registry, error) {
	all := make([]Tool, 0, len(r.order)+len(more))
	for _, name := range r.order {
		all = append(all, r.tools[name])
	}
	return r.keepProfile(NewRegistry(append(all, more...)...))
}

// Pick returns a registry of those of r's tools that keep accepts, in
// r's order and shown as r shows them.
func (r *Registry) Pick(keep func(Tool) bool) (*Registry, error) {
	var picked []Tool
	for _, name := range r.order {
		if t := r.tools[name]; keep(t) {
			picked = append(picked, t)
		}
	}
	return r.keepProfile(NewRegistry(picked...))
}

// Replace returns a registry of r's tools with t in the place of the
// tool of its name, shown as r shows them; an error when r has none.
func (r *Registry) Replace(t Tool) (*Registry, error) {
	if _, ok := r.tools[t.Name()]; !ok {
		return nil, fmt.Errorf("no tool %q to replace", t.Name())
	}
	all := make([]Tool, 0, len(r.order))
	for _, name := range r.order {
		if name == t.Name() {
			all = append(all, t)
		} else {
			all = append(all, r.tools[name])
		}
	}
	return r.keepProfile(NewRegistry(all...))
}

// keepProfile shows the registry derived shown as r is shown.
func (r *Registry) keepProfile(derived *Registry, err error) (*Registry, error) {
	if err != nil {
		return nil, err
	}
	derived.lean = r.lean
	return derived, nil
}

// Get returns the named tool.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Names lists the tool names in registry order.
func (r *Registry) Names() []string { return append([]string(nil), r.order...) }

// Schema describes one tool to the model: its name, what it does, and the
// JSON Schema of its arguments. The agent hands it to the provider as is.
type Schema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Schemas describes every tool to the model, in registry order. A wide
// or deep schema is shown flattened (flatten.go); Renest undoes it on a
// call's arguments.
func (r *Registry) Schemas() []Schema {
	out := make([]Schema, 0, len(r.order))
	for _, name := range r.order {
		t := r.tools[name]
		params, desc := t.Schema(), t.Description()
		if f, ok := r.flat[name]; ok {
			params = f.params
		}
		if lean, ok := leanDescription(name); r.lean && ok {
			params, desc = LeanSchema(params), lean
		}
		out = append(out, Schema{
			Name:        t.Name(),
			Description: desc,
			Parameters:  params,
		})
	}
	return out
}

// Flattened reports whether the tool's schema is shown flattened.
func (r *Registry) Flattened(name string) bool {
	_, ok := r.flat[name]
	return ok
}

// Renest puts the arguments of a call of a flattened tool back in the
// shape of the tool's schema; other tools' arguments are returned as
// they are.
func (r *Registry) Renest(name string, args json.RawMessage) (json.RawMessage, error) {
	f, ok := r.flat[name]
	if !ok {
		return args, nil
	}
	return f.renest(args)
}
