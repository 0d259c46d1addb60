package wire

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// streamBodies are bodies of typical sizes: a small notification and a
// didOpen of a 1 MiB file.
var streamBodies = []struct {
	name string
	body string
}{
	{"small", `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/a.go","version":7},"contentChanges":[{"range":{"start":{"line":3,"character":4},"end":{"line":3,"character":4}},"text":"x"}]}}`},
	{"1MiB", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/a.go","languageId":"go","version":1,"text":"` +
		strings.Repeat(`x := compute(1, \"value\") + other\n`, 1<<20/36) + `"}}}`},
}

// BenchmarkStreamRead measures reading and decoding frames.
func BenchmarkStreamRead(b *testing.B) {
	for _, tt := range streamBodies {
		b.Run(tt.name, func(b *testing.B) {
			n := max(16, 1<<20/len(tt.body)) // frames per read-through, at least 1 MiB
			frames := strings.Repeat(framed(tt.body), n)
			b.SetBytes(int64(len(frames)))
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				s := NewStream(strings.NewReader(frames), io.Discard, nil, nil)
				for range n {
					if _, _, err := s.Read(ctx); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkStreamWrite measures encoding and framing messages.
func BenchmarkStreamWrite(b *testing.B) {
	for _, tt := range streamBodies {
		b.Run(tt.name, func(b *testing.B) {
			msg, err := jsonrpc2.DecodeMessage([]byte(tt.body))
			if err != nil {
				b.Fatal(err)
			}
			var out bytes.Buffer
			s := NewStream(strings.NewReader(""), &out, nil, nil)
			b.SetBytes(int64(len(tt.body)))
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				out.Reset()
				if _, err := s.Write(ctx, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
