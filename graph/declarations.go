package graph

import (
	"context"
	"fmt"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/tools"
)

var _ tools.DeclarationLister = (*Manager)(nil)

// Declarations returns the top-level declarations of the file at path as
// its server's outline (textDocument/documentSymbol) names them, for the
// file as the editor's buffer or else the disk holds it. The outline is
// the parser's view of one file: servers answer it without loading the
// workspace, so unlike workspace/symbol it needs no wait for a young
// server to finish indexing. The whole call, a server's start included,
// is bounded by ctx; a server still starting when ctx ends goes on
// starting for the next question.
func (m *Manager) Declarations(ctx context.Context, path string) ([]tools.Declaration, error) {
	path = m.abs(path)
	sv, err := m.handledBy(path)
	if sv == nil || err != nil {
		return nil, err
	}
	src := m.source()
	var out []tools.Declaration
	err = m.withServer(ctx, sv, func(s *server) error {
		if err := s.sync(ctx, src, []string{path}); err != nil {
			return err
		}
		res, err := s.documentSymbols(ctx, path)
		if err != nil {
			return fmt.Errorf("%s: documentSymbol: %w", s.name, err)
		}
		out = topLevel(res)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// topLevel returns an outline's top-level declarations: the roots of a
// tree, or the entries of a flat list that name no container, in the
// order of the file.
func topLevel(res protocol.DocumentSymbolResult) []tools.Declaration {
	var out []tools.Declaration
	switch r := res.(type) {
	case protocol.DocumentSymbolSlice:
		for _, d := range r {
			out = append(out, tools.Declaration{Name: d.Name, Kind: kindName(d.Kind), Line: int(d.Range.Start.Line) + 1})
		}
	case protocol.SymbolInformationSlice:
		for _, si := range r {
			if si.ContainerName != nil && *si.ContainerName != "" {
				continue
			}
			out = append(out, tools.Declaration{Name: si.Name, Kind: kindName(si.Kind), Line: int(si.Location.Range.Start.Line) + 1})
		}
	}
	slices.SortStableFunc(out, func(a, b tools.Declaration) int { return a.Line - b.Line })
	return out
}
