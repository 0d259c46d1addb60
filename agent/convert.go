package agent

import (
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
)

// The packages below agent (tools, tools/mcp, graph) keep their own small
// types so that they never import agent/...; the conversions from the
// configuration and to the provider happen here, where both sides meet.

// toolSchemas describes reg's tools to the provider, in registry order.
func toolSchemas(reg *tools.Registry) []provider.ToolSchema {
	schemas := reg.Schemas()
	out := make([]provider.ToolSchema, len(schemas))
	for i, s := range schemas {
		out[i] = provider.ToolSchema{Name: s.Name, Description: s.Description, Parameters: s.Parameters}
	}
	return out
}
