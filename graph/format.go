package graph

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// Format computes the changes the file's server makes formatting it
// (textDocument/formatting), or lines line to endLine of it
// (textDocument/rangeFormatting) when line is not 0.
func (m *Manager) Format(ctx context.Context, path string, line, endLine int) ([]tools.Change, string, error) {
	path = m.abs(path)
	sv, err := m.actionServer(path)
	if err != nil {
		return nil, "", err
	}
	src := m.source()
	var changes []tools.Change
	var summary string
	err = m.withServer(ctx, sv, func(s *server) error {
		if err := s.sync(ctx, src, []string{path}); err != nil {
			return err
		}
		t := src.text(path)
		if t == nil {
			return fmt.Errorf("cannot read %s", m.rel(path))
		}
		doc := protocol.TextDocumentIdentifier{URI: uri.File(path)}
		opts := formattingOptions(t)
		var edits []protocol.TextEdit
		if line == 0 {
			if !s.caps.formatting {
				return fmt.Errorf("%s does not format files", s.name)
			}
			if err := s.call(ctx, "textDocument/formatting", &protocol.DocumentFormattingParams{TextDocument: doc, Options: opts}, &edits); err != nil {
				return fmt.Errorf("%s: formatting %s: %w", s.name, m.rel(path), err)
			}
		} else {
			if !s.caps.rangeFormatting {
				return fmt.Errorf("%s formats whole files only: call format without line", s.name)
			}
			rng, err := lineRange(t, line, endLine, s.enc)
			if err != nil {
				return err
			}
			if err := s.call(ctx, "textDocument/rangeFormatting", &protocol.DocumentRangeFormattingParams{TextDocument: doc, Range: rng, Options: opts}, &edits); err != nil {
				return fmt.Errorf("%s: formatting %s: %w", s.name, m.rel(path), err)
			}
		}
		next, err := wire.ApplyEdits(t.String(), edits, s.enc)
		if err != nil {
			return fmt.Errorf("applying %s's formatting of %s: %w", s.name, m.rel(path), err)
		}
		if next == t.String() {
			summary = m.rel(path) + " is already formatted"
			return nil
		}
		changes = []tools.Change{{Kind: tools.Write, Path: path, Content: []byte(next)}}
		summary = fmt.Sprintf("formatted %s: %s", m.rel(path), plural(len(edits), "edit"))
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	m.FilesChanged(touched(changes))
	return changes, summary, nil
}

// formattingOptions are the options a formatting request carries, taken
// from the file: indented with tabs if any line is, else with spaces.
// gopls ignores them; other formatters follow them.
func formattingOptions(t *wire.Text) protocol.FormattingOptions {
	s := t.String()
	return protocol.FormattingOptions{TabSize: 4, InsertSpaces: !strings.HasPrefix(s, "\t") && !strings.Contains(s, "\n\t")}
}
