package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// An endpoint is one name of the custom protocol in docs/PROTOCOL.md that
// the client sends: a reasonix/... method (customMethods) or a
// workspace/executeCommand command (commands), with its handler. What the
// server sends is in toClient (client.go). A test holds these tables, the
// editors' tables and the document to one another.
type endpoint struct {
	name string
	// async releases the connection's read loop once the params are
	// decoded, for handlers that call back into the client (dialogs,
	// edits) or wait long (a turn, a workspace's MCP servers starting):
	// the read loop must go on to read the client's answers.
	async bool
	// serve decodes the params and returns the call that answers them.
	serve serveFunc
}

// decodeFunc decodes raw params into v, or fails with InvalidParams.
type decodeFunc func(raw protocol.LSPAny, v any) error

// serveFunc decodes params with decode and returns the handler's call on
// them, whose result is encoded JSON.
type serveFunc func(s *Server, raw protocol.LSPAny, decode decodeFunc) (func(context.Context) ([]byte, error), error)

// handler makes a typed handler an endpoint's serve: P is its params (or
// command argument), R its result, encoded with encoding/json semantics.
func handler[P, R any](f func(*Server, context.Context, P) (R, error)) serveFunc {
	return func(s *Server, raw protocol.LSPAny, decode decodeFunc) (func(context.Context) ([]byte, error), error) {
		var p P
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		return func(ctx context.Context) ([]byte, error) {
			r, err := f(s, ctx, p)
			if err != nil {
				return nil, err
			}
			return json.Marshal(r)
		}, nil
	}
}

// served returns the endpoint called name, if any.
func served(table []endpoint, name string) (endpoint, bool) {
	for _, e := range table {
		if e.name == name {
			return e, true
		}
	}
	return endpoint{}, false
}

// call decodes raw, releases the read loop for an async endpoint, and
// runs the handler.
func (e endpoint) call(ctx context.Context, s *Server, raw protocol.LSPAny, decode decodeFunc) ([]byte, error) {
	run, err := e.serve(s, raw, decode)
	if err != nil {
		return nil, err
	}
	if e.async {
		jsonrpc2.Async(ctx)
	}
	return run(ctx)
}

// names lists the names of a table, in its order.
func names(table []endpoint) []string {
	out := make([]string, 0, len(table))
	for _, e := range table {
		out = append(out, e.name)
	}
	return out
}
