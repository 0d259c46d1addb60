package agent

import "testing"

func TestCloseJSON(t *testing.T) {
	tests := []struct {
		in, want string // want "" when it must refuse
	}{
		{`{"path": "a.txt", "content": "hello"`, `{"path": "a.txt", "content": "hello"}`},
		{`{"path": "a.go", "edits": [{"old_string": "a", "new_string": "b"}`, `{"path": "a.go", "edits": [{"old_string": "a", "new_string": "b"}]}`},
		{`{"path": "a.go", "edits": [{"old_string": "a", "new_string": "b"}]  `, `{"path": "a.go", "edits": [{"old_string": "a", "new_string": "b"}]}`},
		{`{"a": {"b": [true, null`, `{"a": {"b": [true, null]}}`},
		{`{"a": "quote \" and brace } inside"`, `{"a": "quote \" and brace } inside"}`},
		{`{"edits": [`, `{"edits": []}`},
		{`{`, `{}`},
		// Refused: the cut lost part of what was being sent.
		{`{"path": "a.txt", "content": "hel`, ""},
		{`{"path": "a.txt", "content": "ends in an escape \`, ""},
		{`{"path": "a.txt", "content"`, ""},
		{`{"path": "a.txt", "content":`, ""},
		{`{"path": "a.txt",`, ""},
		{`{"limit": 12`, ""},
		{`{"replace_all": tru`, ""},
		{`{"a": 1}`, ""},  // nothing to close
		{`{"a": 1}}`, ""}, // not a cut, a mistake
		{`"a string`, ""},
	}
	for _, tt := range tests {
		got, ok := closeJSON(tt.in)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("closeJSON(%s) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}
