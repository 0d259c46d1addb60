package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/tools"
)

var _ tools.ImpactFinder = (*Manager)(nil)

// Impacts finds the declarations enclosing spans of path in its server's
// outline (textDocument/documentSymbol), then who depends on each: the
// incoming calls of the call hierarchy where the server offers one and it
// knows the declaration as a function, else its references. Texts are laid
// over the documents and the FS for this question, as Diagnose does: the
// review asks about the user's text while the agent works on its own.
func (m *Manager) Impacts(ctx context.Context, texts map[string]string, path string, spans []tools.LineSpan) ([]tools.SymbolImpact, error) {
	path = m.abs(path)
	if !m.Checks(path) || len(spans) == 0 {
		return nil, nil
	}
	sv, err := m.supervisorFor(path)
	if err != nil {
		return nil, err
	}
	src := m.source()
	for p, t := range texts {
		src.overlay[m.abs(p)] = t
	}
	var out []tools.SymbolImpact
	err = m.withServer(ctx, sv, func(s *server) error {
		if err := s.sync(ctx, src, []string{path}); err != nil {
			return err
		}
		outline, err := s.outline(ctx, path)
		if err != nil {
			return fmt.Errorf("%s: documentSymbol: %w", s.name, err)
		}
		out = nil
		var seen []*protocol.DocumentSymbol
		for _, sp := range spans {
			chain := enclosing(outline, sp)
			if len(chain) == 0 || slices.Contains(seen, chain[len(chain)-1]) {
				continue
			}
			d := chain[len(chain)-1]
			seen = append(seen, d)
			imp := tools.SymbolImpact{
				Symbol: symbolLabel(chain),
				Path:   path,
				Lines:  tools.LineSpan{Start: int(d.Range.Start.Line) + 1, End: int(d.Range.End.Line) + 1},
			}
			locs, refs, err := s.dependents(ctx, path, d)
			if err != nil {
				return err
			}
			imp.References = refs
			for _, l := range locs {
				p := m.local(l.URI.FsPath())
				if p == path && l.Range.Start.Line >= d.Range.Start.Line && l.Range.Start.Line <= d.Range.End.Line {
					continue // a recursive call, or the declaration itself
				}
				line, col := int(l.Range.Start.Line)+1, int(l.Range.Start.Character)+1
				if t := src.text(p); t != nil {
					line, col = fromServer(t, l.Range.Start, s.enc)
				}
				imp.Callers = append(imp.Callers, tools.Place{Path: p, Line: line, Column: col})
			}
			slices.SortFunc(imp.Callers, func(a, b tools.Place) int {
				if c := strings.Compare(a.Path, b.Path); c != 0 {
					return c
				}
				if a.Line != b.Line {
					return a.Line - b.Line
				}
				return a.Column - b.Column
			})
			out = append(out, imp)
		}
		s.warm.Store(true)
		return nil
	})
	return out, err
}

// dependents returns the places that use declaration d of path: its
// incoming call sites when the server has a call hierarchy for it, else
// its references (refs set).
func (s *server) dependents(ctx context.Context, path string, d *protocol.DocumentSymbol) (locs []protocol.Location, refs bool, err error) {
	pos := protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
		Position:     d.SelectionRange.Start,
	}
	if s.caps.nav.callHierarchy {
		var items []protocol.CallHierarchyItem
		err := s.call(ctx, "textDocument/prepareCallHierarchy", &protocol.CallHierarchyPrepareParams{TextDocumentPositionParams: pos}, &items)
		if err != nil && !refusal(err) {
			return nil, false, fmt.Errorf("%s: prepareCallHierarchy: %w", s.name, err)
		}
		if len(items) > 0 {
			var in []protocol.CallHierarchyIncomingCall
			if err := s.call(ctx, "callHierarchy/incomingCalls", &protocol.CallHierarchyIncomingCallsParams{Item: items[0]}, &in); err != nil {
				return nil, false, fmt.Errorf("%s: incomingCalls: %w", s.name, err)
			}
			for _, c := range in {
				for _, r := range c.FromRanges {
					locs = append(locs, protocol.Location{URI: c.From.URI, Range: r})
				}
			}
			return locs, false, nil
		}
	}
	err = s.call(ctx, "textDocument/references", &protocol.ReferenceParams{
		TextDocumentPositionParams: pos,
		Context:                    protocol.ReferenceContext{IncludeDeclaration: false},
	}, &locs)
	if err != nil {
		return nil, true, fmt.Errorf("%s: references: %w", s.name, err)
	}
	return locs, true, nil
}

// enclosing returns the chain of declarations of outline, outermost
// first, down to the innermost one whose lines hold all of sp (0-based
// in the outline, 1-based in sp).
func enclosing(outline []protocol.DocumentSymbol, sp tools.LineSpan) []*protocol.DocumentSymbol {
	for i := range outline {
		d := &outline[i]
		if int(d.Range.Start.Line)+1 <= sp.Start && sp.End <= int(d.Range.End.Line)+1 {
			return append([]*protocol.DocumentSymbol{d}, enclosing(d.Children, sp)...)
		}
	}
	return nil
}

// symbolLabel names the innermost declaration of chain with its kind
// ("func Add") and, for a member a server names bare, its container
// ("method Calc.add"); gopls names methods with their receiver already
// ("(*Calc).Add").
func symbolLabel(chain []*protocol.DocumentSymbol) string {
	d := chain[len(chain)-1]
	kind := kindName(d.Kind)
	if d.Kind == protocol.SymbolKindFunction {
		kind = "func"
	}
	name := d.Name
	if len(chain) > 1 && !strings.Contains(name, "(") {
		var names []string
		for _, p := range chain[:len(chain)-1] {
			names = append(names, p.Name)
		}
		name = strings.Join(append(names, name), ".")
	}
	return kind + " " + name
}
