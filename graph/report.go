package graph

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/wire"
)

// maxResults caps the entries of one result; the total is always given.
const maxResults = 100

// maxSnippet caps a snippet, in characters.
const maxSnippet = 120

// A place is one location in a result: workspace-relative path, 1-based
// line and column in characters, and the source line it is on.
type place struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	Name      string `json:"name,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Container string `json:"container,omitempty"`
	Snippet   string `json:"snippet,omitempty"`
	// Withheld marks a place in a file a permission rule about reading
	// covers: only its file and position are given.
	Withheld bool `json:"withheld,omitempty"`
}

// place converts a server location to a place, reading the file for its
// columns and snippet.
func (m *Manager) place(src *source, enc wire.Encoding, path string, pos protocol.Position) place {
	p := place{Path: m.rel(path), Line: int(pos.Line) + 1, Column: int(pos.Character) + 1}
	if src.withheld(path) {
		p.Withheld = true
		return p
	}
	if t := src.text(path); t != nil {
		p.Line, p.Column = fromServer(t, pos, enc)
		p.Snippet = snippet(t.Line(int(pos.Line)))
	}
	return p
}

// snippet trims and caps a source line.
func snippet(line string) string {
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) <= maxSnippet {
		return line
	}
	r := []rune(line)
	return string(r[:maxSnippet]) + "…"
}

var symbolKinds = [...]string{
	"", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor",
	"enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array",
	"object", "key", "null", "enum member", "struct", "event", "operator", "type parameter",
}

func kindName(k protocol.SymbolKind) string {
	if int(k) < len(symbolKinds) {
		return symbolKinds[k]
	}
	return fmt.Sprintf("kind %d", k)
}

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error" // the protocol says a client may read a missing severity as error
}

// message returns a diagnostic's message on one line.
func message(d protocol.Diagnostic) string {
	var s string
	switch m := d.Message.(type) {
	case protocol.String:
		s = string(m)
	case *protocol.String:
		if m != nil {
			s = string(*m)
		}
	case *protocol.MarkupContent:
		s = m.Value
	}
	return strings.Join(strings.Fields(s), " ")
}

// code returns a diagnostic's code as text.
func code(d protocol.Diagnostic) string {
	switch c := d.Code.(type) {
	case protocol.String:
		return string(c)
	case protocol.Integer:
		return fmt.Sprint(int32(c))
	}
	return ""
}

// encode renders a result as compact JSON, leaving <, > and & as they
// are: the reader is a model, not a web page.
func encode(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
