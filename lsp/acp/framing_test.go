package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestGuardLines answers what is not a message and passes the rest on,
// in order, whatever comes between them.
func TestGuardLines(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("a", maxLine) + `"}`
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`not json`,
		``,
		`[1, 2]`,
		long,
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/new\"}\r",
		`{"jsonrpc":"2.0","id":3,"method":"last, no newline"}`,
	}, "\n")
	var out bytes.Buffer
	r, start := newWire(strings.NewReader(input), &out).lines()
	start()
	passed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/new"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"last, no newline"}` + "\n"
	if string(passed) != want {
		t.Errorf("passed on:\n%s\nwant:\n%s", passed, want)
	}
	var codes []int
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var resp struct {
			ID    *int `json:"id"`
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.ID != nil {
			t.Errorf("answer %q: %v", line, err)
		}
		codes = append(codes, resp.Error.Code)
	}
	if got := codes; len(got) != 3 || got[0] != -32700 || got[1] != -32600 || got[2] != -32600 {
		t.Errorf("error codes = %v, want parse error, invalid request, too long", got)
	}
}

// TestWireDrain counts requests until their responses are written;
// notifications, the agent's own requests and responses to them do not
// count.
func TestWireDrain(t *testing.T) {
	var out bytes.Buffer
	w := newWire(nil, &out)
	w.received([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	w.received([]byte(`{"jsonrpc":"2.0","method":"session/cancel"}`))
	w.received([]byte(`{"jsonrpc":"2.0","id":7,"result":{}}`))
	if w.pending != 1 {
		t.Fatalf("pending = %d, want 1", w.pending)
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"session/request_permission"}` + "\n"))
	w.Write([]byte(`{"jsonrpc":"2.0","method":"session/update"}` + "\n"))
	if w.pending != 1 {
		t.Fatalf("after the agent's request and notification, pending = %d", w.pending)
	}
	done := make(chan struct{})
	go func() { w.drain(nil); close(done) }()
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	<-done
}
