package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/lsp/acp"
)

// rawClient speaks to Serve line by line, to see the errors as they are
// on the wire.
type rawClient struct {
	t    *testing.T
	in   io.Writer
	msgs chan map[string]json.RawMessage
}

func newRawClient(t *testing.T) *rawClient {
	t.Helper()
	cr, aw := io.Pipe()
	ar, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { acp.Serve(ctx, ar, aw, acp.Options{Version: "test"}); close(done) }()
	c := &rawClient{t: t, in: cw, msgs: make(chan map[string]json.RawMessage, 64)}
	go func() {
		sc := bufio.NewScanner(cr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				c.msgs <- m
			}
		}
		close(c.msgs)
	}()
	t.Cleanup(func() {
		cw.Close()
		cancel()
		<-done
		aw.Close()
	})
	return c
}

// call sends line and returns the response whose id is id.
func (c *rawClient) call(line, id string) map[string]json.RawMessage {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
	ctx := testCtx(c.t)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("the connection ended before the answer to %s", line)
			}
			if _, isCall := m["method"]; !isCall && string(m["id"]) == id {
				return m
			}
		case <-ctx.Done():
			c.t.Fatalf("no answer to %s", line)
		}
	}
}

// TestErrorsSayWhy: every error a client can get says why in its
// message, after the name of its code, and in data.details: the agent's
// own errors, the SDK's (parameters that do not parse, a method it does
// not know), the framing guard's, and a failed turn.
func TestErrorsSayWhy(t *testing.T) {
	root := workspace(t, "fault 400 the request was too odd\n")
	c := newRawClient(t)
	if m := c.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`, "1"); m["error"] != nil {
		t.Fatalf("initialize: %s", m["error"])
	}
	m := c.call(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root), "2")
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(m["result"], &sess); err != nil || sess.SessionID == "" {
		t.Fatalf("session/new: %s", m["error"])
	}
	for _, tc := range []struct {
		name, line, id string
		// message is what the error's message must be, or start with
		// when it ends in "…".
		message string
		details bool
	}{
		{"not JSON", `not json`, "null", "Parse error: the line is not JSON", true},
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"session/frobnicate","params":{}}`, "3",
			"Method not found: session/frobnicate", false},
		{"the agent's invalid params", `{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"relative","mcpServers":[]}}`, "4",
			"Invalid params: cwd must be an absolute path", true},
		{"params the SDK cannot read", `{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":5,"mcpServers":[]}}`, "5",
			"Invalid params: json: cannot unmarshal…", true},
		{"no such session", `{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, "6",
			`Invalid params: no session "nope" on this connection…`, true},
		{"a failed turn", fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}}`, sess.SessionID), "7",
			"Internal error: scripted: HTTP 400: the request was too odd…", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := c.call(tc.line, tc.id)
			var e struct {
				Code    int            `json:"code"`
				Message string         `json:"message"`
				Data    map[string]any `json:"data"`
			}
			if err := json.Unmarshal(m["error"], &e); err != nil {
				t.Fatalf("no error in %v", m)
			}
			prefix, open := strings.CutSuffix(tc.message, "…")
			if e.Message != tc.message && !(open && strings.HasPrefix(e.Message, prefix)) {
				t.Errorf("message = %q, want %q", e.Message, tc.message)
			}
			if _, reason, _ := strings.Cut(e.Message, ": "); tc.details && e.Data["details"] != reason {
				t.Errorf("data = %v, want details %q", e.Data, reason)
			}
		})
	}
}
