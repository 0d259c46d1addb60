package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

func (m *Manager) references(ctx context.Context, src *source, q tools.GraphQuery) (string, error) {
	tg, err := m.resolve(ctx, src, q)
	if err != nil {
		return "", err
	}
	var refs, defs []protocol.Location
	var enc wire.Encoding
	err = m.withServer(ctx, tg.sv, func(s *server) error {
		if err := s.sync(ctx, src, []string{tg.path}); err != nil {
			return err
		}
		enc = s.enc
		refs = nil
		err := s.call(ctx, "textDocument/references", &protocol.ReferenceParams{
			TextDocumentPositionParams: tg.docPosition(src, enc),
			Context:                    protocol.ReferenceContext{IncludeDeclaration: true},
		}, &refs)
		if err != nil {
			return fmt.Errorf("%s: references: %w", s.name, err)
		}
		s.warm.Store(true)
		if tg.sym == nil {
			defs, _ = s.definition(ctx, tg.docPosition(src, enc))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	res := struct {
		Symbol     string  `json:"symbol,omitempty"`
		Definition *place  `json:"definition,omitempty"`
		Total      int     `json:"total"`
		References []place `json:"references"`
		Truncated  bool    `json:"truncated,omitempty"`
		Others     []place `json:"other_matches,omitempty"`
	}{Symbol: tg.name, References: []place{}}
	var defAt []protocol.Location
	switch {
	case tg.sym != nil:
		p := m.symbolPlace(src, tg.sym)
		res.Definition = &p
		defAt = []protocol.Location{{URI: uri.File(tg.sym.path), Range: protocol.Range{Start: tg.sym.namePosition(src)}}}
	case len(defs) > 0:
		p := m.place(src, enc, m.local(defs[0].URI.FsPath()), defs[0].Range.Start)
		res.Definition = &p
		defAt = defs
	}
	for _, o := range tg.others {
		res.Others = append(res.Others, m.symbolPlace(src, o))
	}
	// The declaration is asked for, since servers differ on which
	// declaration includeDeclaration:false leaves out (pyright and
	// tsserver drop the occurrence asked about), and reported once, as the
	// definition.
	refs = slices.DeleteFunc(refs, func(l protocol.Location) bool {
		return slices.ContainsFunc(defAt, func(d protocol.Location) bool {
			return m.local(d.URI.FsPath()) == m.local(l.URI.FsPath()) && d.Range.Start == l.Range.Start
		})
	})
	sortLocations(refs)
	res.Total = len(refs)
	if len(refs) > maxResults {
		refs, res.Truncated = refs[:maxResults], true
	}
	for _, l := range refs {
		res.References = append(res.References, m.place(src, enc, m.local(l.URI.FsPath()), l.Range.Start))
	}
	return encode(res)
}

// definition runs textDocument/definition and flattens its three shapes.
func (s *server) definition(ctx context.Context, pos protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
	return s.locations(ctx, "textDocument/definition", pos)
}

// locations runs a request answered by locations (definition,
// implementation) and flattens the answer's three shapes.
func (s *server) locations(ctx context.Context, method string, pos protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
	var res protocol.DefinitionResult
	err := s.call(ctx, method, &protocol.DefinitionParams{TextDocumentPositionParams: pos}, &res)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", s.name, strings.TrimPrefix(method, "textDocument/"), err)
	}
	switch r := res.(type) {
	case *protocol.Location:
		return []protocol.Location{*r}, nil
	case protocol.LocationSlice:
		return r, nil
	case protocol.DefinitionLinkSlice:
		out := make([]protocol.Location, len(r))
		for i, l := range r {
			out[i] = protocol.Location{URI: l.TargetURI, Range: l.TargetSelectionRange}
		}
		return out, nil
	}
	return nil, nil
}

func sortLocations(locs []protocol.Location) {
	slices.SortFunc(locs, func(a, b protocol.Location) int {
		if c := strings.Compare(string(a.URI), string(b.URI)); c != 0 {
			return c
		}
		if a.Range.Start.Line != b.Range.Start.Line {
			return int(a.Range.Start.Line) - int(b.Range.Start.Line)
		}
		return int(a.Range.Start.Character) - int(b.Range.Start.Character)
	})
}

func (m *Manager) definition(ctx context.Context, src *source, q tools.GraphQuery) (string, error) {
	tg, err := m.resolve(ctx, src, q)
	if err != nil {
		return "", err
	}
	res := struct {
		Symbol      string  `json:"symbol,omitempty"`
		Definitions []place `json:"definitions"`
	}{Symbol: tg.name, Definitions: []place{}}
	if tg.sym != nil {
		for _, s := range append([]*symbol{tg.sym}, tg.others...) {
			res.Definitions = append(res.Definitions, m.symbolPlace(src, s))
		}
		return encode(res)
	}
	var defs []protocol.Location
	var enc wire.Encoding
	err = m.withServer(ctx, tg.sv, func(s *server) error {
		if err := s.sync(ctx, src, []string{tg.path}); err != nil {
			return err
		}
		enc = s.enc
		var err error
		defs, err = s.definition(ctx, tg.docPosition(src, enc))
		return err
	})
	if err != nil {
		return "", err
	}
	for _, d := range defs {
		res.Definitions = append(res.Definitions, m.place(src, enc, m.local(d.URI.FsPath()), d.Range.Start))
	}
	return encode(res)
}
