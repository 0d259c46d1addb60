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
