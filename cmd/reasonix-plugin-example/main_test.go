package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// binary is the plugin built by TestMain. The tests run it the way
// Reasonix does, so they cover the flags, the logging and the stdio
// transport as well as the handlers.
var binary string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "reasonix-plugin-example")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "reasonix-plugin-example")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// connect starts the plugin and returns a client session to it, closed
// when the test ends. The process is cmd.
func connect(t *testing.T) (session *mcp.ClientSession, cmd *exec.Cmd) {
	t.Helper()
	cmd = exec.Command(binary)
	cmd.Stderr = logWriter{t}
	transport := &mcp.CommandTransport{
		Command: cmd,
		// Closing the session closes the plugin's stdin, and the plugin must
		// exit on its own. Rather than let the transport end a stuck plugin
		// with SIGTERM after a few seconds, which would hide the bug, let the
		// test hang and time out with its stacks.
		TerminateDuration: time.Hour,
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0.0.0"}, nil)
	session, err := client.Connect(t.Context(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session, cmd
}

// logWriter shows the plugin's stderr in the test log. The plugin logs
// whole lines, one record per write.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	for line := range strings.Lines(string(p)) {
		w.t.Log("plugin:", strings.TrimSuffix(line, "\n"))
	}
	return len(p), nil
}

func TestVersion(t *testing.T) {
	out, err := exec.Command(binary, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "reasonix-plugin-example dev\n"; got != want {
		t.Errorf("--version printed %q, want %q", got, want)
	}
}

func TestListTools(t *testing.T) {
	session, _ := connect(t)
	res, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Exactly one tool claims to be read-only.
	readOnly := map[string]bool{}
	for _, tool := range res.Tools {
		readOnly[tool.Name] = tool.Annotations != nil && tool.Annotations.ReadOnlyHint
	}
	want := map[string]bool{"echo": false, "lookup": true, "wordcount": false}
	if !reflect.DeepEqual(readOnly, want) {
		t.Errorf("tools and their readOnlyHint = %v, want %v", readOnly, want)
	}
}

func TestCallTool(t *testing.T) {
	tests := []struct {
		name      string
		tool      string
		args      map[string]any
		wantText  string
		wantError bool
		// wantStructured is the structuredContent as JSON, if any.
		wantStructured string
	}{
		{
			name:     "echo",
			tool:     "echo",
			args:     map[string]any{"message": "hi"},
			wantText: "Echo: hi",
		},
		{
			name:           "wordcount",
			tool:           "wordcount",
			args:           map[string]any{"text": "hello big world"},
			wantText:       "3 words, 1 lines, 15 characters",
			wantStructured: `{"words": 3, "lines": 1, "characters": 15}`,
		},
		{
			name:     "lookup",
			tool:     "lookup",
			args:     map[string]any{"key": "greeting"},
			wantText: "Hello from the example plugin.",
		},
		{
			name:      "lookup unknown key",
			tool:      "lookup",
			args:      map[string]any{"key": "nope"},
			wantText:  "no note named nope; known: greeting, license",
			wantError: true,
		},
	}
	session, _ := connect(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.wantError {
				t.Errorf("IsError = %v, want %v", res.IsError, tt.wantError)
			}
			if got := text(t, res.Content); got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
			if tt.wantStructured == "" {
				if res.StructuredContent != nil {
					t.Errorf("structuredContent = %v, want none", res.StructuredContent)
				}
				return
			}
			var want any
			if err := json.Unmarshal([]byte(tt.wantStructured), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.StructuredContent, want) {
				t.Errorf("structuredContent = %v, want %v", res.StructuredContent, want)
			}
		})
	}
}

// A missing required argument is caught by the input schema before the
// handler runs, and reported to the model as an error result.
func TestCallToolMissingArgument(t *testing.T) {
	session, _ := connect(t)
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(t, res.Content), "message") {
		t.Errorf("echo without a message: IsError = %v, text %q; want an error naming \"message\"", res.IsError, text(t, res.Content))
	}
}

