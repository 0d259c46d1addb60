package lsp_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/lsp"
)

// FuzzServer feeds arbitrary bytes to a whole server, after a valid
// initialize, and checks it neither panics nor hangs: framing, JSON-RPC
// decoding and every handler's parameter decoding see the input.
func FuzzServer(f *testing.F) {
	frame := func(s string) string { return "Content-Length: " + strconv.Itoa(len(s)) + "\r\n\r\n" + s }
	seeds := []string{
		frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`),
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.go","languageId":"go","version":1,"text":"package a\n"}}}`) +
			frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":8},"end":{"line":0,"character":9}},"text":"b"}]}}`),
		frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///a.go"},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}},"context":{"diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"message":"bad","code":7}]}}}`),
		frame(`{"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"reasonix.cancel","arguments":[{"sessionId":"x"}]}}`),
		frame(`{"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"reasonix.start","arguments":[{"prompt":""}]}}`),
		frame(`{"jsonrpc":"2.0","id":5,"method":"reasonix/resumeSession","params":{"sessionId":42}}`),
		frame(`{"jsonrpc":"2.0","id":6,"method":"reasonix/listSessions"}`),
		frame(`{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"agent":{"max_steps":"x"}}}}`),
		frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"2"}}`),
		frame(`{"jsonrpc":"2.0","id":7,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`),
		"garbage\r\n\r\n" + frame(`{"jsonrpc":"2.0","id":8,"method":"nope"}`),
		frame(`{"jsonrpc":"2.0","id":9,"method":"textDocument/codeAction","params":null}`),
		frame(`{"jsonrpc":"2.0","method":"workspace/didChangeWorkspaceFolders","params":{"event":{"added":[{"uri":"file:///tmp","name":"t"}],"removed":[]}}}`),
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	home := f.TempDir()
	os.Setenv("REASONIX_HOME", home)
	init := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"rootUri":"file:///tmp","processId":null}}`)
	f.Fuzz(func(t *testing.T, input []byte) {
		log := &lockedBuffer{}
		in := io.MultiReader(strings.NewReader(init), bytes.NewReader(input))
		done := make(chan struct{})
		go func() {
			defer close(done)
			lsp.Serve(context.Background(), in, io.Discard, nopCloser{}, lsp.Options{
				Logger:        slog.New(slog.NewTextHandler(log, nil)),
				ShutdownGrace: 100 * time.Millisecond,
			})
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("the server did not finish on input %q", input)
		}
		if strings.Contains(log.String(), "panicked") {
			t.Fatalf("a handler panicked on input %q:\n%s", input, log.String())
		}
	})
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
