package lsp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp"
	"github.com/reasonix/reasonix/lsp/lsptest"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
	"github.com/reasonix/reasonix/tools/sandbox/sandboxtest"
)

// rawClient talks to a server over a pipe with hand-written frames, for
// what a well-behaved client library would never send.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	msgs chan map[string]any
	exit chan int
}

// newRawClient starts a server. A goroutine reads everything the server
// sends as it arrives, as a real client does, so the server never blocks
// writing to an unread pipe.
func newRawClient(t *testing.T) *rawClient {
	t.Helper()
	serverEnd, clientEnd := net.Pipe()
	c := &rawClient{t: t, conn: clientEnd, msgs: make(chan map[string]any, 1024), exit: make(chan int, 1)}
	go func() {
		c.exit <- lsp.Serve(context.Background(), serverEnd, serverEnd, serverEnd, lsp.Options{})
		serverEnd.Close()
	}()
	go c.readLoop(bufio.NewReader(clientEnd))
	t.Cleanup(func() { clientEnd.Close() })
	return c
}

func (c *rawClient) readLoop(r *bufio.Reader) {
	defer close(c.msgs)
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			m = map[string]any{"invalid": string(body)}
		}
		c.msgs <- m
	}
}

func (c *rawClient) write(s string) {
	c.t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c.conn, s); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *rawClient) send(msg string) {
	c.write(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg))
}

// read returns the next message the server sends that is not a
// notification.
func (c *rawClient) read() map[string]any {
	c.t.Helper()
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatal("the server closed the connection")
			}
			if m["invalid"] != nil {
				c.t.Fatalf("bad JSON from server: %v", m["invalid"])
			}
			if m["method"] != nil && m["id"] == nil {
				continue // a notification
			}
			return m
		case <-time.After(10 * time.Second):
			c.t.Fatal("no message from the server")
		}
	}
}

// response reads until the response with id arrives, skipping
// notifications.
func (c *rawClient) response(id float64) map[string]any {
	c.t.Helper()
	for {
		m := c.read()
		if m["id"] == id && m["method"] == nil {
			return m
		}
	}
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"rootUri":null,"processId":null}}`

func TestLifecycle(t *testing.T) {
	t.Setenv("REASONIX_HOME", t.TempDir())
	c := newRawClient(t)
	c.send(`{"jsonrpc":"2.0","id":7,"method":"textDocument/codeAction","params":{}}`)
	if code := errCode(c.response(7)); code != -32002 {
		t.Fatalf("request before initialize: code %v, want -32002", code)
	}
	c.send(initMsg)
	res := c.response(1)
	caps, _ := res["result"].(map[string]any)["capabilities"].(map[string]any)
	if caps["executeCommandProvider"] == nil || caps["codeActionProvider"] == nil {
		t.Fatalf("capabilities %v", caps)
	}
	c.send(initMsg)
	if code := errCode(c.response(1)); code != -32600 {
		t.Fatalf("second initialize: code %v", code)
	}
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	if r := c.response(2); r["error"] != nil {
		t.Fatalf("shutdown: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"textDocument/codeAction","params":{}}`)
	if code := errCode(c.response(3)); code != -32600 {
		t.Fatalf("request after shutdown: code %v", code)
	}
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	select {
	case code := <-c.exit:
		if code != 0 {
			t.Fatalf("exit after shutdown: code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit")
	}
}

func TestExitWithoutShutdownIsAnError(t *testing.T) {
	t.Setenv("REASONIX_HOME", t.TempDir())
	c := newRawClient(t)
	c.send(initMsg)
	c.response(1)
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := <-c.exit; code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
}

