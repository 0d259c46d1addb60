package tools

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

const deepSchema = `{"type": "object", "properties": {
	"name": {"type": "string"},
	"config": {"type": "object", "properties": {
		"retry": {"type": "object", "properties": {
			"count": {"type": "integer"},
			"backoff": {"type": "string"}
		}, "required": ["count"]},
		"tags": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}}
	}, "required": ["retry"]}
}, "required": ["name", "config"]}`

func TestFlattenRoundTrip(t *testing.T) {
	f, ok := flatten(json.RawMessage(deepSchema))
	if !ok {
		t.Fatal("a schema three levels deep was not flattened")
	}
	var shown objectSchema
	if err := json.Unmarshal(f.params, &shown); err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range shown.Properties {
		names = append(names, n)
	}
	want := map[string]bool{"name": true, "config.retry.count": true, "config.retry.backoff": true, "config.tags": true}
	if len(names) != len(want) {
		t.Fatalf("properties %v", names)
	}
	for _, n := range names {
		if !want[n] {
			t.Fatalf("properties %v", names)
		}
	}
	// Required all the way down, and only then.
	if !reflect.DeepEqual(shown.Required, []string{"config.retry.count", "name"}) {
		t.Errorf("required %v", shown.Required)
	}
	// Byte-stable: the prefix is cached byte for byte.
	if g, _ := flatten(json.RawMessage(deepSchema)); !bytes.Equal(g.params, f.params) {
		t.Error("two flattenings differ")
	}

	flat := `{"name": "x", "config.retry.count": 3, "config.retry.backoff": "exp", "config.tags": [{"k": "a.b"}]}`
	got, err := f.renest(json.RawMessage(flat))
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	json.Unmarshal(got, &g)
	json.Unmarshal([]byte(`{"name": "x", "config": {"retry": {"count": 3, "backoff": "exp"}, "tags": [{"k": "a.b"}]}}`), &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("renest = %s", got)
	}
}

func TestFlattenLeavesNarrowSchemas(t *testing.T) {
	wide := `{"type": "object", "properties": {`
	for i := range 11 {
		if i > 0 {
			wide += ","
		}
		wide += `"p` + string(rune('a'+i)) + `": {"type": "string"}`
	}
	wideNested := wide + `, "n": {"type": "object", "properties": {"m": {"type": "string"}}}}}`
	wide += `}}`
	tests := []struct {
		name, schema string
		flat         bool
	}{
		{"flat and small", `{"type": "object", "properties": {"path": {"type": "string"}}}`, false},
		{"two levels", `{"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}}`, false},
		{"eleven leaves, flat already", wide, false},
		{"twelve leaves, one nested", wideNested, true},
		{"a dotted name", `{"type": "object", "properties": {"a.b": {"type": "object", "properties": {"c": {"type": "object", "properties": {"d": {}}}}}}}`, false},
	}
	for _, tt := range tests {
		if _, ok := flatten(json.RawMessage(tt.schema)); ok != tt.flat {
			t.Errorf("%s: flattened %v, want %v", tt.name, ok, tt.flat)
		}
	}
}
