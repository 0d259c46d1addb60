//go:build unix

package mcp

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reasonix/reasonix/tools"
)

// BenchmarkCall measures one tool call to the example plugin over stdio,
// through Reasonix's adapted tool ("reasonix") and through the SDK's client
// alone ("sdk"), so the ratio is the adapter's cost: argument checks, the
// timeout, the liveness bookkeeping and rendering the result.
func BenchmarkCall(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "reasonix-plugin-example")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/reasonix-plugin-example").CombinedOutput(); err != nil {
		b.Fatalf("building the example plugin: %v\n%s", err, out)
	}
	args := json.RawMessage(`{"text": "to be or not to be"}`)

	b.Run("reasonix", func(b *testing.B) {
		m := start(b, Options{Servers: []ServerConfig{{Name: "example", Command: bin}}})
		tl := findTool(b, m, "mcp__example__wordcount")
		env := &tools.Env{}
		for b.Loop() {
			res, err := tl.Execute(b.Context(), env, args)
			if err != nil || res.IsError || !strings.Contains(res.Content, "6 words") {
				b.Fatalf("%+v %v", res, err)
			}
		}
	})

	b.Run("sdk", func(b *testing.B) {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		params := &mcp.CallToolParams{Name: "wordcount", Arguments: args}
		for b.Loop() {
			res, err := cs.CallTool(b.Context(), params)
			if err != nil || res.IsError {
				b.Fatalf("%+v %v", res, err)
			}
		}
	})
}
