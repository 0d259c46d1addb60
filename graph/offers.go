package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/reasonix/reasonix/lsp/wire"
)

// navCaps are the navigation features a server offers beyond definition
// and references, read from its initialize result. A server is not asked
// for a feature it does not offer: the model hears plainly that this
// server cannot answer, instead of a method-not-found error.
type navCaps struct {
	callHierarchy  bool // textDocument/prepareCallHierarchy and callHierarchy/*
	typeHierarchy  bool // textDocument/prepareTypeHierarchy and typeHierarchy/*
	implementation bool // textDocument/implementation
	hover          bool // textDocument/hover
}

// withNav adds to a client's textDocument capabilities the navigation
// features Reasonix asks for, all static. Hover text is asked for as
// plain text first: a model reads it as well as markdown, and it is
// shorter.
func withNav(textDocument map[string]any) map[string]any {
	textDocument["callHierarchy"] = map[string]any{}
	textDocument["typeHierarchy"] = map[string]any{}
	textDocument["implementation"] = map[string]any{"linkSupport": true}
	textDocument["hover"] = map[string]any{"contentFormat": []string{"plaintext", "markdown"}}
	return textDocument
}

// readNavCaps reads the navigation features from an initialize result
// that readCapabilities has already read as JSON.
func readNavCaps(raw []byte) navCaps {
	var res struct {
		Capabilities struct {
			CallHierarchy  json.RawMessage `json:"callHierarchyProvider"`
			TypeHierarchy  json.RawMessage `json:"typeHierarchyProvider"`
			Implementation json.RawMessage `json:"implementationProvider"`
			Hover          json.RawMessage `json:"hoverProvider"`
		} `json:"capabilities"`
	}
	json.Unmarshal(raw, &res) // raw values: valid JSON cannot fail here
	c := res.Capabilities
	return navCaps{
		callHierarchy:  present(c.CallHierarchy),
		typeHierarchy:  present(c.TypeHierarchy),
		implementation: present(c.Implementation),
		hover:          present(c.Hover),
	}
}

// lacks returns the error a question gets when the server for path does
// not offer the feature it needs, or nil when it does.
func (s *server) lacks(offered bool, feature, path string) error {
	if offered {
		return nil
	}
	return fmt.Errorf("the language server for %s files (%s) does not offer %s; use find_references or grep instead",
		filepath.Ext(path), s.name, feature)
}

// ask runs f with the server for the target, the target's file synced,
// once the server is known to offer the feature (offered reads that from
// its capabilities). It returns the server's position encoding, for
// reading the positions f got.
func (m *Manager) ask(ctx context.Context, src *source, tg *target, feature string, offered func(navCaps) bool, f func(*server) error) (wire.Encoding, error) {
	var enc wire.Encoding
	err := m.withServer(ctx, tg.sv, func(s *server) error {
		if err := s.lacks(offered(s.caps.nav), feature, tg.path); err != nil {
			return err
		}
		if err := s.sync(ctx, src, []string{tg.path}); err != nil {
			return err
		}
		enc = s.enc
		err := f(s)
		if err == nil {
			s.warm.Store(true)
		}
		return err
	})
	return enc, err
}
