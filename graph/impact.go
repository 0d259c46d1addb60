package graph

import (
	"context"
	"fmt"
	"maps"
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
	if len(spans) == 0 {
		return nil, nil
	}
	sv, err := m.handledBy(path)
	if sv == nil || err != nil {
		return nil, err
	}
	src := m.source()
	for p, t := range texts {
		src.overlay[m.abs(p)] = t
	}
	held := []string{path}
	for p := range texts {
		if p = m.abs(p); p != path {
			held = append(held, p)
		}
	}
	var out []tools.SymbolImpact
	err = m.withServer(ctx, sv, func(s *server) error {
		// The agent's questions sync the server to its own text of these
		// files; one that runs meanwhile would leave the answer about
		// that text, so the question is asked again.
		for range impactTries {
			if err := s.sync(ctx, src, []string{path}); err != nil {
				return err
			}
			before, ok := s.holding(src, held)
			if !ok {
				continue
			}
			var err error
			if out, err = m.impacts(ctx, s, src, path, spans); err != nil {
				return err
			}
			if after, _ := s.holding(src, held); maps.Equal(before, after) {
				s.warm.Store(true)
				return nil
			}
		}
		return fmt.Errorf("%s: the files changed while asked about %s", s.name, m.rel(path))
	})
	return out, err
}

// impactTries bounds how often Impacts asks again when the server's view
// of the files changed while it asked.
const impactTries = 3

// holding returns the version of each of paths the server holds, and
// whether it holds the text src has for them (a file the server does not
// handle is left out).
func (s *server) holding(src *source, paths []string) (map[string]int32, bool) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	out := map[string]int32{}
	for _, p := range paths {
		if !handles(s.cfg, p) || !within(s.root, p) {
			continue
		}
		d, ok := s.docs[p]
		if want, err := src.read(p); !ok || err != nil || d.text != want {
			return nil, false
		}
		out[p] = d.version
	}
	return out, true
}

// impacts asks s about the declarations of path enclosing spans, as the
// server holds path now.
func (m *Manager) impacts(ctx context.Context, s *server, src *source, path string, spans []tools.LineSpan) ([]tools.SymbolImpact, error) {
	outline, err := s.outline(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("%s: documentSymbol: %w", s.name, err)
	}
	var out []tools.SymbolImpact
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
			return nil, err
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
	return out, nil
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
