package main

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// greetingResource is a resource: data the user or client can attach to a
// conversation by URI, without the model calling a tool.
var greetingResource = &mcp.Resource{
	URI:         "note://greeting",
	Name:        "greeting",
	Description: "The greeting note (the lookup tool returns it too).",
	MIMEType:    "text/plain",
}

// readNote serves note://NAME resources. The server calls it only for URIs
// added with AddResource, so one handler can serve any number of notes.
func readNote(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	text, ok := notes[strings.TrimPrefix(uri, "note://")]
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{
		Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}},
	}, nil
}
