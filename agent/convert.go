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
// tools.Schema and provider.ToolSchema have the same fields, so a type
// conversion does it, and stops compiling if one of them changes alone.
func toolSchemas(reg *tools.Registry) []provider.ToolSchema {
	return convertAll(reg.Schemas(), func(s tools.Schema) provider.ToolSchema { return provider.ToolSchema(s) })
}

// mcpServers turns [[plugins]] entries into the MCP servers to start.
func mcpServers(plugins []config.PluginConfig) []mcp.ServerConfig {
	return convertAll(plugins, mcpServer)
}

func mcpServer(p config.PluginConfig) mcp.ServerConfig {
	return mcp.ServerConfig{
		Name:                 p.Name,
		Disabled:             !p.On(),
		Type:                 p.Type,
		Command:              p.Command,
		Args:                 p.Args,
		Env:                  p.Env,
		URL:                  p.URL,
		Headers:              p.Headers,
		ClientID:             p.ClientID,
		ClientSecret:         p.ClientSecret,
		StartTimeoutSeconds:  p.StartTimeoutSeconds,
		CallTimeoutSeconds:   p.CallTimeoutSeconds,
		ToolTimeoutSeconds:   p.ToolTimeoutSeconds,
		TrustedReadOnlyTools: p.TrustedReadOnlyTools,
		EnabledTools:         p.EnabledTools,
		DisabledTools:        p.DisabledTools,
		At:                   declaredAt(p.At),
	}
}

// graphServers turns [[graph.servers]] entries into the language servers
// the project graph merges over its built-in ones.
func graphServers(servers []config.GraphServer) []graph.ServerSpec {
	return convertAll(servers, graphServer)
}

func graphServer(s config.GraphServer) graph.ServerSpec {
	return graph.ServerSpec{
		Name:                  s.Name,
		Command:               s.Command,
		Extensions:            s.Extensions,
		RootMarkers:           s.RootMarkers,
		InitializationOptions: s.InitializationOptions,
	}
}

// declaredAt renders where an entry was declared, "" for none.
func declaredAt(p config.Pos) string {
	if p.File == "" {
		return ""
	}
	return p.String()
}

// convertAll converts each element of in with f.
func convertAll[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
