package main

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool is a definition (name, description, annotations) and a typed
// handler. The handler's input type becomes the tool's input schema: the
// json tag names a property, a field without omitempty is required, and
// the jsonschema tag is the property's description, which the model reads.
//
// A handler has two ways to fail. What the model should see and can act on
// (a bad key, a missing file) is a result with IsError set. A Go error is
// for failures of the server itself.

// echoTool is the smallest useful tool: text in, text out.
var echoTool = &mcp.Tool{
	Name:        "echo",
	Description: `Return the message, prefixed with "Echo: ".`,
}

type echoInput struct {
	Message string `json:"message" jsonschema:"the text to send back"`
}

// echo's output type is any, so the tool has no output schema and returns
// only content.
func echo(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
	return textResult("Echo: " + in.Message), nil, nil
}

// wordcountTool returns structured output besides text.
var wordcountTool = &mcp.Tool{
	Name:        "wordcount",
	Description: "Count the words, lines and characters (Unicode code points) of a text.",
}

type wordcountInput struct {
	Text string `json:"text" jsonschema:"the text to count"`
}

// wordcountOutput is wordcount's structured result. Because the handler
// returns a struct, AddTool publishes an output schema for it and the SDK
// sends the value as structuredContent, for clients that use it.
type wordcountOutput struct {
	Words      int `json:"words" jsonschema:"whitespace-separated words"`
	Lines      int `json:"lines" jsonschema:"lines; a final line need not end in a newline"`
	Characters int `json:"characters" jsonschema:"Unicode code points"`
}

func wordcount(_ context.Context, _ *mcp.CallToolRequest, in wordcountInput) (*mcp.CallToolResult, wordcountOutput, error) {
	out := count(in.Text)
	// Left without content, the SDK would send the JSON as the text. A
	// sentence reads better to a model.
	text := fmt.Sprintf("%d words, %d lines, %d characters", out.Words, out.Lines, out.Characters)
	return textResult(text), out, nil
}

// count counts s the way wc would, except that a last line without a
// newline still counts and characters are code points, not bytes.
func count(s string) wordcountOutput {
	lines := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		lines++
	}
	return wordcountOutput{
		Words:      len(strings.Fields(s)),
		Lines:      lines,
		Characters: utf8.RuneCountInString(s),
	}
}

// lookupTitle is the name a client shows for lookup. It is set twice:
// Tool.Title for current clients, ToolAnnotations.Title for those written
// before tools had a title of their own.
const lookupTitle = "Look up a note"

// lookupTool declares itself read-only. The annotation is only the server's
// claim: the client decides whether to believe it.
var lookupTool = &mcp.Tool{
	Name:        "lookup",
	Title:       lookupTitle,
	Description: "Return the note stored under a key. Known keys: " + strings.Join(noteKeys(), ", ") + ".",
	Annotations: &mcp.ToolAnnotations{Title: lookupTitle, ReadOnlyHint: true},
}

type lookupInput struct {
	Key string `json:"key" jsonschema:"the note's name"`
}

func lookup(_ context.Context, _ *mcp.CallToolRequest, in lookupInput) (*mcp.CallToolResult, any, error) {
	note, ok := notes[in.Key]
	if !ok {
		// The model asked for something that is not there: tell it what is,
		// so that it can try again.
		res := textResult(fmt.Sprintf("no note named %s; known: %s", in.Key, strings.Join(noteKeys(), ", ")))
		res.IsError = true
		return res, nil, nil
	}
	return textResult(note), nil, nil
}

// textResult is a tool result holding one piece of text.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
