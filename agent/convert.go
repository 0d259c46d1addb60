package agent

import (
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/graph"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/mcp"
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

// mcpServers turns [[plugins]] entries into the MCP servers to start.
func mcpServers(plugins []config.PluginConfig) []mcp.ServerConfig {
	out := make([]mcp.ServerConfig, len(plugins))
	for i, p := range plugins {
		out[i] = mcp.ServerConfig{
			Name:                 p.Name,
			Disabled:             !p.On(),
			Type:                 p.Type,
			Command:              p.Command,
			Args:                 p.Args,
			Env:                  p.Env,
			URL:                  p.URL,
			Headers:              p.Headers,
			StartTimeoutSeconds:  p.StartTimeoutSeconds,
			CallTimeoutSeconds:   p.CallTimeoutSeconds,
			ToolTimeoutSeconds:   p.ToolTimeoutSeconds,
			TrustedReadOnlyTools: p.TrustedReadOnlyTools,
			EnabledTools:         p.EnabledTools,
			DisabledTools:        p.DisabledTools,
			At:                   declaredAt(p.At),
		}
	}
	return out
}

// graphServers turns [[graph.servers]] entries into the language servers
// the project graph merges over its built-in ones.
func graphServers(servers []config.GraphServer) []graph.ServerSpec {
	out := make([]graph.ServerSpec, len(servers))
	for i, s := range servers {
		out[i] = graph.ServerSpec{
			Name:                  s.Name,
			Command:               s.Command,
			Extensions:            s.Extensions,
			RootMarkers:           s.RootMarkers,
			InitializationOptions: s.InitializationOptions,
		}
	}
	return out
}

// declaredAt renders where an entry was declared, "" for none.
func declaredAt(p config.Pos) string {
	if p.File == "" {
		return ""
	}
	return p.String()
}
