package agent

import (
	"encoding/json"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

// The agent's own tools describe themselves like the built-ins
// (tools.Describer): the loop runs their calls, and no rule family
// covers them.

func (taskTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyAsk, Kind: tools.KindThink}
}

func (t taskTool) Describe(args json.RawMessage) tools.Call {
	return tools.GenericCall(t.Name(), args)
}

func (exitPlanTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyOther, Kind: tools.KindSwitchMode}
}

func (t exitPlanTool) Describe(args json.RawMessage) tools.Call {
	return tools.GenericCall(t.Name(), args)
}

func (todoTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyOther, Kind: tools.KindThink}
}

func (t todoTool) Describe(args json.RawMessage) tools.Call {
	return tools.GenericCall(t.Name(), args)
}

// Describe returns what a call of the named tool is and does, in the
// tool's own words (tools.Describer): a built-in's, the agent's own
// tools', or the generic description of any other (an MCP tool).
func Describe(name string, args json.RawMessage) (tools.Traits, tools.Call) {
	t, ok := tools.Builtin(name)
	switch {
	case ok:
	case name == taskName:
		t = taskTool{}
	case name == exitPlanName:
		t = exitPlanTool{}
	case name == TodoToolName:
		t = todoTool{}
	default:
		return tools.Generic(name, args)
	}
	return tools.Describe(t, args)
}
