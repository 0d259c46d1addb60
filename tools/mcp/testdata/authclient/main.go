// Command authclient is an MCP client for the conformance suite's
// authorization scenarios: it connects to the server URL given as its
// last argument, signing in through an opener that follows the test
// authorization server's redirects, lists the tools and calls each one.
// A pre-registered client comes in MCP_CONFORMANCE_CONTEXT
// ({"client_id", "client_secret"}). It exits 1 when the server does not
// connect or a call fails.
//
//	go build -o /tmp/authclient ./tools/mcp/testdata/authclient
//	npx @modelcontextprotocol/conformance client --command /tmp/authclient --scenario auth/metadata-default
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/mcp"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: authclient URL")
		os.Exit(2)
	}
	var pre struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if c := os.Getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		json.Unmarshal([]byte(c), &pre)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := mcp.Start(ctx, mcp.Options{
		Servers: []mcp.ServerConfig{{
			Name: "conformance", Type: "http", URL: os.Args[len(os.Args)-1],
			ClientID: pre.ClientID, ClientSecret: pre.ClientSecret,
		}},
		Opener: mcptest.FollowOpener(nil),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	defer m.Close()
	failed := false
	for _, w := range m.Warnings() {
		fmt.Fprintln(os.Stderr, w)
		failed = true
	}
	for _, t := range m.Tools() {
		res, err := t.Execute(ctx, &tools.Env{}, json.RawMessage(`{}`))
		if err != nil || res.IsError {
			fmt.Fprintf(os.Stderr, "%s: %v %s\n", t.Name(), err, res.Content)
			failed = true
			continue
		}
		fmt.Printf("%s: %s\n", t.Name(), res.Content)
	}
	if failed {
		os.Exit(1)
	}
}
