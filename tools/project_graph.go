package tools

import (
	"context"
	"fmt"
	"time"
)

// A ProjectGraph is the project graph: it answers questions about code
// from live language servers — what a symbol is, where it is defined, what
// uses it, what a rename would touch, and what is broken after an edit.
// Package graph implements it; the project_graph and rename_symbol tools
// and the agent's verify-after-edit step use it through Env.Graph.
//
// Errors it returns are worded for the model (a missing language server
// says which and how to install it); tools pass them on as results.
type ProjectGraph interface {
	// Query runs one project_graph action and returns compact JSON.
	Query(ctx context.Context, q GraphQuery) (string, error)
	// Rename computes the file changes renaming the symbol at a position
	// makes, and a one-line summary; the caller applies them through FS.
	Rename(ctx context.Context, path string, line, column int, newName string) ([]Change, string, error)
	// Verify reports the diagnostics of files just changed, after their
	// servers settle (bounded); "" when there is nothing to report or no
	// server for them.
	Verify(ctx context.Context, paths []string) string
	// DiskChanged says files may have changed on disk without anyone
	// saying which: a shell command ran. The servers catch up before
	// their next question.
	DiskChanged()
	// Close shuts the language servers down.
	Close() error
}

// GraphQuery is a project_graph call. Paths are absolute; Line and Column
// are 1-based, in characters (Unicode code points) of the line.
type GraphQuery struct {
	Action  string // find_symbol, find_references, definition, incoming_calls, outgoing_calls, implementations, type_hierarchy, hover, rename_check, diagnostics
	Symbol  string
	Path    string
	Line    int
	Column  int
	NewName string
	// Changed lists the files changed this turn, for diagnostics with no
	// path.
	Changed []string
	// Withhold, when set, reports whether the text of the file at path
	// (absolute) must stay out of the answer: a permission rule about
	// reading covers it. Its places keep their file and position, and
	// lose their snippet, name and message.
	Withhold func(path string) bool
}

// OpenDocument is a document whose text differs from the disk or is being
// edited: the editor's open buffers, and edits the editor holds unsaved.
type OpenDocument struct {
	Path    string
	Text    string
	Version int32
}

// DocumentSource is implemented by FS implementations that hold documents
// the disk does not show (the editor's). Language servers are kept in sync
// with them.
type DocumentSource interface {
	OpenDocuments() []OpenDocument
}

type changedKey struct{}

// WithChanged records on ctx the files changed so far in a turn, for
// tools that act on them (project_graph diagnostics).
func WithChanged(ctx context.Context, paths []string) context.Context {
	return context.WithValue(ctx, changedKey{}, paths)
}

// ChangedIn returns the files WithChanged recorded.
func ChangedIn(ctx context.Context) []string {
	p, _ := ctx.Value(changedKey{}).([]string)
	return p
}

// Diagnostic is one problem a language server reports in a file.
type Diagnostic struct {
	// Path is absolute.
	Path string `json:"-"`
	// File is the path as the model sees it: relative to the workspace
	// root when inside it.
	File string `json:"file"`
	// Line and Column are 1-based, Column in characters of the line.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Severity is error, warning, info or hint.
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Server names the language server that reported it.
	Server string `json:"server,omitempty"`
	// EndLine and EndColumn, counted as Line and Column, end the range
	// the server reported, where the reporter gives it (zero where not).
	// Reports to the model and to clients name the start only.
	EndLine   int `json:"-"`
	EndColumn int `json:"-"`
}

// String renders d as "calc.go:12:3: undefined: x".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", d.File, d.Line, d.Column, d.Message)
}

// A Diagnoser reports what language servers find in files given as text,
// whatever the files hold: the agent checks a turn's changes with it
// before they are shown, against the same files as they were before the
// turn. The project graph implements it.
type Diagnoser interface {
	// Checks reports whether a language server is configured for path.
	Checks(path string) bool
	// Diagnose returns the diagnostics of paths, with texts (absolute
	// path → text) in place of what the files hold; the servers see the
	// texts as open documents and nothing is written. Files without a
	// server, or whose server is missing, are left out; the error says
	// why nothing could be checked. The wait is bounded by ctx.
	Diagnose(ctx context.Context, paths []string, texts map[string]string) ([]Diagnostic, error)
}

// A FileDiagnoser reports what the language servers say about one file
// as the user sees it now, within a time bound short enough to answer an
// editor's request for code actions. The project graph implements it.
type FileDiagnoser interface {
	// Reported returns the diagnostics of the file at path (absolute) as
	// the editor's buffer, or else the disk, holds it now, with their
	// ranges, sorted by position. It waits at most wait for the server to
	// report on that text, then returns what the server has reported for
	// it so far; a server not running yet starts, and the error says it
	// is still starting. A file no server handles has nothing to report.
	Reported(ctx context.Context, path string, wait time.Duration) ([]Diagnostic, error)
}