// TestGarbageNeverKillsTheServer sends what a confused or hostile client
// might, then checks the server still answers.
func TestGarbageNeverKillsTheServer(t *testing.T) {
	t.Setenv("REASONIX_HOME", t.TempDir())
	c := newRawClient(t)
	c.send(initMsg)
	c.response(1)
	c.write("this is not a header\r\n\r\n")
	c.write("Content-Length: abc\r\n\r\n{}")
	c.send(`{"jsonrpc":"2.0","id":10,`)
	if code := errCode(c.read()); code != -32700 {
		t.Fatalf("invalid JSON: code %v", code)
	}
	c.send(`[1,2,3]`)
	if code := errCode(c.read()); code != -32600 {
		t.Fatalf("batch: code %v", code)
	}
	c.send(`{"jsonrpc":"2.0","id":11,"method":"no/such/method"}`)
	if code := errCode(c.response(11)); code != -32601 {
		t.Fatalf("unknown method: code %v", code)
	}
	c.send(`{"jsonrpc":"2.0","id":12,"method":"textDocument/codeAction","params":{"textDocument":42}}`)
	if r := c.response(12); errCode(r) != -32602 {
		t.Fatalf("wrong params shape: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","id":13,"method":"workspace/executeCommand","params":{"command":"reasonix.ask","arguments":["not an object"]}}`)
	if r := c.response(13); errCode(r) != -32602 {
		t.Fatalf("bad command argument: %v", r)
	}
	// Standard methods the server does not offer: a request is not found,
	// a notification is ignored.
	c.send(`{"jsonrpc":"2.0","id":15,"method":"codeAction/resolve","params":{"title":"Reasonix"}}`)
	if code := errCode(c.response(15)); code != -32601 {
		t.Fatalf("codeAction/resolve: code %v", code)
	}
	c.send(`{"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[]}}`)
	c.send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///nowhere.go","version":2},"contentChanges":[{"text":"x"}]}}`)
	c.send(`{"jsonrpc":"2.0","method":"$/somethingOptional","params":{}}`)

	// A 50 MB message: a document opened with 50 MB of text.
	big := strings.Repeat("x", 50<<20)
	c.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///big.txt","languageId":"plaintext","version":1,"text":"` + big + `"}}}`)
	c.send(`{"jsonrpc":"2.0","id":14,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///big.txt"},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"context":{"diagnostics":[]}}}`)
	if r := c.response(14); r["error"] != nil {
		t.Fatalf("after the 50 MB message: %v", r)
	}
}

// TestOversizedFrameNeverWedgesTheServer sends a header that declares an
// absurd body length, with no body, then checks the server refuses it and
// still answers what follows.
func TestOversizedFrameNeverWedgesTheServer(t *testing.T) {
	t.Setenv("REASONIX_HOME", t.TempDir())
	c := newRawClient(t)
	c.write("Content-Length: 99999999999999\r\n\r\n")
	if r := c.read(); errCode(r) != -32600 || r["id"] != nil {
		t.Fatalf("oversized frame: got %v, want an invalid-request error with id null", r)
	}
	c.send(initMsg)
	if r := c.response(1); r["error"] != nil {
		t.Fatalf("initialize after the oversized frame: %v", r)
	}
}

// slowScript streams a long answer slowly, so a turn is in flight long
// enough to test what happens meanwhile.
func slowScript(match string) string {
	return "match " + match + "\ndelay 20ms\ntext " + strings.Repeat("slowly ", 300) + "\n"
}

// TestConnectionStaysResponsiveDuringATurn: while one session's turn
// streams, code actions, document changes and another session's turn are
// answered promptly.
func TestConnectionStaysResponsiveDuringATurn(t *testing.T) {
	root, _ := workspace(t, slowScript("long")+"---\nmatch quick\ntext quick answer\n", "")
	ed := lsptest.New(t, lsptest.Options{Root: root, Events: true})
	ed.OpenFile("calc.go")
	b, _ := json.Marshal(map[string]any{"prompt": "long"})
	started := execute(t, ed, protocol.Command{Command: "reasonix.start", Arguments: []protocol.LSPAny{b}})
	ed.Await("the long turn to stream", 10*time.Second, func(r *lsptest.Recorded) bool {
		for _, e := range r.Events {
			if e["kind"] == "text" {
				return true
			}
		}
		return false
	})

	start := time.Now()
	quickFix(t, ed)
	ed.Type("calc.go", "return a - b", "return b - a")
	if d := time.Since(start); d > time.Second {
		t.Errorf("code action and didChange took %v during a turn", d)
	}
	start = time.Now()
	q, _ := json.Marshal(map[string]any{"prompt": "quick"})
	res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{q}})
	if res["text"] != "quick answer" || res["sessionId"] == started["sessionId"] {
		t.Fatalf("second session: %v", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("second session took %v", d)
	}
	// A second turn in the busy session is refused, not queued.
	busy, _ := json.Marshal(map[string]any{"prompt": "long", "sessionId": started["sessionId"]})
	_, err := ed.Server().ExecuteCommand(ctx(t), &protocol.ExecuteCommandParams{Command: "reasonix.ask", Arguments: []protocol.LSPAny{busy}})
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("busy session: %v", err)
	}
}

