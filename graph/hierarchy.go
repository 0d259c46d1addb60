package graph

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/tools"
)

// implementations answers implementations: for an interface, the types
// that implement it; for a type or method, the interfaces it implements,
// as the server reads it (gopls answers both ways; pyright and tsserver
// the first).
func (m *Manager) implementations(ctx context.Context, src *source, q tools.GraphQuery) (string, error) {
	tg, err := m.resolve(ctx, src, q)
	if err != nil {
		return "", err
	}
	var locs []protocol.Location
	enc, err := m.ask(ctx, src, tg, "implementations", func(c navCaps) bool { return c.implementation }, func(s *server) error {
		var err error
		locs, err = s.locations(ctx, "textDocument/implementation", tg.docPosition(src, s.enc))
		return err
	})
	if err != nil {
		return "", err
	}
	sortLocations(locs)
	res := struct {
		Symbol          string  `json:"symbol,omitempty"`
		Total           int     `json:"total"`
		Implementations []place `json:"implementations"`
		Truncated       bool    `json:"truncated,omitempty"`
	}{Symbol: tg.name, Total: len(locs), Implementations: []place{}}
	if len(locs) > maxResults {
		locs, res.Truncated = locs[:maxResults], true
	}
	for _, l := range locs {
		path := m.local(l.URI.FsPath())
		p := m.place(src, enc, path, l.Range.Start)
		if t := src.text(path); t != nil && !p.Withheld {
			p.Name = wordAt(t.Line(p.Line-1), p.Column)
		}
		res.Implementations = append(res.Implementations, p)
	}
	return encode(res)
}

// typeHierarchy answers type_hierarchy: the type at the target, the
// types it extends or implements, and those that extend or implement it.
func (m *Manager) typeHierarchy(ctx context.Context, src *source, q tools.GraphQuery) (string, error) {
	tg, err := m.resolve(ctx, src, q)
	if err != nil {
		return "", err
	}
	var item protocol.TypeHierarchyItem
	var supers, subs []protocol.TypeHierarchyItem
	enc, err := m.ask(ctx, src, tg, "type hierarchy", func(c navCaps) bool { return c.typeHierarchy }, func(s *server) error {
		var items []protocol.TypeHierarchyItem
		err := s.call(ctx, "textDocument/prepareTypeHierarchy", &protocol.TypeHierarchyPrepareParams{
			TextDocumentPositionParams: tg.docPosition(src, s.enc),
		}, &items)
		if err != nil {
			return fmt.Errorf("%s: prepareTypeHierarchy: %w", s.name, err)
		}
		if len(items) == 0 {
			return fmt.Errorf("%s finds no type at %s:%d:%d (%q)", s.name, m.rel(tg.path), tg.line, tg.column, tg.name)
		}
		item, supers, subs = items[0], nil, nil
		if err := s.call(ctx, "typeHierarchy/supertypes", &protocol.TypeHierarchySupertypesParams{Item: item}, &supers); err != nil {
			return fmt.Errorf("%s: supertypes: %w", s.name, err)
		}
		if err := s.call(ctx, "typeHierarchy/subtypes", &protocol.TypeHierarchySubtypesParams{Item: item}, &subs); err != nil {
			return fmt.Errorf("%s: subtypes: %w", s.name, err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	places := func(items []protocol.TypeHierarchyItem) []place {
		out := []place{}
		for _, it := range items[:min(len(items), maxResults)] {
			out = append(out, m.itemPlace(src, enc, it.URI.FsPath(), it.SelectionRange.Start, it.Name, it.Kind))
		}
		return out
	}
	res := struct {
		Type       place   `json:"type"`
		Supertypes []place `json:"supertypes"`
		Subtypes   []place `json:"subtypes"`
		Total      int     `json:"total"`
		Truncated  bool    `json:"truncated,omitempty"`
	}{
		Type:       m.itemPlace(src, enc, item.URI.FsPath(), item.SelectionRange.Start, item.Name, item.Kind),
		Supertypes: places(supers),
		Subtypes:   places(subs),
		Total:      len(supers) + len(subs),
		Truncated:  len(supers) > maxResults || len(subs) > maxResults,
	}
	return encode(res)
}
