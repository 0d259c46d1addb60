package acp_test

import (
	"strings"
	"sync"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// TestElicitation: what an MCP server asks during a tool call reaches an
// ACP client as permission requests whose options are the answers:
// whether to answer, then the field's choices; the answers reach the
// server.
func TestElicitation(t *testing.T) {
	url := mcptest.ServeEliciting(t, map[string]any{
		"type":       "object",
		"properties": map[string]any{"color": map[string]any{"type": "string", "enum": []string{"red", "green"}, "default": "green"}},
	})
	root := workspace(t, `call mcp__el__profile {}
---
expect tool {"action":"accept","content":{"color":"red"}}
text answered
`)
	var (
		mu    sync.Mutex // guards asked
		asked []string
	)
	questions := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(asked, "\n")
	}
	ed := &editor{answer: func(p acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse {
		mu.Lock()
		asked = append(asked, *p.ToolCall.Title)
		mu.Unlock()
		pick := p.Options[0].OptionId // the tool call's permission: allow
		for _, o := range p.Options {
			if o.Name == "Accept" || o.Name == "red" {
				pick = o.OptionId
			}
		}
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(pick)}
	}}
	conn, id := newSession(t, ed, root, acpsdk.McpServer{Http: &acpsdk.McpServerHttpInline{Name: "el", Url: url, Headers: []acpsdk.HttpHeader{}}})
	if r := prompt(t, conn, id, "fill in my profile"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q; asked:\n%s", r.StopReason, questions())
	}
	if got := ed.answerText(); got != "answered" {
		t.Errorf("answer = %q (the server did not get the answers); asked:\n%s", got, questions())
	}
	if q := questions(); !strings.Contains(q, `MCP server "el" asks: Your profile, please`) || !strings.Contains(q, "color (default: green)") {
		t.Errorf("asked:\n%s", q)
	}
}