// TestCancel stops a turn mid-stream, through reasonix.cancel and through
// $/cancelRequest, within a second each.
func TestCancel(t *testing.T) {
	for _, how := range []string{"command", "cancelRequest"} {
		t.Run(how, func(t *testing.T) {
			root, _ := workspace(t, slowScript("long"), "")
			ed := lsptest.New(t, lsptest.Options{Root: root, Events: true})
			b, _ := json.Marshal(map[string]any{"prompt": "long"})
			reqCtx, cancelReq := context.WithCancel(context.Background())
			defer cancelReq()
			done := make(chan error, 1)
			go func() {
				_, err := ed.Server().ExecuteCommand(reqCtx, &protocol.ExecuteCommandParams{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
				done <- err
			}()
			var sessionID string
			ed.Await("streaming", 10*time.Second, func(r *lsptest.Recorded) bool {
				for _, e := range r.Events {
					if e["kind"] == "text" {
						sessionID, _ = e["sessionId"].(string)
						return true
					}
				}
				return false
			})
			start := time.Now()
			if how == "command" {
				a, _ := json.Marshal(map[string]any{"sessionId": sessionID})
				res := execute(t, ed, protocol.Command{Command: "reasonix.cancel", Arguments: []protocol.LSPAny{a}})
				if res["cancelled"] != true {
					t.Fatalf("cancel result %v", res)
				}
			} else {
				cancelReq() // the dispatcher sends $/cancelRequest
			}
			ed.Await("the turn to end", 5*time.Second, func(r *lsptest.Recorded) bool {
				for _, e := range r.Events {
					if e["kind"] == "turn_done" {
						return true
					}
				}
				return false
			})
			if d := time.Since(start); d > time.Second {
				t.Errorf("the turn took %v to stop", d)
			}
			select {
			case err := <-done:
				if how == "command" && err != nil {
					// reasonix.ask answers with the cancelled turn's result
					// or the cancellation error.
					var je *jsonrpc2.Error
					if !errors.As(err, &je) {
						t.Fatalf("ask: %v", err)
					}
				}
			case <-time.After(5 * time.Second):
				t.Fatal("reasonix.ask did not return")
			}
		})
	}
}

// TestCancelKillsTheShellCommand: cancelling during a shell command kills
// its whole process group.
func TestCancelKillsTheShellCommand(t *testing.T) {
	tag := sandboxtest.Tag()
	script := `call bash {"command": "sleep ` + tag + ` & sleep ` + tag + `"}
---
text never
`
	root, _ := workspace(t, script, "[permissions]\nallow = [\"bash\"]\n")
	ed := lsptest.New(t, lsptest.Options{Root: root, Events: true})
	b, _ := json.Marshal(map[string]any{"prompt": "wait"})
	res := execute(t, ed, protocol.Command{Command: "reasonix.start", Arguments: []protocol.LSPAny{b}})
	waitSleeping(t, tag, 2)
	a, _ := json.Marshal(map[string]any{"sessionId": res["sessionId"]})
	execute(t, ed, protocol.Command{Command: "reasonix.cancel", Arguments: []protocol.LSPAny{a}})
	waitSleeping(t, tag, 0)
}

// waitSleeping waits until n processes run `sleep tag`. A command's
// processes may be in a PID namespace of their own, where the pids it
// could report mean nothing here; they are found by their argument.
func waitSleeping(t *testing.T, tag string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(sandboxtest.Running("sleep", tag)) != n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d processes run sleep %s, want %d", len(sandboxtest.Running("sleep", tag)), tag, n)
		}
	}
}

