package agent

import (
	"encoding/json"
	"testing"
)

// TestDescribeCall: a call's title, in its tool's words, or read from the
// arguments of a tool that does not describe itself.
func TestDescribeCall(t *testing.T) {
	tests := []struct{ tool, args, want string }{
		{"task", `{"description":"find the bug","prompt":"…"}`, "task find the bug"},
		{"exit_plan_mode", `{"plan":"1. do it"}`, "exit_plan_mode"},
		{"mcp__fs__copy", `{"source":"a","destination":"b"}`, "mcp__fs__copy a → b"},
		{"mcp__fs__copy", `{"destination":"b"}`, "mcp__fs__copy"},
		{"mcp__db__query", `{"query":"select\n  1"}`, "mcp__db__query select 1"},
		{"mcp__x__y", `{"path":"a\u202eb"}`, `mcp__x__y a\u202eb`},
		{"mcp__x__y", `not json`, "mcp__x__y"},
	}
	for _, tt := range tests {
		if got := DescribeCall(tt.tool, json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("DescribeCall(%s, %s) = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}
