package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// openSignIn shows the user the authorization page of an MCP server that
// wants a sign-in: the editor opens it in the browser
// (window/showDocument with external: true), and a message says what it
// is for. An editor that cannot show documents, or does not, gets the
// address in the message, to open by hand. The sign-in then waits for the
// browser to come back to Reasonix's loopback address.
func (s *Server) openSignIn(ctx context.Context, server, authURL string) error {
	if s.capsNow().showDocument {
		yes := true
		res, err := showDocument.call(ctx, s, &protocol.ShowDocumentParams{URI: uri.URI(authURL), External: &yes})
		if err == nil && res != nil && res.Success {
			s.show(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Reasonix: MCP server %q wants you to sign in; its page is open in your browser.", server))
			return nil
		}
	}
	s.show(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Reasonix: MCP server %q wants you to sign in; open %s", server, authURL))
	return nil
}