// TestVanishingClient: when the editor dies mid-turn the server exits,
// kills the running command, and the session file records the turn.
func TestVanishingClient(t *testing.T) {
	tag := sandboxtest.Tag()
	script := `call bash {"command": "sleep ` + tag + ` & sleep ` + tag + `"}
---
text never
`
	root, _ := workspace(t, script, "[permissions]\nallow = [\"bash\"]\n")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	b, _ := json.Marshal(map[string]any{"prompt": "wait for me"})
	execute(t, ed, protocol.Command{Command: "reasonix.start", Arguments: []protocol.LSPAny{b}})
	waitSleeping(t, tag, 2)
	if code := ed.Disconnect(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	waitSleeping(t, tag, 0)
	files, _ := filepath.Glob(filepath.Join(os.Getenv("REASONIX_HOME"), "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if !bytes.Contains(data, []byte("wait for me")) || !bytes.Contains(data, []byte("Cancelled by the user")) {
		t.Fatalf("session file:\n%s", data)
	}
}

func TestConfigErrorsAreShown(t *testing.T) {
	root, _ := workspace(t, "text hi\n", "[[providers]]\nname = \"bad\"\nkind = \"grpc\"\nbase_url = \"u\"\nmodel = \"m\"\n")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	ed.Await("a configuration error", 5*time.Second, func(r *lsptest.Recorded) bool {
		for _, m := range r.Messages {
			if m.Type == protocol.MessageTypeError && strings.Contains(m.Message, `unknown kind "grpc"`) && strings.Contains(m.Message, "reasonix.toml:") {
				return true
			}
		}
		return false
	})
}

func TestAuthFailureIsShown(t *testing.T) {
	root, _ := workspace(t, "fault 401\n", "")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	b, _ := json.Marshal(map[string]any{"prompt": "hi"})
	res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
	if res["stop"] != "error" || !strings.Contains(fmt.Sprint(res["error"]), "authentication failed") {
		t.Fatalf("result %v", res)
	}
	rec := ed.Snapshot()
	if len(rec.Messages) == 0 || !strings.Contains(rec.Messages[0].Message, "check the API key") {
		t.Fatalf("messages %v", rec.Messages)
	}
}

// TestSettingsLayer: initializationOptions sit above the project file;
// didChangeConfiguration with null settings leaves them, and with
// settings replaces them for the next turn.
func TestSettingsLayer(t *testing.T) {
	root, _ := workspace(t, "match one\nexpect system Be terse.\ntext ok\n---\nmatch still\nexpect system Be terse.\ntext ok\n---\nmatch two\nexpect system Be verbose.\ntext ok\n", "")
	ed := lsptest.New(t, lsptest.Options{Root: root, Settings: map[string]any{
		"reasonix": map[string]any{"agent": map[string]any{"system_prompt": "Be terse.", "max_steps": 5}},
	}})
	b, _ := json.Marshal(map[string]any{"prompt": "one"})
	if res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}}); res["text"] != "ok" {
		t.Fatalf("first: %v", res)
	}
	if err := ed.Server().DidChangeConfiguration(ctx(t), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny("null")}); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(map[string]any{"prompt": "still"})
	if res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}}); res["text"] != "ok" {
		t.Fatalf("after null settings: %v", res)
	}
	settings, _ := json.Marshal(map[string]any{"agent": map[string]any{"system_prompt": "Be verbose."}})
	if err := ed.Server().DidChangeConfiguration(ctx(t), &protocol.DidChangeConfigurationParams{Settings: settings}); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(map[string]any{"prompt": "two"})
	if res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}}); res["text"] != "ok" {
		t.Fatalf("second: %v", res)
	}
}

