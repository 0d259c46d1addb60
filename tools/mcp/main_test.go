package mcp

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// growServerEnv makes the test binary run growServer instead of the
// tests: a stdio MCP server built on the SDK's server side.
const growServerEnv = "REASONIX_MCP_GROW_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(growServerEnv) == "1" {
		if err := growServer(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(conformanceClientEnv) == "1" {
		// The suite appends the test server's URL to the command.
		if err := conformanceClient(os.Args[len(os.Args)-1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// growServer serves five tools two to a page, and a tool "grow" that
// adds one more, "grown", which the server announces with
// notifications/tools/list_changed. It runs until stdin closes.
func growServer() error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "grow", Version: "1"}, &mcp.ServerOptions{PageSize: 2})
	add := func(name string) {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: "Says its name."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil, nil
			})
	}
	for i := range 4 {
		add(fmt.Sprintf("tool%d", i))
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "grow", Description: "Adds the tool grown."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			add("grown")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grew"}}}, nil, nil
		})
	return srv.Run(context.Background(), &mcp.StdioTransport{})
}
