package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
)

// initialize runs the protocol's handshake.
func (s *server) initialize(ctx context.Context) error {
	params := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]string{"name": "reasonix"},
		"rootUri":          uri.File(s.root),
		"rootPath":         s.root,
		"workspaceFolders": s.folders(),
		"capabilities":     clientCapabilities(),
	}
	if s.cfg.InitializationOptions != nil {
		params["initializationOptions"] = s.cfg.InitializationOptions
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	var res jsonrpc2.RawMessage
	if err := s.call(ctx, "initialize", jsonrpc2.RawMessage(raw), &res); err != nil {
		return err
	}
	if err := s.readCapabilities(res); err != nil {
		return err
	}
	return s.notify(ctx, "initialized", jsonrpc2.RawMessage("{}"))
}

func (s *server) folders() []map[string]any {
	return []map[string]any{{"uri": uri.File(s.root), "name": filepath.Base(s.root)}}
}

// clientCapabilities declares what Reasonix does as a client: little, and
// all of it without dynamic registration except file watching, which
// servers only use to know they may expect didChangeWatchedFiles.
func clientCapabilities() map[string]any {
	kinds := make([]int, 26)
	for i := range kinds {
		kinds[i] = i + 1
	}
	return map[string]any{
		"general": map[string]any{"positionEncodings": []protocol.PositionEncodingKind{wire.UTF8.Kind(), wire.UTF16.Kind()}},
		"workspace": map[string]any{
			"workspaceFolders": true,
			// Only while a code action's command runs (codeaction.go).
			"applyEdit":             true,
			"executeCommand":        map[string]any{},
			"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
			"symbol":                map[string]any{"symbolKind": map[string]any{"valueSet": kinds}},
			"workspaceEdit": map[string]any{
				"documentChanges":    true,
				"resourceOperations": []string{"create", "rename", "delete"},
			},
		},
		"textDocument": withNav(map[string]any{
			"synchronization":    map[string]any{"didSave": false},
			"publishDiagnostics": map[string]any{"versionSupport": true},
			// Static only: pyright then pushes versioned diagnostics
			// from the start, instead of registering pulls some time
			// after initialized.
			"diagnostic":      map[string]any{"dynamicRegistration": false},
			"definition":      map[string]any{"linkSupport": true},
			"references":      map[string]any{},
			"rename":          map[string]any{"prepareSupport": true},
			"documentSymbol":  map[string]any{"hierarchicalDocumentSymbolSupport": true},
			"codeAction":      codeActionCapabilities(),
			"formatting":      map[string]any{},
			"rangeFormatting": map[string]any{},
		}),
		"window": map[string]any{"workDoneProgress": false},
	}
}

// readCapabilities takes what the graph needs from the initialize result.
// It is read loosely, with encoding/json, so that a server's extensions
// to the capabilities cannot fail the handshake.
func (s *server) readCapabilities(raw []byte) error {
	var res struct {
		Capabilities struct {
			PositionEncoding   string          `json:"positionEncoding"`
			TextDocumentSync   json.RawMessage `json:"textDocumentSync"`
			DiagnosticProvider json.RawMessage `json:"diagnosticProvider"`
			RenameProvider     json.RawMessage `json:"renameProvider"`
			CodeActionProvider json.RawMessage `json:"codeActionProvider"`
			Formatting         json.RawMessage `json:"documentFormattingProvider"`
			RangeFormatting    json.RawMessage `json:"documentRangeFormattingProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("reading the initialize result: %w", err)
	}
	c := res.Capabilities
	if enc, ok := wire.EncodingOf(protocol.PositionEncodingKind(c.PositionEncoding)); ok {
		s.enc = enc
	}
	s.caps.pullDiagnostics = present(c.DiagnosticProvider)
	s.caps.nav = readNavCaps(raw)
	var rename struct {
		PrepareProvider bool `json:"prepareProvider"`
	}
	if json.Unmarshal(c.RenameProvider, &rename) == nil {
		s.caps.prepareRename = rename.PrepareProvider
	}
	s.caps.readActions(c.CodeActionProvider, c.Formatting, c.RangeFormatting)
	var kind int
	if json.Unmarshal(c.TextDocumentSync, &kind) != nil {
		var opts struct {
			Change *int `json:"change"`
		}
		if json.Unmarshal(c.TextDocumentSync, &opts) == nil && opts.Change != nil {
			kind = *opts.Change
		} else {
			kind = 1
		}
	}
	s.caps.syncNone = kind == 0 && len(c.TextDocumentSync) > 0
	return nil
}

// present reports whether a capability is given and not false or null.
func present(raw json.RawMessage) bool {
	v := string(bytes.TrimSpace(raw))
	return v != "" && v != "null" && v != "false"
}

// handle answers what the server sends. It runs on the connection's read
// loop, so it never blocks, and it never fails a notification: a handler
// error there would end the connection.
func (s *server) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p protocol.PublishDiagnosticsParams
		if err := protocol.Unmarshal(req.Params(), &p); err != nil {
			s.log.Debug("unreadable diagnostics", "err", err)
			return nil, nil
		}
		s.publish(&p)
		return nil, nil
	case "window/logMessage", "window/showMessage":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		json.Unmarshal(req.Params(), &p)
		s.log.Debug("language server message", "type", p.Type, "message", p.Message)
		return nil, nil
	case "workspace/configuration":
		// No settings beyond initializationOptions: every item is null,
		// which servers read as "use your defaults".
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		json.Unmarshal(req.Params(), &p)
		return make([]any, len(p.Items)), nil
	case "workspace/workspaceFolders":
		return s.folders(), nil
	case "client/registerCapability":
		var p struct {
			Registrations []struct {
				Method string `json:"method"`
			} `json:"registrations"`
		}
		json.Unmarshal(req.Params(), &p)
		for _, r := range p.Registrations {
			if r.Method == "textDocument/diagnostic" {
				s.pullRegistered.Store(true)
			}
		}
		return nil, nil
	case "workspace/applyEdit":
		// Taken while a code action's command runs, to be applied
		// through the FS once it ends; refused otherwise.
		var p protocol.ApplyWorkspaceEditParams
		if protocol.Unmarshal(req.Params(), &p) == nil && s.commands.take(p.Edit) {
			return map[string]any{"applied": true}, nil
		}
		return map[string]any{"applied": false, "failureReason": "Reasonix applies edits itself"}, nil
	}
	if req.IsCall() {
		// Registrations, progress tokens, refresh requests and questions
		// for the user: acknowledged, with nothing to do.
		switch {
		case strings.HasPrefix(req.Method(), "client/"),
			strings.HasPrefix(req.Method(), "window/"),
			strings.HasSuffix(req.Method(), "/refresh"):
			return nil, nil
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "%s is not supported by this client", req.Method())
	}
	return nil, nil
}