// TestSessionMethods lists, creates and resumes sessions for a panel.
func TestSessionMethods(t *testing.T) {
	root, _ := workspace(t, "match first\ntext one\n---\nmatch second\nexpect request first\ntext two\n", "")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	call := func(method string, params any) map[string]any {
		t.Helper()
		var out map[string]any
		if _, err := ed.Conn().Call(ctx(t), method, params, &out); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return out
	}
	created := call("reasonix/newSession", map[string]any{})
	id := created["sessionId"].(string)
	b, _ := json.Marshal(map[string]any{"prompt": "first", "sessionId": id})
	execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})

	list := call("reasonix/listSessions", map[string]any{"folder": string(ed.URI(""))})
	sessions := list["sessions"].([]any)
	if len(sessions) != 1 || sessions[0].(map[string]any)["id"] != id || sessions[0].(map[string]any)["title"] != "first" {
		t.Fatalf("list %v", list)
	}
	resumed := call("reasonix/resumeSession", map[string]any{"sessionId": id})
	msgs := resumed["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["content"] != "first" {
		t.Fatalf("resumed %v", resumed)
	}
	b, _ = json.Marshal(map[string]any{"prompt": "second", "sessionId": id})
	if res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}}); res["text"] != "two" {
		t.Fatalf("continued: %v", res)
	}
	if _, err := ed.Conn().Call(ctx(t), "reasonix/resumeSession", map[string]any{"sessionId": "nope"}, nil); err == nil {
		t.Fatal("resumed a session that does not exist")
	}
}

// TestMCPServersAndCommands asks reasonix/mcpServers for the workspace's
// MCP servers, then uses them the way a chat panel does: /mcp answers
// without the model, and an MCP prompt is a slash command whose rendered
// text is what the model gets.
func TestMCPServersAndCommands(t *testing.T) {
	mcptest.Require(t, "mcp-server-everything")
	t.Setenv("PATH", mcptest.BinDir()+string(os.PathListSeparator)+os.Getenv("PATH"))
	root, srv := workspace(t, "expect user What's weather in Lyon?\ntext Sunny.\n", `
[[plugins]]
name    = "everything"
command = "mcp-server-everything"
`)
	ed := lsptest.New(t, lsptest.Options{Root: root})
	var got struct {
		Servers []struct {
			Name      string `json:"name"`
			Transport string `json:"transport"`
			State     string `json:"state"`
			Tools     int    `json:"tools"`
		} `json:"servers"`
		Prompts []struct {
			Command   string `json:"command"`
			Arguments []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"arguments"`
		} `json:"prompts"`
		Resources []struct {
			Server string `json:"server"`
			URI    string `json:"uri"`
		} `json:"resources"`
		Text string `json:"text"`
	}
	if _, err := ed.Conn().Call(ctx(t), "reasonix/mcpServers", map[string]any{"folder": string(ed.URI(""))}, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Servers) != 1 || got.Servers[0].Name != "everything" || got.Servers[0].State != "connected" || got.Servers[0].Tools == 0 {
		t.Fatalf("servers %+v (text %q)", got.Servers, got.Text)
	}
	found := false
	for _, p := range got.Prompts {
		if p.Command == "mcp__everything__args-prompt" && len(p.Arguments) > 0 && p.Arguments[0].Name == "city" && p.Arguments[0].Required {
			found = true
		}
	}
	if !found || !strings.Contains(got.Text, "everything") {
		t.Fatalf("prompts %+v, text %q", got.Prompts, got.Text)
	}
	if len(got.Resources) == 0 || got.Resources[0].Server != "everything" || !strings.HasPrefix(got.Resources[0].URI, "demo://") {
		t.Fatalf("resources %+v", got.Resources)
	}

	// Asked from a file, as editors do: the file's mention follows the
	// rendered prompt; it never becomes one of the command's arguments.
	ask := func(prompt string) map[string]any {
		b, _ := json.Marshal(map[string]any{"prompt": prompt, "uri": ed.URI("calc.go")})
		return execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
	}
	if res := ask("/mcp"); !strings.Contains(fmt.Sprint(res["text"]), "everything  stdio") || !strings.Contains(fmt.Sprint(res["text"]), "connected") {
		t.Errorf("/mcp: %v", res)
	}
	if res := ask("/mcp__everything__args-prompt Lyon"); res["text"] != "Sunny." {
		t.Errorf("prompt command: %v", res)
	}
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d scripted steps left: /mcp should not reach the model, the prompt should", n)
	}
}

// TestProtocolDocCoversEveryMethod keeps docs/PROTOCOL.md in step with the
// code: every reasonix/... method and reasonix.* command the server
// announces has a section.
func TestProtocolDocCoversEveryMethod(t *testing.T) {
	t.Setenv("REASONIX_HOME", t.TempDir())
	doc, err := os.ReadFile("../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	c := newRawClient(t)
	c.send(initMsg)
	caps := c.response(1)["result"].(map[string]any)["capabilities"].(map[string]any)
	var names []string
	for _, m := range caps["experimental"].(map[string]any)["reasonix"].(map[string]any)["methods"].([]any) {
		names = append(names, m.(string))
	}
	for _, m := range caps["executeCommandProvider"].(map[string]any)["commands"].([]any) {
		names = append(names, m.(string))
	}
	if len(names) < 8 {
		t.Fatalf("only %d names announced: %v", len(names), names)
	}
	for _, name := range names {
		if !bytes.Contains(doc, []byte("### `"+name+"`")) {
			t.Errorf("docs/PROTOCOL.md has no section for %s", name)
		}
	}
	// And every method name in the source is announced.
	src, _ := filepath.Glob("*.go")
	for _, f := range src {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			if i := strings.Index(line, `"reasonix/`); i >= 0 && !strings.HasSuffix(f, "_test.go") {
				name, _, _ := strings.Cut(line[i+1:], `"`)
				if !strings.Contains(strings.Join(names, " "), name) {
					t.Errorf("%s uses %s, which the server does not announce", f, name)
				}
			}
		}
	}
}

