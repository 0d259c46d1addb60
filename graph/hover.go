package graph

import (
	"context"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/tools"
)

// maxHover caps a hover's text, in characters: a signature and the start
// of its doc, not a package's worth of documentation.
const maxHover = 1500

// hover answers hover: the signature and doc of the symbol at the target,
// as the server renders them.
func (m *Manager) hover(ctx context.Context, src *source, q tools.GraphQuery) (string, error) {
	tg, err := m.resolve(ctx, src, q)
	if err != nil {
		return "", err
	}
	var h *protocol.Hover
	var defs []protocol.Location
	enc, err := m.ask(ctx, src, tg, "hover", func(c navCaps) bool { return c.hover }, func(s *server) error {
		h = nil
		err := s.call(ctx, "textDocument/hover", &protocol.HoverParams{TextDocumentPositionParams: tg.docPosition(src, s.enc)}, &h)
		if err != nil {
			return err
		}
		if tg.sym == nil && src.withhold != nil {
			// The doc comes from where the symbol is declared, which may
			// be a file the rules keep from being read.
			defs, _ = s.definition(ctx, tg.docPosition(src, s.enc))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	at := m.place(src, enc, tg.path, tg.position(src, enc))
	res := struct {
		Symbol    string `json:"symbol,omitempty"`
		Path      string `json:"path"`
		Line      int    `json:"line"`
		Column    int    `json:"column"`
		Hover     string `json:"hover"`
		Truncated bool   `json:"truncated,omitempty"`
		Withheld  bool   `json:"withheld,omitempty"`
	}{Symbol: tg.name, Path: at.Path, Line: at.Line, Column: at.Column, Withheld: at.Withheld}
	for _, d := range defs {
		res.Withheld = res.Withheld || src.withheld(m.local(d.URI.FsPath()))
	}
	if res.Withheld {
		res.Symbol = ""
		return encode(res)
	}
	if h != nil {
		res.Hover = hoverText(h.Contents)
	}
	if utf8.RuneCountInString(res.Hover) > maxHover {
		res.Hover, res.Truncated = string([]rune(res.Hover)[:maxHover])+"…", true
	}
	return encode(res)
}

// hoverText flattens a hover's contents, in any of its shapes, to text.
func hoverText(c protocol.HoverContents) string {
	switch v := c.(type) {
	case *protocol.MarkupContent:
		return strings.TrimSpace(v.Value)
	case protocol.String:
		return strings.TrimSpace(string(v))
	case *protocol.MarkedStringWithLanguage:
		return strings.TrimSpace(v.Value)
	case protocol.MarkedStringSlice:
		var parts []string
		for _, ms := range v {
			switch s := ms.(type) {
			case protocol.String:
				parts = append(parts, strings.TrimSpace(string(s)))
			case *protocol.MarkedStringWithLanguage:
				parts = append(parts, strings.TrimSpace(s.Value))
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}
