package tools

import "context"

// A LineSpan is a run of whole lines of a file, 1-based and inclusive.
type LineSpan struct {
	Start, End int
}

// A SymbolImpact is one declaration a change touches, with the places that
// depend on it: what the user weighs before accepting a change to it.
type SymbolImpact struct {
	// Symbol names the declaration with its kind, as a reader would:
	// "func Add", "method (*Calc).Add", "class Calc", "method Calc.add".
	Symbol string
	// Path is the declaration's file (absolute) and Lines its whole
	// lines.
	Path  string
	Lines LineSpan
	// Callers are the call sites of the declaration outside its own
	// lines, or, when its server has no call hierarchy for it (a type, a
	// server without one), its references there; sorted by path and
	// position. References says which.
	Callers    []Place
	References bool
}

// A Place is a position in a file: Path absolute, Line and Column 1-based,
// the column in characters (Unicode code points) of the line.
type Place struct {
	Path         string
	Line, Column int
}

// An ImpactFinder tells which declarations a change's lines fall in and
// who depends on them. The project graph implements it.
type ImpactFinder interface {
	// Impacts returns, for each of spans of the file at path, the
	// innermost declaration holding the whole span (spans in no
	// declaration have none; each declaration is returned once), with
	// texts (absolute path → text) in place of what the files hold for
	// this one question. A file no server handles has none. The wait is
	// bounded by ctx.
	Impacts(ctx context.Context, texts map[string]string, path string, spans []LineSpan) ([]SymbolImpact, error)
}

// A Declaration is a top-level declaration of a file as its language
// server's outline (textDocument/documentSymbol) names it.
type Declaration struct {
	// Name is the server's: "Add", "Calc", and for a Go method gopls's
	// "(*Calc).Add".
	Name string
	// Kind is the LSP symbol kind, in words: "function", "class",
	// "struct", "interface", "method", "variable".
	Kind string
	// Line is the 1-based line the declaration starts on.
	Line int
}

// A DeclarationLister names the top-level declarations of a file. It is
// not a question the model asks: /init drafts the project's AGENTS.md
// with it. The project graph implements it.
type DeclarationLister interface {
	// Declarations returns the top-level declarations of the file at path
	// (absolute) as the editor's buffer, or else the disk, holds it, in
	// the order of the file. A file no server handles has none; a missing
	// server is an error. A server not running yet starts; the wait,
	// start included, is bounded by ctx.
	Declarations(ctx context.Context, path string) ([]Declaration, error)
}
