package graph

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// Query answers one project_graph question with compact JSON.
func (m *Manager) Query(ctx context.Context, q tools.GraphQuery) (string, error) {
	if q.Path != "" {
		q.Path = m.abs(q.Path)
	}
	if len(q.Changed) > 0 {
		m.FilesChanged(q.Changed)
	}
	src := m.source()
	src.withhold = q.Withhold
	switch q.Action {
	case "find_symbol":
		return m.findSymbol(ctx, src, q)
	case "find_references":
		return m.references(ctx, src, q)
	case "definition":
		return m.definition(ctx, src, q)
	case "rename_check":
		return m.renameCheck(ctx, src, q)
	case "diagnostics":
		return m.diagnostics(ctx, src, q)
	case "incoming_calls", "outgoing_calls":
		return m.calls(ctx, src, q)
	case "implementations":
		return m.implementations(ctx, src, q)
	case "type_hierarchy":
		return m.typeHierarchy(ctx, src, q)
	case "hover":
		return m.hover(ctx, src, q)
	}
	return "", fmt.Errorf("unknown action %q", q.Action)
}

// symbolSupervisors returns the servers to ask about a symbol: the one for
// the file when a path is given, else the workspace's.
func (m *Manager) symbolSupervisors(q tools.GraphQuery) ([]*supervisor, error) {
	if q.Path != "" {
		sv, err := m.supervisorFor(q.Path)
		if err != nil {
			return nil, err
		}
		return []*supervisor{sv}, nil
	}
	sups, err := m.workspaceSupervisors()
	if err != nil {
		return nil, err
	}
	if len(sups) == 0 {
		return nil, fmt.Errorf("found no source files any configured language server handles under %s; use grep", m.root)
	}
	return sups, nil
}

func (m *Manager) findSymbol(ctx context.Context, src *source, q tools.GraphQuery) (string, error) {
	if strings.TrimSpace(q.Symbol) == "" {
		return "", fmt.Errorf("find_symbol needs symbol")
	}
	sups, err := m.symbolSupervisors(q)
	if err != nil {
		return "", err
	}
	syms, missing, err := m.findSymbols(ctx, src, sups, q.Symbol)
	if err != nil {
		return "", err
	}
	res := struct {
		Query     string   `json:"query"`
		Total     int      `json:"total"`
		Symbols   []place  `json:"symbols"`
		Truncated bool     `json:"truncated,omitempty"`
		Missing   []string `json:"missing_servers,omitempty"`
	}{Query: q.Symbol, Total: len(syms), Symbols: []place{}, Missing: missing}
	if len(syms) > maxResults {
		syms, res.Truncated = syms[:maxResults], true
	}
	for _, sym := range syms {
		res.Symbols = append(res.Symbols, m.symbolPlace(src, sym))
	}
	return encode(res)
}

// symbolPlace describes a symbol at its name.
func (m *Manager) symbolPlace(src *source, sym *symbol) place {
	p := m.place(src, sym.srv.enc, sym.path, sym.namePosition(src))
	p.Kind = kindName(sym.kind)
	if !p.Withheld {
		p.Name, p.Container = sym.name, sym.container
	}
	return p
}

// closest names, for a lookup that found no declaration of the name, the
// nearest one it found — unless that is in a file the rules about reading
// withhold, whose names stay out as its places' do (symbolPlace).
func closest(src *source, syms []*symbol) string {
	if len(syms) == 0 || src.withheld(syms[0].path) {
		return ""
	}
	return fmt.Sprintf(" (closest: %s)", syms[0].name)
}

// A target is the occurrence of a symbol a question is about: a file and
// a 1-based line and character column, given or found by name.
type target struct {
	sv           *supervisor
	path         string
	line, column int
	name         string
	sym          *symbol   // the declaration, when found by name
	others       []*symbol // other declarations the name may mean
}

// resolve finds the target of a question: the position given, else the
// best declaration of the symbol named.
func (m *Manager) resolve(ctx context.Context, src *source, q tools.GraphQuery) (*target, error) {
	if q.Path != "" && q.Line > 0 && q.Column > 0 {
		sv, err := m.supervisorFor(q.Path)
		if err != nil {
			return nil, err
		}
		t := src.text(q.Path)
		if t == nil {
			_, err := src.read(q.Path)
			return nil, fmt.Errorf("cannot read %s: %w", m.rel(q.Path), err)
		}
		if q.Line > t.Lines() {
			return nil, fmt.Errorf("%s has %d lines; line %d is past its end", m.rel(q.Path), t.Lines(), q.Line)
		}
		name := wordAt(t.Line(q.Line-1), q.Column)
		return &target{sv: sv, path: q.Path, line: q.Line, column: q.Column, name: name}, nil
	}
	if q.Symbol == "" {
		return nil, fmt.Errorf("%s needs symbol, or path, line and column", q.Action)
	}
	sups, err := m.symbolSupervisors(q)
	if err != nil {
		return nil, err
	}
	syms, _, err := m.findSymbols(ctx, src, sups, q.Symbol)
	if err != nil {
		return nil, err
	}
	if len(syms) == 0 || syms[0].rank.foreign || syms[0].rank.name > 1 {
		return nil, fmt.Errorf("no declaration named %q found%s; try find_symbol with part of the name, or give path, line and column", q.Symbol, closest(src, syms))
	}
	best := syms[0]
	sv, err := m.supervisorFor(best.path)
	if err != nil {
		return nil, err
	}
	pos := best.namePosition(src)
	line, col := int(pos.Line)+1, int(pos.Character)+1
	if t := src.text(best.path); t != nil {
		line, col = fromServer(t, pos, best.srv.enc)
	}
	tg := &target{sv: sv, path: best.path, line: line, column: col, name: best.short, sym: best}
	for _, s := range syms[1:] {
		if s.rank != best.rank || len(tg.others) == 5 {
			break
		}
		tg.others = append(tg.others, s)
	}
	return tg, nil
}

// position returns the target's position in the server's encoding.
func (tg *target) position(src *source, enc wire.Encoding) protocol.Position {
	if t := src.text(tg.path); t != nil {
		return toServer(t, tg.line, tg.column, enc)
	}
	return protocol.Position{Line: uint32(tg.line - 1), Character: uint32(tg.column - 1)}
}

func (tg *target) docPosition(src *source, enc wire.Encoding) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(tg.path)},
		Position:     tg.position(src, enc),
	}
}

// wordAt returns the identifier around a 1-based character column.
func wordAt(line string, column int) string {
	r := []rune(line)
	i := column - 1
	if i < 0 || i > len(r) {
		return ""
	}
	isWord := func(c rune) bool { return c == '_' || c == '$' || unicode.IsLetter(c) || unicode.IsDigit(c) }
	start, end := i, i
	for start > 0 && isWord(r[start-1]) {
		start--
	}
	for end < len(r) && isWord(r[end]) {
		end++
	}
	return string(r[start:end])
}
