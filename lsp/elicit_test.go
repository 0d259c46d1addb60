package lsp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/lsptest"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// TestElicitationAsDialogs: what an MCP server asks during a tool call
// (elicitation/create) reaches a plain LSP client as
// window/showMessageRequest dialogs, whether to answer and then a field
// at a time with its choices, and the answers reach the server: here a
// choice picked, and a default taken as offered.
func TestElicitationAsDialogs(t *testing.T) {
	url := mcptest.ServeEliciting(t, map[string]any{
		"type": "object",
		"properties": map[string]any{
			"color": map[string]any{"type": "string", "enum": []string{"red", "green"}, "default": "green"},
			"count": map[string]any{"type": "integer", "default": 3},
		},
		"required": []string{"color"},
	})
	root, srv := workspace(t, `expect user Fill in my profile
call mcp__el__profile {}
---
expect tool {"action":"accept","content":{"color":"red","count":3}}
text Done.
`, fmt.Sprintf("[[plugins]]\nname = \"el\"\ntype = \"http\"\nurl = %q\n", url))
	ed := lsptest.New(t, lsptest.Options{Root: root, ShowMessage: true})
	ed.AnswerWith(func(p *protocol.ShowMessageRequestParams) string {
		titles := make([]string, len(p.Actions))
		for i, a := range p.Actions {
			titles[i] = a.Title
		}
		switch {
		case slices.Contains(titles, "Allow once"):
			return "Allow once"
		case slices.Contains(titles, "Accept"):
			return "Accept"
		case slices.Contains(titles, "red"):
			return "red"
		case len(titles) > 0:
			return titles[0] // the default, offered as the one action
		}
		return ""
	})
	res := askTurn(t, ed, map[string]any{"prompt": "Fill in my profile"})
	if res["error"] != nil || res["text"] != "Done." {
		t.Fatalf("the turn: %v", res)
	}
	if n := srv.Remaining(); n != 0 {
		t.Fatalf("%d scripted steps unused: the server did not get the answers", n)
	}
	var asked []string
	for _, d := range ed.Snapshot().Dialogs {
		var titles []string
		for _, a := range d.Actions {
			titles = append(titles, a.Title)
		}
		asked = append(asked, d.Message+" "+strings.Join(titles, "|"))
	}
	want := []string{
		`Reasonix asks: MCP server "el" asks: Your profile, please (it wants: color, count) Accept|Decline`,
		`Reasonix asks: color (default: green) red|green`,
		`Reasonix asks: count (default: 3) 3`,
	}
	for _, w := range want {
		if !slices.Contains(asked, w) {
			t.Errorf("no dialog %q among:\n%s", w, strings.Join(asked, "\n"))
		}
	}
}

// TestElicitationInPanel: a client that declared questions (a chat
// panel) gets an MCP server's form as reasonix/ask cards, so a free-text
// field can be typed in.
func TestElicitationInPanel(t *testing.T) {
	url := mcptest.ServeEliciting(t, map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"type": "string", "title": "Your name"}},
		"required":   []string{"name"},
	})
	root, srv := workspace(t, `expect user Fill in my profile
call mcp__el__profile {}
---
expect tool {"action":"accept","content":{"name":"Ann Lee"}}
text Done.
`, fmt.Sprintf("[[plugins]]\nname = \"el\"\ntype = \"http\"\nurl = %q\n", url))
	ed := lsptest.New(t, lsptest.Options{Root: root, Questions: true, Approvals: true})
	ed.AnswerWith(func(p *protocol.ShowMessageRequestParams) string {
		switch {
		case strings.HasPrefix(p.Message, "Your name"):
			return "Ann Lee" // typed: the card takes any text
		case len(p.Actions) > 0 && p.Actions[0].Title == "Accept":
			return "Accept"
		}
		return "Allow once"
	})
	res := askTurn(t, ed, map[string]any{"prompt": "Fill in my profile"})
	if res["error"] != nil || res["text"] != "Done." || srv.Remaining() != 0 {
		t.Fatalf("the turn: %v; the server did not get the typed answer", res)
	}
	if q := ed.Snapshot().Questions; len(q) != 2 || q[1]["question"] != "Your name" {
		t.Errorf("asked %v, want two reasonix/ask cards, the second for the name", q)
	}
}
