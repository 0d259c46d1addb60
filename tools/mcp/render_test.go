package mcp

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRenderContent(t *testing.T) {
	size := int64(10)
	for _, c := range []struct {
		name       string
		blocks     []mcp.Content
		structured any
		want       string
	}{
		{"empty", nil, nil, "(no content)"},
		{"text", []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}, nil, "a\nb"},
		{"text wins over structured", []mcp.Content{&mcp.TextContent{Text: "x"}}, map[string]any{"k": 1}, "x"},
		{"structured alone", nil, map[string]any{"k": 1, "a": []int{1}}, `{"a":[1],"k":1}`},
		{"image", []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)}}, nil, "[image: image/png, 1234 bytes]"},
		{"audio", []mcp.Content{&mcp.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 3)}}, nil, "[audio: audio/wav, 3 bytes]"},
		{"link", []mcp.Content{&mcp.ResourceLink{URI: "file:///a", Name: "a", Size: &size}}, nil, "[resource link: file:///a (a)]"},
		{"link without name", []mcp.Content{&mcp.ResourceLink{URI: "file:///a"}}, nil, "[resource link: file:///a]"},
		{"embedded text", []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://n", Text: "note"}}}, nil, "[resource mem://n]\nnote"},
		{"embedded blob", []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://b", MIMEType: "application/zip", Blob: make([]byte, 7)}}}, nil,
			"[resource mem://b: application/zip, 7 bytes of binary data]"},
		{"image and structured", []mcp.Content{&mcp.ImageContent{MIMEType: "image/gif"}}, []int{1}, "[1]\n[image: image/gif, 0 bytes]"},
	} {
		if got := renderContent(c.blocks, c.structured); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCapOutput(t *testing.T) {
	line := strings.Repeat("é", 100) + "\n"
	long := strings.Repeat(line, maxOutput/len(line)+10)
	got := capOutput(long)
	if len(got) > maxOutput+100 || !strings.Contains(got, "[output truncated: ") {
		t.Errorf("capOutput kept %d bytes, ending %q", len(got), got[len(got)-60:])
	}
	if kept, _, _ := strings.Cut(got, "\n[output truncated"); !strings.HasSuffix(kept, "é") {
		t.Errorf("cut mid-line or mid-character: %q", kept[len(kept)-10:])
	}
	if short := "short"; capOutput(short) != short {
		t.Error("capOutput changed a short text")
	}
}

func TestSummarize(t *testing.T) {
	if got := summarize("first\nsecond"); got != "first" {
		t.Errorf("summarize = %q", got)
	}
	if got := summarize(strings.Repeat("ü", 100)); len(got) > 85 || !strings.HasSuffix(got, "…") {
		t.Errorf("summarize = %q", got)
	}
}

func TestDescribeTool(t *testing.T) {
	for _, c := range []struct {
		tool mcp.Tool
		want string
	}{
		{mcp.Tool{Name: "echo", Title: "Echo Tool", Description: "Echoes back"}, "Echoes back"},
		{mcp.Tool{Name: "list_directory", Title: "List Directory", Description: "Lists"}, "Lists"},
		{mcp.Tool{Name: "read_file", Title: "Read File (Deprecated)", Description: "Reads"}, "Read File (Deprecated): Reads"},
		{mcp.Tool{Name: "q", Annotations: &mcp.ToolAnnotations{Title: "Query the warehouse"}, Description: "SQL"}, "Query the warehouse: SQL"},
		{mcp.Tool{Name: "q", Title: "Query"}, "Query"},
		{mcp.Tool{Name: "q", Description: "  padded  "}, "padded"},
	} {
		if got := describeTool(&c.tool); got != c.want {
			t.Errorf("describeTool(%+v) = %q, want %q", c.tool, got, c.want)
		}
	}
}

func TestAdaptTool(t *testing.T) {
	m := &Manager{opts: Options{CallTimeout: 7 * time.Second}}
	s := newServer(m, ServerConfig{Name: "srv", TrustedReadOnlyTools: []string{"trusted"}})
	s2 := newServer(m, ServerConfig{
		Name:               "srv",
		CallTimeoutSeconds: 20,
		ToolTimeoutSeconds: map[string]int{"slow": 90},
	})
	for _, c := range []struct {
		s                   *server
		tool                mcp.Tool
		readOnly, untrusted bool
		timeout             time.Duration
		schema              string
	}{
		{s, mcp.Tool{Name: "plain"}, false, true, 7 * time.Second, `{"type":"object"}`},
		{s, mcp.Tool{Name: "hinted", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, true, true, 7 * time.Second, `{"type":"object"}`},
		{s, mcp.Tool{Name: "trusted"}, true, false, 7 * time.Second, `{"type":"object"}`},
		{s2, mcp.Tool{Name: "any", InputSchema: map[string]any{"type": "object", "properties": map[string]any{}}}, false, true, 20 * time.Second,
			`{"properties":{},"type":"object"}`},
		{s2, mcp.Tool{Name: "slow"}, false, true, 90 * time.Second, `{"type":"object"}`},
		// Lax schemas become object schemas.
		{s, mcp.Tool{Name: "untyped", InputSchema: map[string]any{"properties": map[string]any{"q": map[string]any{"type": "string"}}}}, false, true, 7 * time.Second,
			`{"properties":{"q":{"type":"string"}},"type":"object"}`},
		{s, mcp.Tool{Name: "string", InputSchema: map[string]any{"type": "string"}}, false, true, 7 * time.Second, `{"type":"object"}`},
		{s, mcp.Tool{Name: "array", InputSchema: []any{}}, false, true, 7 * time.Second, `{"type":"object"}`},
		{s, mcp.Tool{Name: "badprops", InputSchema: map[string]any{"type": "object", "properties": []any{}}}, false, true, 7 * time.Second, `{"type":"object"}`},
	} {
		a := c.s.adaptTool(&c.tool)
		if a.Name() != "mcp__srv__"+c.tool.Name || a.ReadOnly() != c.readOnly || a.UntrustedReadOnly() != c.untrusted ||
			a.timeout != c.timeout || string(a.Schema()) != c.schema {
			t.Errorf("%s: got name %s, read-only %v, untrusted %v, timeout %s, schema %s",
				c.tool.Name, a.Name(), a.ReadOnly(), a.UntrustedReadOnly(), a.timeout, a.Schema())
		}
	}
}

func TestChildEnv(t *testing.T) {
	got := childEnv(
		[]string{"PATH=/bin", "DEEPSEEK_API_KEY=secret", "HOME=/h", "KEEP=1"},
		[]string{"DEEPSEEK_API_KEY", "OTHER_KEY"},
		map[string]string{"HOME": "/plugin", "TOKEN": "t"},
	)
	slices.Sort(got)
	want := []string{"HOME=/plugin", "KEEP=1", "PATH=/bin", "TOKEN=t"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q, want %q", got, want)
	}
}

func TestTransportKind(t *testing.T) {
	for typ, want := range map[string]string{
		"": "stdio", "stdio": "stdio", "http": "http", "streamable-http": "http",
		"streamableHttp": "http", "SSE": "sse", "ws": "",
	} {
		if got := transportKind(typ); got != want {
			t.Errorf("transportKind(%q) = %q, want %q", typ, got, want)
		}
	}
}

func TestFmtDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Minute: "5m", 30 * time.Second: "30s", 90 * time.Second: "1m30s",
		time.Hour: "1h", 500 * time.Millisecond: "500ms",
	} {
		if got := fmtDuration(d); got != want {
			t.Errorf("fmtDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

func TestEnabledAndDisabledTools(t *testing.T) {
	m := &Manager{opts: Options{CallTimeout: time.Second}}
	list := []*mcp.Tool{{Name: "c"}, {Name: "a"}, {Name: "b"}}
	for _, c := range []struct {
		enabled, disabled []string
		want              string
	}{
		{nil, nil, "mcp__srv__a mcp__srv__b mcp__srv__c"},
		{[]string{"a", "b"}, nil, "mcp__srv__a mcp__srv__b"},
		{nil, []string{"b"}, "mcp__srv__a mcp__srv__c"},
		{[]string{"a", "b"}, []string{"b"}, "mcp__srv__a"},
	} {
		s := newServer(m, ServerConfig{Name: "srv", EnabledTools: c.enabled, DisabledTools: c.disabled})
		s.setTools(list)
		var names []string
		for _, tl := range s.tools {
			names = append(names, tl.Name())
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("enabled %v, disabled %v: tools %s, want %s", c.enabled, c.disabled, got, c.want)
		}
	}
}

func TestProgressMessage(t *testing.T) {
	for _, c := range []struct {
		progress, total float64
		message, want   string
	}{
		{1, 3, "", "1/3"},
		{40, 0, "", "40"},
		{2, 10, " Compiling ", "Compiling (2/10)"},
		{0.5, 1, "halfway", "halfway (0.5/1)"},
	} {
		if got := progressMessage(c.progress, c.total, c.message); got != c.want {
			t.Errorf("progressMessage(%v, %v, %q) = %q, want %q", c.progress, c.total, c.message, got, c.want)
		}
	}
}
