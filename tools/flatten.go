package tools

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Models drop arguments of tools whose schemas are wide or deep (MCP
// servers' tools, mostly), so such a schema is shown flattened: every
// leaf of nested objects becomes one top-level property named by its
// dotted path ("options.retry.count"), and a call's arguments are put
// back in shape before the tool sees them. Arrays are leaves: their items
// keep their schema. A wide schema with no nested object is left alone:
// there is nothing to flatten.
const (
	flattenLeaves = 10 // more leaves than this, flattened
	flattenDepth  = 2  // leaves deeper than this, flattened
)

// flatSchema is a flattened schema and the dotted names it introduced.
type flatSchema struct {
	params json.RawMessage
	paths  map[string][]string // a dotted name with a dot → its path
}

// objectSchema is the part of a JSON Schema flattening reads.
type objectSchema struct {
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// flatten returns schema flattened, or false when it is narrow and
// shallow enough as it is, or cannot be flattened without ambiguity (a
// property name that holds a dot).
func flatten(schema json.RawMessage) (flatSchema, bool) {
	type leaf struct {
		path     []string
		schema   json.RawMessage
		required bool
	}
	var leaves []leaf
	maxDepth, ok := 0, true
	var walk func(path []string, s objectSchema, required bool)
	walk = func(path []string, s objectSchema, required bool) {
		for name, raw := range s.Properties {
			if strings.Contains(name, ".") {
				ok = false
			}
			p := append(append([]string(nil), path...), name)
			req := required && slices.Contains(s.Required, name)
			var sub objectSchema
			if json.Unmarshal(raw, &sub) == nil && len(sub.Properties) > 0 {
				walk(p, sub, req)
				continue
			}
			leaves = append(leaves, leaf{p, raw, req})
			maxDepth = max(maxDepth, len(p))
		}
	}
	var root objectSchema
	if json.Unmarshal(schema, &root) != nil {
		return flatSchema{}, false
	}
	walk(nil, root, true)
	if !ok || (len(leaves) <= flattenLeaves && maxDepth <= flattenDepth) {
		return flatSchema{}, false
	}
	out := struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"` // marshals sorted: byte-stable
		Required   []string                   `json:"required,omitempty"`
	}{Type: "object", Properties: map[string]json.RawMessage{}}
	f := flatSchema{paths: map[string][]string{}}
	for _, l := range leaves {
		name := strings.Join(l.path, ".")
		out.Properties[name] = l.schema
		if l.required {
			out.Required = append(out.Required, name)
		}
		if len(l.path) > 1 {
			f.paths[name] = l.path
		}
	}
	if len(f.paths) == 0 {
		return flatSchema{}, false // wide but flat already
	}
	slices.Sort(out.Required)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(out) != nil {
		return flatSchema{}, false
	}
	f.params = bytes.TrimSpace(b.Bytes())
	return f, true
}

// renest puts flattened arguments back in the shape of the tool's own
// schema; names it did not introduce pass through.
func (f flatSchema) renest(args json.RawMessage) (json.RawMessage, error) {
	var flat map[string]json.RawMessage
	if err := json.Unmarshal(args, &flat); err != nil {
		return nil, err
	}
	out := map[string]any{}
	for name, v := range flat {
		path, ok := f.paths[name]
		if !ok {
			out[name] = v
			continue
		}
		m := out
		for _, seg := range path[:len(path)-1] {
			next, ok := m[seg].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[seg] = next
			}
			m = next
		}
		m[path[len(path)-1]] = v
	}
	return json.Marshal(out)
}
