package wire

import (
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec is the jsonrpc2.Codec of both ends of Reasonix's connections (to
// the editor and to language servers). It marshals LSP payloads with the
// protocol package's union-aware encoder, as protocol.NewServer does; the
// connections are built by hand so they can have NewStream's framing and
// their own handlers. Raw messages pass through untouched, and plain Go
// maps and slices (the params a client builds by hand) get encoding/json's
// semantics: sorted keys, and null for a nil slice rather than [].
type Codec struct{}

var _ jsonrpc2.Codec = Codec{}

func (Codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	case []any, map[string]any, []map[string]any:
		return json.Marshal(v)
	}
	return protocol.Marshal(v)
}

func (Codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}
