package lsp

import (
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec marshals LSP payloads with the protocol package's union-aware
// encoder, as protocol.NewServer does; the server builds its connection
// itself so it can put its own framing and handler on it.
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
