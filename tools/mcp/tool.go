package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reasonix/reasonix/tools"
)

// maxOutput caps what one tool result, prompt or resource hands back, so a
// server cannot flood the model's context.
const maxOutput = 256 << 10

// A tool is an MCP server's tool adapted to tools.Tool.
type tool struct {
	server   *server
	name     string // model-facing, from ToolName
	raw      string // the server's own name
	desc     string
	schema   json.RawMessage
	readOnly bool // annotations.readOnlyHint, or trusted
	trusted  bool // listed in trusted_read_only_tools
	timeout  time.Duration
}

var (
	_ tools.Tool      = (*tool)(nil)
	_ tools.Untrusted = (*tool)(nil)
)

func (t *tool) Name() string            { return t.name }
func (t *tool) Description() string     { return t.desc }
func (t *tool) Schema() json.RawMessage { return t.schema }
func (t *tool) ReadOnly() bool          { return t.readOnly }

// UntrustedReadOnly reports that the read-only claim is the server's own
// (its readOnlyHint), unless the user listed the tool in
// trusted_read_only_tools.
func (t *tool) UntrustedReadOnly() bool { return !t.trusted }

// adaptTool makes t callable by the model.
func (s *server) adaptTool(t *mcp.Tool) *tool {
	a := &tool{
		server:  s,
		name:    ToolName(s.name, t.Name),
		raw:     t.Name,
		desc:    describeTool(t),
		schema:  inputSchema(t.InputSchema),
		trusted: s.trusted[t.Name],
		timeout: s.callTimeout(),
	}
	a.readOnly = a.trusted || (t.Annotations != nil && t.Annotations.ReadOnlyHint)
	if secs := s.cfg.ToolTimeoutSeconds[t.Name]; secs > 0 {
		a.timeout = time.Duration(secs) * time.Second
	}
	return a
}

// inputSchema returns a tool's input schema as the model's API takes it: a
// JSON Schema of type object. Servers are lax — some omit "type", send
// nothing, or declare another type — and an OpenAI-compatible API rejects
// the whole request, every tool with it, over one such schema. Tool
// arguments are always an object, so an object schema is what to offer.
func inputSchema(v any) json.RawMessage {
	fallback := json.RawMessage(`{"type":"object"}`)
	m, ok := v.(map[string]any)
	if !ok {
		return fallback
	}
	switch typ := m["type"]; typ {
	case "object":
	case nil:
		m = maps.Clone(m)
		m["type"] = "object"
	default:
		return fallback
	}
	if p, ok := m["properties"]; ok {
		if _, isObj := p.(map[string]any); !isObj {
			m = maps.Clone(m)
			delete(m, "properties")
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fallback
	}
	return b
}

// describeTool returns the tool's description, with its title in front
// when the title says more than the name does ("Read File (Deprecated)"
// for read_file, but not "Echo Tool" for echo).
func describeTool(t *mcp.Tool) string {
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	desc := strings.TrimSpace(t.Description)
	switch {
	case title == "":
		return desc
	case desc == "":
		return title
	case !informative(title, t.Name) || strings.HasPrefix(desc, title):
		return desc
	}
	return title + ": " + desc
}

// informative reports whether title says more than name: whether, letters
// and digits only, lowercased and without the word "tool", they differ.
func informative(title, name string) bool {
	squash := func(s string) string {
		var b strings.Builder
		for _, r := range strings.ToLower(s) {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				b.WriteRune(r)
			}
		}
		return strings.TrimSuffix(b.String(), "tool")
	}
	return squash(title) != squash(name)
}

