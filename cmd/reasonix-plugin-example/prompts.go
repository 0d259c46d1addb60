package main

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reviewPrompt is a prompt template: the user picks it, fills in the
// arguments, and the messages it returns start the conversation.
var reviewPrompt = &mcp.Prompt{
	Name:        "review",
	Title:       "Review a change",
	Description: "Ask for a code review with a given focus.",
	Arguments: []*mcp.PromptArgument{
		{Name: "focus", Description: "what to look for, such as error handling or naming", Required: true},
		{Name: "path", Description: "the file or directory to review (default: the current change)"},
	},
}

func review(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	// Prompt arguments are strings, and the SDK does not enforce Required:
	// the handler checks its own.
	focus := req.Params.Arguments["focus"]
	if focus == "" {
		return nil, &jsonrpc.Error{
			Code:    jsonrpc.CodeInvalidParams,
			Message: `prompt "review" needs the argument "focus"`,
		}
	}
	target := req.Params.Arguments["path"]
	if target == "" {
		target = "the current change"
	}
	text := fmt.Sprintf("Review %s with a focus on %s. List problems as file:line with a one-line fix each.", target, focus)
	return &mcp.GetPromptResult{
		Description: "Review " + target,
		Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: text}},
		},
	}, nil
}
