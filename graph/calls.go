package graph

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// A callSite is one call in a call hierarchy result: where it is, and the
// function on its other end — the caller for incoming calls, the callee
// for outgoing ones, with where the callee is declared.
type callSite struct {
	place
	Caller   string `json:"caller,omitempty"`
	Callee   string `json:"callee,omitempty"`
	Declared string `json:"declared,omitempty"` // path:line
}

// calls answers incoming_calls (who calls the target) and outgoing_calls
// (what the target calls) with the server's call hierarchy: one entry
// per call site, so that a function calling the target twice shows both
// lines.
func (m *Manager) calls(ctx context.Context, src *source, q tools.GraphQuery) (string, error) {
	incoming := q.Action == "incoming_calls"
	tg, err := m.resolve(ctx, src, q)
	if err != nil {
		return "", err
	}
	var item protocol.CallHierarchyItem
	var in []protocol.CallHierarchyIncomingCall
	var out []protocol.CallHierarchyOutgoingCall
	enc, err := m.ask(ctx, src, tg, "call hierarchy", func(c navCaps) bool { return c.callHierarchy }, func(s *server) error {
		var items []protocol.CallHierarchyItem
		err := s.call(ctx, "textDocument/prepareCallHierarchy", &protocol.CallHierarchyPrepareParams{
			TextDocumentPositionParams: tg.docPosition(src, s.enc),
		}, &items)
		if err != nil {
			return fmt.Errorf("%s: prepareCallHierarchy: %w", s.name, err)
		}
		if len(items) == 0 {
			return fmt.Errorf("%s finds no function or method at %s:%d:%d (%q)", s.name, m.rel(tg.path), tg.line, tg.column, tg.name)
		}
		item = items[0]
		if incoming {
			in = nil
			if err = s.call(ctx, "callHierarchy/incomingCalls", &protocol.CallHierarchyIncomingCallsParams{Item: item}, &in); err == nil {
				err = s.qualifyCallers(ctx, src, in)
			}
		} else {
			out = nil
			err = s.call(ctx, "callHierarchy/outgoingCalls", &protocol.CallHierarchyOutgoingCallsParams{Item: item}, &out)
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %w", s.name, q.Action, err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	var sites []callSite
	for _, c := range in {
		path := m.local(c.From.URI.FsPath())
		for _, r := range c.FromRanges {
			site := callSite{place: m.place(src, enc, path, r.Start)}
			if !site.Withheld {
				site.Caller = c.From.Name
			}
			sites = append(sites, site)
		}
	}
	for _, c := range out {
		// The calls are in the target's own body.
		path := m.local(item.URI.FsPath())
		decl := m.place(src, enc, m.local(c.To.URI.FsPath()), c.To.SelectionRange.Start)
		for _, r := range c.FromRanges {
			site := callSite{place: m.place(src, enc, path, r.Start), Declared: fmt.Sprintf("%s:%d", decl.Path, decl.Line)}
			if !site.Withheld {
				site.Callee = c.To.Name
			}
			sites = append(sites, site)
		}
	}
	slices.SortFunc(sites, func(a, b callSite) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	res := struct {
		Symbol     string     `json:"symbol,omitempty"`
		Definition place      `json:"definition"`
		Total      int        `json:"total"`
		Calls      []callSite `json:"calls"`
		Truncated  bool       `json:"truncated,omitempty"`
	}{Symbol: tg.name, Definition: m.itemPlace(src, enc, item.URI.FsPath(), item.SelectionRange.Start, item.Name, item.Kind), Total: len(sites), Calls: []callSite{}}
	if len(sites) > maxResults {
		sites, res.Truncated = sites[:maxResults], true
	}
	res.Calls = append(res.Calls, sites...)
	return encode(res)
}

// itemPlace describes an item of a call or type hierarchy at its name.
func (m *Manager) itemPlace(src *source, enc wire.Encoding, path string, pos protocol.Position, name string, kind protocol.SymbolKind) place {
	p := m.place(src, enc, m.local(path), pos)
	p.Kind = kindName(kind)
	if !p.Withheld {
		p.Name = name
	}
	return p
}

// qualifyCallers names each caller with what encloses it in its file's
// outline ("Calc.add" rather than "add", gopls's "(*Calc).Add"), so that
// a method is told from a function of the same name. Callers the outline
// does not hold (a Python module's top level) keep the server's name; at
// most maxOutlines files are read.
func (s *server) qualifyCallers(ctx context.Context, src *source, calls []protocol.CallHierarchyIncomingCall) error {
	var files []string
	for _, c := range calls {
		if f := filepath.Clean(c.From.URI.FsPath()); !slices.Contains(files, f) && len(files) < maxOutlines {
			files = append(files, f)
		}
	}
	if err := s.sync(ctx, src, files); err != nil {
		return err
	}
	outlines := map[string][]protocol.DocumentSymbol{}
	for _, f := range files {
		outline, err := s.outline(ctx, f)
		if err != nil {
			return err
		}
		outlines[f] = outline
	}
	for i, c := range calls {
		if chain := outlinePath(outlines[filepath.Clean(c.From.URI.FsPath())], c.From.SelectionRange.Start); len(chain) > 0 {
			calls[i].From.Name = strings.Join(chain, ".")
		}
	}
	return nil
}

// outlinePath returns the names from the outermost symbol of an outline
// down to the one whose name starts at pos, or nil when none does.
func outlinePath(outline []protocol.DocumentSymbol, pos protocol.Position) []string {
	for _, d := range outline {
		if d.SelectionRange.Start == pos {
			return []string{d.Name}
		}
		if inRange(d.Range, pos) {
			if rest := outlinePath(d.Children, pos); rest != nil {
				return append([]string{d.Name}, rest...)
			}
		}
	}
	return nil
}
