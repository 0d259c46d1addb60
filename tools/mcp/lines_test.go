//go:build unix

package mcp

import (
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

func TestMessageLines(t *testing.T) {
	in := "Server v1 listening on stdio\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
		"\n" +
		"[debug] got request\n" +
		`{"jsonrpc":"2.0","id":2` + "\n" + // cut short: not a message
		"  " + `[{"jsonrpc":"2.0","method":"m"}]` + "\n" +
		`{"jsonrpc":"2.0","id":3,"result":"no newline at the end"}`
	m := newMessageLines(iotest.OneByteReader(strings.NewReader(in)), slog.New(slog.DiscardHandler))
	got, err := io.ReadAll(iotest.HalfReader(m))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
		"  " + `[{"jsonrpc":"2.0","method":"m"}]` + "\n" +
		`{"jsonrpc":"2.0","id":3,"result":"no newline at the end"}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if j := m.firstJunk(); j != "Server v1 listening on stdio" {
		t.Errorf("first junk line %q", j)
	}
}

// TestBannerOnStdout: a server that prints a banner to stdout before
// speaking JSON-RPC, which other MCP clients tolerate, works.
func TestBannerOnStdout(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := start(t, Options{Servers: []ServerConfig{{
		Name:    "chatty",
		Command: "sh",
		Args:    []string{"-c", `echo "chatty server 1.0 ready"; exec "$EXE"`},
		Env:     map[string]string{growServerEnv: "1", "EXE": exe},
	}}})
	if w := m.Warnings(); len(w) > 0 {
		t.Fatalf("warnings %q", w)
	}
	wantContent(t, call(t, t.Context(), m, "mcp__chatty__tool1", map[string]any{}), "tool1")
}
