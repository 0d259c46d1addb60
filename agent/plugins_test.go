package agent

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/mcp"
)

func TestSplitWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"  a  b\tc ", []string{"a", "b", "c"}, false},
		{`city="New York" state=NY`, []string{"city=New York", "state=NY"}, false},
		{`"two words" tail`, []string{"two words", "tail"}, false},
		{`""`, []string{""}, false},
		{`open "quote`, nil, true},
	}
	for _, c := range cases {
		got, err := splitWords(c.in)
		if (err != nil) != c.err {
			t.Errorf("splitWords(%q) error %v, want error %v", c.in, err, c.err)
			continue
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("splitWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPromptArguments(t *testing.T) {
	review := mcp.Prompt{Server: "ex", Name: "review", Command: "mcp__ex__review", Arguments: []mcp.PromptArgument{
		{Name: "focus", Required: true},
		{Name: "path"},
	}}
	none := mcp.Prompt{Server: "ex", Name: "hello", Command: "mcp__ex__hello"}
	cases := []struct {
		p       mcp.Prompt
		rest    string
		want    map[string]string
		wantErr string
	}{
		{review, "errors", map[string]string{"focus": "errors"}, ""},
		{review, "errors main.go", map[string]string{"focus": "errors", "path": "main.go"}, ""},
		// The last argument takes the rest of the line.
		{review, "errors main.go and util.go", map[string]string{"focus": "errors", "path": "main.go and util.go"}, ""},
		// By name, in any order; positional words fill what is left.
		{review, "path=a.go security", map[string]string{"focus": "security", "path": "a.go"}, ""},
		{review, `focus="error handling" path=b.go`, map[string]string{"focus": "error handling", "path": "b.go"}, ""},
		// A word with "=" whose name is not an argument is a value.
		{review, "x=1", map[string]string{"focus": "x=1"}, ""},
		{review, "", nil, `missing argument "focus"; usage: /mcp__ex__review <focus> [path]`},
		{review, "path=a.go", nil, `missing argument "focus"`},
		{review, `"unbalanced`, nil, "unbalanced quote"},
		{none, "", map[string]string{}, ""},
		{none, "extra", nil, "takes no more arguments than (no arguments)"},
	}
	for _, c := range cases {
		got, err := promptArguments(c.p, c.rest)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s %q: error %v, want one containing %q", c.p.Name, c.rest, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", c.p.Name, c.rest, err)
			continue
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("%s %q = %v, want %v", c.p.Name, c.rest, got, c.want)
		}
	}
}

func TestSlashWithoutPlugins(t *testing.T) {
	a := &Agent{}
	s := &Session{}
	p, err := a.dispatch(t.Context(), s, "/mcp", false)
	if err != nil || p.action == nil || p.action.Kind != ActionMCP || !strings.Contains(p.local, "No MCP servers are configured") {
		t.Errorf("/mcp without servers: %+v %v", p, err)
	}
	if _, err := a.dispatch(t.Context(), s, "/mcp__ex__review errors", false); err == nil || !strings.Contains(err.Error(), "no MCP servers are configured") {
		t.Errorf("/mcp__ex__review without servers: error %v", err)
	}
	if p, err := a.dispatch(t.Context(), s, "/mcp\n\nmore", false); err != nil || p.action == nil || p.local == "" {
		t.Errorf("/mcp followed by a newline: %+v %v", p, err)
	}
	// A prompt that starts with a path, or has a command later, is a prompt.
	for _, prompt := range []string{"/usr/bin is missing", "/tmp is full", "fix /mcp"} {
		if p, err := a.dispatch(t.Context(), s, prompt, false); err != nil || p.action != nil || p.text != prompt {
			t.Errorf("%q: %+v %v", prompt, p, err)
		}
	}
	if _, err := a.dispatch(t.Context(), s, "/mcpx", false); err == nil || !strings.Contains(err.Error(), "/mcpx: no such command; /help lists them") {
		t.Errorf("/mcpx: error %v", err)
	}
}

// TestTooManyTools: a session offering more tools than OpenAI-compatible
// APIs take says so, once, when it starts.
func TestTooManyTools(t *testing.T) {
	for _, n := range []int{maxAPITools, maxAPITools + 1} {
		ts := make([]tools.Tool, n)
		for i := range ts {
			ts[i] = &probeTool{name: fmt.Sprintf("t%03d", i)}
		}
		h := newHarness(t, nil, ts...)
		if _, err := h.a.NewSession(); err != nil {
			t.Fatal(err)
		}
		notices := h.kinds(EventNotice)
		if n <= maxAPITools && len(notices) != 0 {
			t.Errorf("%d tools: notices %v", n, notices)
		}
		if n > maxAPITools && (len(notices) != 1 || !strings.Contains(notices[0].Text, fmt.Sprintf("%d tools are offered", n))) {
			t.Errorf("%d tools: notices %v", n, notices)
		}
	}
}

