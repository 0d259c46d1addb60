package graph

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// bareArg, as the test binary's first argument, makes it a bare language
// server instead of running the tests.
const bareArg = "reasonix-bare-language-server"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == bareArg {
		serveBare()
		return
	}
	os.Exit(m.Run())
}

// serveBare is a language server that offers nothing but document sync,
// on stdin and stdout, until it is told to exit or its input ends.
func serveBare() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn := jsonrpc2.NewConn(wire.NewStream(os.Stdin, os.Stdout, os.Stdin, nil), jsonrpc2.WithCodec(wire.Codec{}))
	conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case "initialize":
			return map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}}, nil
		case "shutdown":
			return nil, nil
		case "exit":
			cancel()
			return nil, nil
		}
		if req.IsCall() {
			return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "%s", req.Method())
		}
		return nil, nil
	})
	select {
	case <-ctx.Done():
	case <-conn.Done():
	}
}

// TestNavigationNotOffered: a server that offers none of the navigation
// features is not asked; each action says plainly that it does not offer
// it.
func TestNavigationNotOffered(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	file := filepath.Join(root, "a.bare")
	if err := os.WriteFile(file, []byte("call f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bare := ServerSpec{Name: "bare", Command: []string{os.Args[0], bareArg}, Extensions: []string{".bare"}}
	m := newManager(t, root, nil, nil, bare)
	for action, feature := range map[string]string{
		"incoming_calls":  "call hierarchy",
		"outgoing_calls":  "call hierarchy",
		"implementations": "implementations",
		"type_hierarchy":  "type hierarchy",
		"hover":           "hover",
	} {
		out, err := m.Query(t.Context(), tools.GraphQuery{Action: action, Path: file, Line: 1, Column: 6})
		want := "the language server for .bare files (bare) does not offer " + feature + "; use find_references or grep instead"
		if err == nil || err.Error() != want {
			t.Errorf("%s: %q, %v; want the error %q", action, out, err, want)
		}
	}
}
