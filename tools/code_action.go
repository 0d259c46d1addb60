package tools

import "context"

// A CodeActor applies what a file's language server offers at a place in
// it: its code actions (organize imports, fill a struct, extract a
// function, its own quick fixes) and its formatting. The project graph
// implements it; the code_action and format tools use it through
// Env.Graph. Like Rename, nothing is written: the changes come back for
// the caller to apply through FS, where the permission rules judge them.
//
// Errors are worded for the model (no server for the file's language, a
// title the server does not offer, an action that is not an edit).
type CodeActor interface {
	// CodeActions lists the actions the server offers for the lines of q.
	CodeActions(ctx context.Context, q CodeActionQuery) ([]CodeAction, error)
	// ApplyCodeAction computes the changes of the action titled title
	// among those CodeActions offers for q, and a one-line summary.
	ApplyCodeAction(ctx context.Context, q CodeActionQuery, title string) ([]Change, string, error)
	// Format computes the changes formatting the file at path makes: the
	// whole file when line is 0, else lines line to endLine.
	Format(ctx context.Context, path string, line, endLine int) ([]Change, string, error)
}

// CodeActionQuery is where code actions are asked for. Path is absolute;
// Line and EndLine are 1-based and cover whole lines (EndLine 0 is Line).
type CodeActionQuery struct {
	Path          string
	Line, EndLine int
	// Only keeps the actions of these kinds and their sub-kinds
	// ("refactor" covers "refactor.extract"); none keeps every kind.
	Only []string
}

// CodeAction is one action a language server offers.
type CodeAction struct {
	Title string `json:"title"`
	Kind  string `json:"kind,omitempty"`
	// Preferred marks the fix the server thinks right for its problem.
	Preferred bool `json:"preferred,omitempty"`
	// Fixes are the diagnostics the action resolves, as the server
	// words them.
	Fixes []string `json:"fixes,omitempty"`
	// Disabled is the server's reason the action cannot apply now.
	Disabled string `json:"disabled,omitempty"`
}

// A GraphUser is a tool that works only through the project graph though
// its family is another (code_action and format change files, and are
// judged as writes): like the graph family's tools, it is not offered
// when the graph is turned off.
type GraphUser interface {
	UsesGraph() bool
}
