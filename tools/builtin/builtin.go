// Package builtin holds the tools compiled into Reasonix. Each tool lives in
// its own file with its description in a sibling .md file, and registers
// itself from init.
package builtin

import (
	"encoding/json"
	"strings"
)

// schema validates a literal JSON Schema at init, so a typo fails every test
// instead of reaching a model.
func schema(s string) json.RawMessage {
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic("builtin: bad schema: " + err.Error())
	}
	// Re-encode compactly: the schema is part of the cached prompt prefix
	// and should not carry source indentation.
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// fence sets text off between lines of dashes, so where it starts and
// ends (blank lines, trailing spaces) is plain in a change put to a
// person.
func fence(text string) string {
	const rule = "----------"
	return rule + "\n" + strings.TrimSuffix(text, "\n") + "\n" + rule
}