func TestCount(t *testing.T) {
	tests := []struct {
		in   string
		want wordcountOutput
	}{
		{"", wordcountOutput{}},
		{"one", wordcountOutput{Words: 1, Lines: 1, Characters: 3}},
		{"a b\nc", wordcountOutput{Words: 3, Lines: 2, Characters: 5}},
		{"a b\nc\n", wordcountOutput{Words: 3, Lines: 2, Characters: 6}},
		{"\n\n", wordcountOutput{Words: 0, Lines: 2, Characters: 2}},
		{"  spaced\tout  ", wordcountOutput{Words: 2, Lines: 1, Characters: 14}},
		{"héllo wörld", wordcountOutput{Words: 2, Lines: 1, Characters: 11}},
	}
	for _, tt := range tests {
		if got := count(tt.in); got != tt.want {
			t.Errorf("count(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestListPrompts(t *testing.T) {
	session, _ := connect(t)
	res, err := session.ListPrompts(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Prompts) != 1 || res.Prompts[0].Name != "review" {
		t.Fatalf("prompts = %v, want just review", res.Prompts)
	}
	required := map[string]bool{}
	for _, arg := range res.Prompts[0].Arguments {
		required[arg.Name] = arg.Required
	}
	if want := map[string]bool{"focus": true, "path": false}; !reflect.DeepEqual(required, want) {
		t.Errorf("review's arguments (name: required) = %v, want %v", required, want)
	}
}

func TestGetPrompt(t *testing.T) {
	tests := []struct {
		name     string
		args     map[string]string
		wantText string // empty: want an invalid-params error
	}{
		{
			name:     "focus and path",
			args:     map[string]string{"focus": "error handling", "path": "main.go"},
			wantText: "Review main.go with a focus on error handling. List problems as file:line with a one-line fix each.",
		},
		{
			name:     "focus only",
			args:     map[string]string{"focus": "naming"},
			wantText: "Review the current change with a focus on naming. List problems as file:line with a one-line fix each.",
		},
		{
			name: "no focus",
			args: map[string]string{"path": "main.go"},
		},
	}
	session, _ := connect(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := session.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "review", Arguments: tt.args})
			if tt.wantText == "" {
				var wireErr *jsonrpc.Error
				if !errors.As(err, &wireErr) || wireErr.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("error = %v, want an invalid-params error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
				t.Fatalf("messages = %v, want one from the user", res.Messages)
			}
			if got := text(t, []mcp.Content{res.Messages[0].Content}); got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
		})
	}
}

func TestResource(t *testing.T) {
	session, _ := connect(t)
	list, err := session.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != 1 {
		t.Fatalf("resources = %v, want one", list.Resources)
	}
	r := list.Resources[0]
	if r.URI != "note://greeting" || r.Name != "greeting" || r.MIMEType != "text/plain" {
		t.Errorf("resource = %s %q %s, want note://greeting \"greeting\" text/plain", r.URI, r.Name, r.MIMEType)
	}

	res, err := session.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "note://greeting"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].Text != "Hello from the example plugin." || res.Contents[0].MIMEType != "text/plain" {
		t.Errorf("contents = %+v, want the greeting as text/plain", res.Contents)
	}

	if _, err := session.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "note://license"}); err == nil {
		t.Error("reading note://license, which is not a resource, succeeded")
	}
}

// Closing the session closes the plugin's stdin; the plugin must then exit
// cleanly by itself.
func TestExitOnClose(t *testing.T) {
	session, cmd := connect(t)
	// Close returns once cmd.Wait has.
	if err := session.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if !cmd.ProcessState.Success() {
		t.Errorf("plugin exited with %v, want success", cmd.ProcessState)
	}
}

// text returns the text of content, which must be a single text block.
func text(t *testing.T, content []mcp.Content) string {
	t.Helper()
	if len(content) != 1 {
		t.Fatalf("content = %v, want one text block", content)
	}
	tc, ok := content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", content[0])
	}
	return tc.Text
}
