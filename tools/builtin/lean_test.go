package builtin

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/reasonix/reasonix/tools"
)

// withoutDescriptions is a schema with every "description" keyword
// dropped, at any depth, keeping properties that are named description.
func withoutDescriptions(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k == "description" {
				if _, isSchema := x.(string); isSchema {
					continue
				}
			}
			out[k] = withoutDescriptions(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutDescriptions(x)
		}
		return out
	}
	return v
}

// TestLeanProfile checks that the lean profile holds the tools that
// read, search, edit and run, each shown with its short description and
// a schema that accepts exactly what its full schema accepts.
func TestLeanProfile(t *testing.T) {
	reg, err := tools.LeanRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"read_file", "ls", "glob", "grep", "edit_file", "write_file", "bash"} {
		if _, ok := reg.Get(want); !ok {
			t.Errorf("the lean profile lacks %s: %v", want, reg.Names())
		}
	}
	for _, s := range reg.Schemas() {
		full, _ := tools.Builtin(s.Name)
		if s.Description == full.Description() || len(s.Description) > 300 {
			t.Errorf("%s: lean description of %d bytes, not a short one of its own", s.Name, len(s.Description))
		}
		var lean, whole any
		if err := json.Unmarshal(s.Parameters, &lean); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(full.Schema(), &whole); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(lean, withoutDescriptions(whole)) {
			t.Errorf("%s: lean schema %s is not the full one %s less its descriptions", s.Name, s.Parameters, full.Schema())
		}
	}

	picked, err := tools.LeanRegistry([]string{"read_file", "grep"})
	if err != nil || !reflect.DeepEqual(picked.Names(), []string{"grep", "read_file"}) {
		t.Errorf("LeanRegistry(read_file, grep) = %v, %v", picked, err)
	}
	if _, err := tools.LeanRegistry([]string{"project_graph"}); err == nil {
		t.Error("a tool outside the lean profile was accepted in enabled")
	}
}

// TestLeanSchemaKeepsADescriptionProperty checks that an argument named
// description survives LeanSchema.
func TestLeanSchemaKeepsADescriptionProperty(t *testing.T) {
	got := string(tools.LeanSchema(rememberSchema))
	want := `{"additionalProperties":false,"properties":{"content":{"type":"string"},"description":{"type":"string"},"name":{"type":"string"},"scope":{"enum":["user","project"],"type":"string"}},"required":["scope","name","description","content"],"type":"object"}`
	if got != want {
		t.Errorf("LeanSchema(remember) = %s", got)
	}
}
