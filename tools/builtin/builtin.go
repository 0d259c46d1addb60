// Package builtin holds the tools compiled into Reasonix. Each tool lives in
// its own file with its description in a sibling .md file, and registers
// itself from init.
package builtin

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
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

// sniffLen is how much of a file is inspected to decide if it is binary.
const sniffLen = 8000

// isBinary reports whether data looks like a binary file: a NUL byte in its
// first bytes, or text that is not valid UTF-8 there.
func isBinary(data []byte) bool {
	head := data
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	// Allow a multi-byte rune cut at the end of the sniffed window.
	for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return !utf8.Valid(head)
}
