package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// FuzzStream feeds arbitrary input to NewStream and checks that Read
// survives it: it never panics, it ends with io.EOF or io.ErrUnexpectedEOF,
// every message it returns is a well-formed jsonrpc2 message, and everything
// it writes is a sequence of correctly framed error responses.
//
// The seed corpus is in testdata/fuzz/FuzzStream.
func FuzzStream(f *testing.F) {
	f.Add([]byte(framed(callJSON(1, "initialize", `{"capabilities":{}}`))))
	f.Add([]byte("junk" + framed(`{"jsonrpc":"2.0","method":"initialized"}`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		s := NewStream(bytes.NewReader(in), &out, nil, nil).(*stream)
		// A small limit lets short inputs reach the oversized-body path.
		s.maxBody = 512
		// Every message consumes at least a header line, so more reads than
		// input bytes mean Read is looping without consuming.
		for reads := 0; ; reads++ {
			if reads > len(in) {
				t.Fatalf("%d messages from %d bytes of input", reads, len(in))
			}
			msg, n, err := s.Read(t.Context())
			if err != nil {
				if err != io.EOF && err != io.ErrUnexpectedEOF {
					t.Fatalf("Read: %v; want only io.EOF or io.ErrUnexpectedEOF", err)
				}
				break
			}
			checkMessage(t, msg)
			if n <= 0 || n > int64(len(in)) {
				t.Errorf("Read counted %d bytes of %d", n, len(in))
			}
		}
		bodies, err := readStrictFrames(out.Bytes())
		if err != nil {
			t.Fatalf("output %q: %v", out.Bytes(), err)
		}
		for _, body := range bodies {
			msg, err := jsonrpc2.DecodeMessage(body)
			resp, ok := msg.(*jsonrpc2.Response)
			var rerr *jsonrpc2.Error
			if err != nil || !ok || !errors.As(resp.Err(), &rerr) {
				t.Fatalf("stream wrote %q, want an error response", body)
			}
		}
	})
}

// checkMessage checks that msg is one of the jsonrpc2 message types and that
// it encodes to valid JSON that decodes and encodes to the same bytes.
func checkMessage(t *testing.T, msg jsonrpc2.Message) {
	t.Helper()
	switch msg.(type) {
	case *jsonrpc2.Call, *jsonrpc2.Notification, *jsonrpc2.Response:
	default:
		t.Fatalf("Read returned %T", msg)
	}
	enc, err := jsonrpc2.EncodeMessage(msg)
	if err != nil || !json.Valid(enc) {
		t.Fatalf("Read returned %s, which encodes to %q, %v", msgSummary(msg), enc, err)
	}
	again, err := jsonrpc2.DecodeMessage(enc)
	if err != nil {
		t.Fatalf("Read returned %s, which encodes to %q and does not decode: %v", msgSummary(msg), enc, err)
	}
	if enc2, _ := jsonrpc2.EncodeMessage(again); !bytes.Equal(enc2, enc) {
		t.Fatalf("Read returned %s, which encodes to %q, then decodes and encodes to %q", msgSummary(msg), enc, enc2)
	}
}
