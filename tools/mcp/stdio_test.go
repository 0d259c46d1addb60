//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reasonix/reasonix/tools"
)

// TestStdio drives server-everything and server-filesystem over stdio,
// both at once, through the adapted tools, prompts and resources.
func TestStdio(t *testing.T) {
	t.Parallel()
	ev := everything(t)
	ev.TrustedReadOnlyTools = []string{"get-sum", "toggle-subscriber-updates"}
	shared := t.TempDir()
	if err := os.WriteFile(filepath.Join(shared, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(shared, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	fs := ServerConfig{Name: "files", Command: requireServer(t, "mcp-server-filesystem"), Args: []string{shared}}
	m := start(t, Options{Servers: []ServerConfig{ev, fs}, ClientVersion: "test"})
	if w := m.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %q", w)
	}
	ctx := t.Context()

	t.Run("status", func(t *testing.T) {
		st := m.Status()
		if len(st) != 2 || st[0].Name != "everything" || st[1].Name != "files" {
			t.Fatalf("status %+v, want everything then files", st)
		}
		for _, s := range st {
			if s.State != "connected" || s.Transport != "stdio" || s.Tools == 0 || s.Error != "" {
				t.Errorf("status %+v, want connected over stdio with tools", s)
			}
		}
		if st[0].Prompts == 0 || st[0].Resources == 0 {
			t.Errorf("everything: %+v, want prompts and resources", st[0])
		}
	})

	t.Run("tools", func(t *testing.T) {
		list := m.Tools()
		names := make([]string, len(list))
		for i, tl := range list {
			names[i] = tl.Name()
		}
		if !slices.IsSorted(names) {
			t.Errorf("tools not sorted by name: %v", names)
		}
		for _, want := range []string{"mcp__everything__echo", "mcp__everything__get-sum", "mcp__files__list_directory"} {
			if !slices.Contains(names, want) {
				t.Errorf("no tool %s in %v", want, names)
			}
		}
		echo := findTool(t, m, "mcp__everything__echo")
		if !strings.Contains(echo.Description(), "Echoes back") {
			t.Errorf("echo description %q", echo.Description())
		}
		if s := string(echo.Schema()); !strings.Contains(s, `"message"`) || !strings.Contains(s, `"object"`) {
			t.Errorf("echo schema %s", s)
		}
	})

	t.Run("read-only", func(t *testing.T) {
		for _, c := range []struct {
			name                string
			readOnly, untrusted bool
		}{
			{"mcp__everything__echo", true, true},                       // readOnlyHint only
			{"mcp__everything__get-sum", true, false},                   // readOnlyHint, trusted
			{"mcp__everything__toggle-simulated-logging", false, true},  // neither
			{"mcp__everything__toggle-subscriber-updates", true, false}, // trusted without a hint
		} {
			tl := findTool(t, m, c.name)
			u, ok := tl.(tools.Untrusted)
			if !ok {
				t.Fatalf("%s does not implement tools.Untrusted", c.name)
			}
			if tl.ReadOnly() != c.readOnly || u.UntrustedReadOnly() != c.untrusted {
				t.Errorf("%s: ReadOnly %v, UntrustedReadOnly %v; want %v, %v",
					c.name, tl.ReadOnly(), u.UntrustedReadOnly(), c.readOnly, c.untrusted)
			}
			if got, want := tools.TrustedReadOnly(tl), c.readOnly && !c.untrusted; got != want {
				t.Errorf("%s: TrustedReadOnly %v, want %v", c.name, got, want)
			}
		}
	})

	t.Run("call", func(t *testing.T) {
		res := call(t, ctx, m, "mcp__everything__echo", map[string]any{"message": "hi"})
		wantContent(t, res, "Echo: hi")
		if res.Summary == "" || strings.Contains(res.Summary, "\n") {
			t.Errorf("summary %q, want one line", res.Summary)
		}
		wantContent(t, call(t, ctx, m, "mcp__everything__get-sum", map[string]any{"a": 2, "b": 3}), "is 5")
		wantContent(t, call(t, ctx, m, "mcp__everything__get-tiny-image", nil), "[image: image/png, ")
		wantContent(t, call(t, ctx, m, "mcp__everything__get-resource-links", map[string]any{"count": 2}),
			"[resource link: demo://resource/dynamic/")
		wantContent(t, call(t, ctx, m, "mcp__everything__get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 1}),
			"Resource 1: This is a plaintext resource")
		wantContent(t, call(t, ctx, m, "mcp__files__list_directory", map[string]any{"path": shared}), "[FILE] a.txt")
	})

	t.Run("progress", func(t *testing.T) {
		var mu sync.Mutex
		var got []string
		reporting := tools.WithProgress(ctx, func(msg string) {
			mu.Lock()
			got = append(got, msg)
			mu.Unlock()
		})
		wantContent(t, call(t, reporting, m, "mcp__everything__trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3}),
			"Long running operation completed")
		mu.Lock()
		defer mu.Unlock()
		if len(got) == 0 || !strings.Contains(got[0], "1/3") {
			t.Errorf("progress reported: %q, want steps out of 3", got)
		}
	})

	t.Run("errors", func(t *testing.T) {
		// The server rejects arguments that do not match the schema with
		// an isError result.
		wantError(t, call(t, ctx, m, "mcp__everything__echo", map[string]any{}), "message")
		res, err := findTool(t, m, "mcp__everything__echo").Execute(ctx, &tools.Env{}, []byte(`{"message":`))
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, res, "invalid arguments")
		wantError(t, call(t, ctx, m, "mcp__files__list_directory", map[string]any{"path": "/"}), "denied")
	})

	t.Run("resources", func(t *testing.T) {
		var uris []string
		for _, r := range m.Resources() {
			if r.Server != "everything" {
				t.Errorf("resource %+v from an unexpected server", r)
			}
			uris = append(uris, r.URI)
		}
		const doc = "demo://resource/static/document/architecture.md"
		if !slices.Contains(uris, doc) {
			t.Fatalf("no resource %s in %v", doc, uris)
		}
		text, err := m.ReadResource(ctx, "everything", doc)
		if err != nil || !strings.Contains(text, "Architecture") {
			t.Errorf("ReadResource(%s) = %.80q, %v", doc, text, err)
		}
		text, err = m.ReadResource(ctx, "everything", "demo://resource/dynamic/blob/2")
		if err != nil || !strings.Contains(text, "bytes of binary data") {
			t.Errorf("ReadResource(blob) = %q, %v; want a description", text, err)
		}
		if _, err := m.ReadResource(ctx, "everything", "demo://no/such/thing"); err == nil {
			t.Error("reading a missing resource succeeded")
		}
		if _, err := m.ReadResource(ctx, "nobody", doc); err == nil {
			t.Error("reading from an unknown server succeeded")
		}
	})

	t.Run("prompts", func(t *testing.T) {
		var args *Prompt
		for _, p := range m.Prompts() {
			if p.Name == "args-prompt" {
				args = &p
			}
		}
		if args == nil {
			t.Fatalf("no args-prompt in %+v", m.Prompts())
		}
		if args.Command != "mcp__everything__args-prompt" || args.Server != "everything" {
			t.Errorf("prompt %+v", *args)
		}
		if len(args.Arguments) != 2 || args.Arguments[0].Name != "city" || !args.Arguments[0].Required || args.Arguments[1].Required {
			t.Errorf("arguments %+v, want city (required) and state", args.Arguments)
		}
		text, err := m.GetPrompt(ctx, "everything", "args-prompt", map[string]string{"city": "Paris", "state": "Texas"})
		if err != nil || text != "What's weather in Paris, Texas?" {
			t.Errorf("GetPrompt = %q, %v", text, err)
		}
	})

	t.Run("close", func(t *testing.T) {
		pid := liveSession(t, m, "everything").proc.cmd.Process.Pid
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if !processGone(pid) {
			t.Errorf("server process %d still exists after Close", pid)
		}
		for _, st := range m.Status() {
			if st.State != "closed" {
				t.Errorf("status %+v after Close", st)
			}
		}
		if len(m.Tools()) != 0 {
			t.Error("tools offered after Close")
		}
	})
}