// Execute calls the tool. What the model should see, including a server
// that failed, stopped or did not answer in time, is the result; only the
// end of ctx is an error.
func (t *tool) Execute(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Result, error) {
	// Arguments stay raw JSON so that large integers and the order the
	// model wrote reach the server untouched. Empty and null mean none.
	var obj map[string]json.RawMessage
	if len(strings.TrimSpace(string(args))) > 0 {
		if err := json.Unmarshal(args, &obj); err != nil {
			return tools.Errorf("invalid arguments: want a JSON object matching the tool's schema (%v)", err), nil
		}
	}
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	// What the server asks the user meanwhile is put to this call's user.
	defer t.server.callers.enter(ctx, env)()
	var res *mcp.CallToolResult
	err := t.server.do(ctx, t.timeout, func(ctx context.Context, cs *mcp.ClientSession) error {
		params := &mcp.CallToolParams{Name: t.raw, Arguments: obj}
		// A progress token asks the server for progress notifications,
		// which reach the user through the call's context.
		token := fmt.Sprintf("reasonix-%d", t.server.m.progressTokens.Add(1))
		params.SetProgressToken(token)
		defer t.server.m.listen(token, func(msg string) { tools.ReportProgress(ctx, msg) })()
		var err error
		res, err = cs.CallTool(ctx, params)
		return err
	})
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return tools.Result{}, err
		}
		if te, ok := errors.AsType[*timeoutError](err); ok {
			return tools.Result{
				Content: fmt.Sprintf("Error: the tool %s did not finish within %s and was cancelled. "+
					"The user can allow it longer with tool_timeout_seconds = { %q = N } (this tool) or call_timeout_seconds = N (every tool of the server) in the [[plugins]] entry of %q.",
					t.raw, fmtDuration(te.timeout), t.raw, t.server.name),
				IsError: true,
				Summary: "timed out after " + fmtDuration(te.timeout),
			}, nil
		}
		return tools.Errorf("%v", err), nil
	}
	content := renderContent(res.Content, res.StructuredContent)
	if res.IsError {
		return tools.Result{Content: "Error: " + content, IsError: true, Summary: summarize(content)}, nil
	}
	return tools.Result{Content: content, Summary: summarize(content)}, nil
}

// renderContent turns a tool's result into text for the model: text
// blocks joined by newlines, other blocks described in one line, and the
// structured result as compact JSON when no block is text.
func renderContent(blocks []mcp.Content, structured any) string {
	var parts []string
	hasText := false
	for _, c := range blocks {
		if _, ok := c.(*mcp.TextContent); ok {
			hasText = true
		}
		if s := renderBlock(c); s != "" {
			parts = append(parts, s)
		}
	}
	if !hasText && structured != nil {
		if b, err := json.Marshal(structured); err == nil && string(b) != "null" {
			parts = append([]string{string(b)}, parts...)
		}
	}
	if len(parts) == 0 {
		return "(no content)"
	}
	return capOutput(strings.Join(parts, "\n"))
}

// renderBlock renders one content block. Binary data is described, never
// dumped.
func renderBlock(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *mcp.ResourceLink:
		if c.Name != "" {
			return fmt.Sprintf("[resource link: %s (%s)]", c.URI, c.Name)
		}
		return fmt.Sprintf("[resource link: %s]", c.URI)
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return "[resource]"
		}
		return renderResourceContents(c.Resource)
	case nil:
		return ""
	default:
		return fmt.Sprintf("[%T content]", c)
	}
}

// renderResourceContents renders an embedded or read resource: its text
// under its URI, or a description of its binary data.
func renderResourceContents(r *mcp.ResourceContents) string {
	if r.Blob != nil {
		return fmt.Sprintf("[resource %s: %s, %d bytes of binary data]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
	}
	return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// capOutput cuts s to maxOutput bytes, on a line boundary when one is
// near, and says so.
func capOutput(s string) string {
	if len(s) <= maxOutput {
		return s
	}
	cut := maxOutput
	if i := strings.LastIndexByte(s[:cut], '\n'); i > cut-4096 {
		cut = i
	}
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", cut, len(s))
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// summarize returns the first line of s, shortened, for people watching.
func summarize(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	const max = 80
	if len(s) > max {
		cut := max
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
