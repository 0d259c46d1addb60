package acp

import (
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/tools"
)

// TestToolKinds: the kind each tool shows in the client, as the tools
// give it.
func TestToolKinds(t *testing.T) {
	want := map[string]acpsdk.ToolKind{
		"read_file": acpsdk.ToolKindRead, "ls": acpsdk.ToolKindRead, "skill": acpsdk.ToolKindRead,
		"memory": acpsdk.ToolKindRead, "history": acpsdk.ToolKindRead,
		"write_file": acpsdk.ToolKindEdit, "edit_file": acpsdk.ToolKindEdit, "multi_edit": acpsdk.ToolKindEdit,
		"apply_patch": acpsdk.ToolKindEdit, "rename_symbol": acpsdk.ToolKindEdit,
		"remember": acpsdk.ToolKindEdit, "forget": acpsdk.ToolKindEdit,
		"move_file": acpsdk.ToolKindMove,
		"glob":      acpsdk.ToolKindSearch, "grep": acpsdk.ToolKindSearch, "project_graph": acpsdk.ToolKindSearch,
		"bash": acpsdk.ToolKindExecute, "bash_output": acpsdk.ToolKindRead, "kill_shell": acpsdk.ToolKindExecute,
		"task": acpsdk.ToolKindThink, "ask": acpsdk.ToolKindThink, "todo_write": acpsdk.ToolKindThink,
		"exit_plan_mode":      acpsdk.ToolKindSwitchMode,
		"mcp__web__fetch_url": acpsdk.ToolKindFetch,
		"mcp__fs__read":       acpsdk.ToolKindOther,
	}
	for name, k := range want {
		if got := toolKind(name); got != k {
			t.Errorf("toolKind(%s) = %s, want %s", name, got, k)
		}
	}
	// A built-in added later shows the kind it gives itself.
	for _, b := range tools.Builtins() {
		d, ok := b.(tools.Describer)
		if !ok {
			continue // TestBuiltinsDescribeThemselves fails for it
		}
		if got, k := toolKind(b.Name()), d.Traits().Kind; string(got) != k {
			t.Errorf("toolKind(%s) = %s, but the tool says %s", b.Name(), got, k)
		}
	}
	if len(acpKinds) != 10 {
		t.Errorf("%d kinds mapped, want the protocol's 10", len(acpKinds))
	}
}
