package mcptest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeEliciting serves, over streamable HTTP in the test's process until
// the test ends, an MCP server built on the SDK with two tools: "profile",
// which asks the client for a form of the given schema (elicitation/create)
// and returns the answer, the ElicitResult as JSON text; and "caps", which
// returns the elicitation capability the client declared, as JSON. It
// returns the server's URL.
func ServeEliciting(t testing.TB, schema any) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "eliciting", Version: "1"}, nil)
	text := func(v any) *mcp.CallToolResult {
		out, _ := json.Marshal(v)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "profile", Description: "Asks for a profile."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your profile, please", RequestedSchema: schema})
			if err != nil {
				return nil, nil, err
			}
			return text(res), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "caps", Description: "Says the client's elicitation capability."},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return text(req.Session.InitializeParams().Capabilities.Elicitation), nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}