// startNotes serves an MCP server "notes" offering one resource,
// note://greeting, over streamable HTTP until the test ends, and returns
// a manager connected to it.
func startNotes(t *testing.T) *mcp.Manager {
	t.Helper()
	server := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "test"}, nil)
	server.AddResource(&sdk.Resource{URI: "note://greeting", Name: "greeting", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{
				{URI: req.Params.URI, MIMEType: "text/plain", Text: "Hello from the notes server."},
			}}, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(srv.Close)
	m := mcp.Start(t.Context(), mcp.Options{Servers: []mcp.ServerConfig{{Name: "notes", Type: "http", URL: srv.URL}}})
	t.Cleanup(func() { m.Close() })
	if w := m.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %q", w)
	}
	return m
}

// TestResourcesAttachedInPlanMode: a resource the prompt references is
// attached to the user's message, in plan mode as well, after the
// plan-mode note.
func TestResourcesAttachedInPlanMode(t *testing.T) {
	notes := startNotes(t)
	for _, plan := range []bool{false, true} {
		h := newHarness(t, []provider.Response{answer("ok")})
		h.a.Plugins = notes
		s, _ := h.a.NewSession()
		s.SetPlanMode(plan)
		prompt := "summarise @notes:note://greeting, please"
		if _, err := h.a.Run(t.Context(), s, prompt); err != nil {
			t.Fatal(err)
		}
		got := s.Messages()[1].Content
		want := prompt + "\n\n<resource ref=\"notes:note://greeting\">\nHello from the notes server.\n</resource>"
		if plan {
			want = planNote + want
		}
		if got != want {
			t.Errorf("plan mode %v: the user message is\n%q\nwant\n%q", plan, got, want)
		}
	}
}

// TestResourcesOnlyWhenTyped: an MCP resource the text of a command file
// names — a repository's command reaching into the user's MCP servers —
// is not read, and a notice says why; the same resource typed as the
// command's argument is, and so are the workspace files the text names.
func TestResourcesOnlyWhenTyped(t *testing.T) {
	notes := startNotes(t)
	h := commandHarness(t, []provider.Response{answer("ok"), answer("ok")}, map[string]string{
		"peek.md": "Summarise @notes:note://greeting and @calc.go. $ARGUMENTS\n",
	})
	h.a.Plugins = notes
	s, _ := h.a.NewSession()
	if _, err := h.a.RunInput(t.Context(), s, Input{Text: "/peek"}); err != nil {
		t.Fatal(err)
	}
	msgs := h.lastRequest(t).Messages
	got := msgs[len(msgs)-1].Content
	if strings.Contains(got, "Hello from the notes server") || !strings.Contains(got, "<file path=\"calc.go\">") {
		t.Errorf("the command's own reference: the model got\n%s", got)
	}
	var told bool
	for _, e := range h.kinds(EventNotice) {
		told = told || strings.Contains(e.Text, "@notes:note://greeting not attached") && strings.Contains(e.Text, "only when you type it")
	}
	if !told {
		t.Errorf("no notice says why the resource was left out: %+v", h.kinds(EventNotice))
	}

	if _, err := h.a.RunInput(t.Context(), s, Input{Text: "/peek also @notes:note://greeting"}); err != nil {
		t.Fatal(err)
	}
	msgs = h.lastRequest(t).Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "Hello from the notes server") {
		t.Errorf("the typed reference: the model got\n%s", got)
	}
}

// TestPluginStatusNamesUntrustedServers: /mcp names the workspace's MCP
// servers that are off for want of trust, not only those that run.
func TestPluginStatusNamesUntrustedServers(t *testing.T) {
	a := &Agent{config: &config.Config{Workspace: config.WorkspaceTrust{Items: []config.TrustItem{
		{What: `MCP server "lint": runs lint-mcp`, Server: "lint"},
		{What: `[sandbox] network = true`},
		{What: `MCP server "docs": connects to https://docs.example/mcp`, Server: "docs", Trusted: true},
	}}}}
	got := a.PluginStatus()
	if !strings.Contains(got, "No MCP servers are configured") || !strings.HasSuffix(got, `Off until you trust the workspace's configuration (/trust): "lint".`) {
		t.Errorf("PluginStatus = %q", got)
	}
}