// TestSlowPluginDoesNotHoldUpTheEditor: a plugin that takes its time to
// start (here: forever) is started in the background. The editor's
// requests are answered meanwhile, and when the editor quits the plugin
// is stopped rather than waited for.
func TestSlowPluginDoesNotHoldUpTheEditor(t *testing.T) {
	// The plugin holds the write end of a FIFO: opening the read end
	// returns once it has started, and reading it ends when it is gone.
	fifo := filepath.Join(t.TempDir(), "alive")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	root, _ := workspace(t, "text unused\n", fmt.Sprintf(`
[[plugins]]
name    = "slow"
command = "sh"
args    = ["-c", "exec sleep 3600 3>%s"]
start_timeout_seconds = 3600
`, fifo))
	ed := lsptest.New(t, lsptest.Options{Root: root})

	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			t.Error(err)
		}
		opened <- f
	}()
	var alive *os.File
	select {
	case alive = <-opened:
	case <-time.After(time.Minute):
		t.Fatal("the plugin was not started after initialized")
	}
	if alive == nil {
		return
	}
	defer alive.Close()

	ed.OpenFile("calc.go")
	actions, err := ed.Server().CodeAction(ctx(t), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: ed.URI("calc.go")},
		Range:        diagnostic.Range,
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{diagnostic}},
	})
	if err != nil || len(actions) == 0 {
		t.Fatalf("code actions while a plugin starts: %v, %v", actions, err)
	}

	if code := ed.Shutdown(); code != 0 {
		t.Errorf("exit code %d", code)
	}
	gone := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(alive) // end of file once the plugin has exited
		gone <- err
	}()
	select {
	case err := <-gone:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the starting plugin outlived the server")
	}
}
