package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Code action kinds of the selection actions beyond the standard ones.
const (
	kindExplain protocol.CodeActionKind = "reasonix.explain"
	kindTests   protocol.CodeActionKind = "reasonix.tests"
)

// selectionActions are offered on a non-empty selection.
var selectionActions = []struct {
	title, prompt string
	kind          protocol.CodeActionKind
}{
	{"Ask Reasonix to explain this code", "Explain what this code does and anything surprising about it. Do not change any file.", kindExplain},
	{"Ask Reasonix to refactor this code", "Refactor this code to be clearer without changing its behaviour, then verify it still builds and its tests pass.", protocol.CodeActionKindRefactorRewrite},
	{"Ask Reasonix to add tests for this code", "Add tests for this code in the project's existing test style, then run them.", kindTests},
}

// CodeAction answers at once and never calls the model: it only offers
// actions. The work happens when the client executes an action's command
// (reasonix.start), which returns immediately while the turn runs. A
// request that carries no diagnostic waits, at most codeActionWait, for
// those of the project graph (fix.go).
func (s *Server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	s.mu.Lock()
	literals := s.caps.codeActionLiterals
	s.mu.Unlock()
	u := string(params.TextDocument.URI)
	var out []protocol.CommandOrCodeAction
	add := func(title string, kind protocol.CodeActionKind, args askArgs, diags []protocol.Diagnostic) {
		if !kindWanted(kind, params.Context.Only) {
			return
		}
		out = append(out, commandAction(literals, title, kind, cmdStart, args, diags))
	}
	fix := func(d protocol.Diagnostic) {
		raw, err := protocol.Marshal(&d)
		if err != nil {
			return
		}
		add("Ask Reasonix to fix: "+clip(firstLine(strings.TrimSpace(diagnosticMessage(&d))), 80),
			protocol.CodeActionKindQuickFix, askArgs{URI: u, Diagnostic: raw}, []protocol.Diagnostic{d})
	}
	out = append(out, s.reviewActions(params)...)
	sent := false
	for _, d := range params.Context.Diagnostics {
		if !isProposal(&d) {
			sent = true
			fix(d)
		}
	}
	if !sent && kindWanted(protocol.CodeActionKindQuickFix, params.Context.Only) {
		// The client sent no problem of its own: those the project
		// graph's language servers see on these lines. The wait must not
		// hold up the messages that follow (the cursor moves on, the user
		// types).
		jsonrpc2.Async(ctx)
		for _, p := range s.graphProblems(ctx, params.TextDocument.URI, params.Range) {
			fix(p.d)
		}
	}
	if r := params.Range; r.Start != r.End && !isDiagnosticRange(r, params.Context.Diagnostics) {
		for _, a := range selectionActions {
			rng := r
			add(a.title, a.kind, askArgs{URI: u, Range: &rng, Prompt: a.prompt}, nil)
		}
	}
	return out, nil
}

// commandAction is a code action that runs command with args: a
// CodeAction of kind, or a bare Command for clients without code action
// literals.
func commandAction(literals bool, title string, kind protocol.CodeActionKind, command string, args any, diags []protocol.Diagnostic) protocol.CommandOrCodeAction {
	b, _ := json.Marshal(args)
	cmd := protocol.Command{Title: title, Command: command, Arguments: []protocol.LSPAny{b}}
	if !literals {
		return &cmd
	}
	return &protocol.CodeAction{Title: title, Kind: &kind, Diagnostics: diags, Command: cmd}
}

// isDiagnosticRange reports whether r is just a diagnostic's range, as
// editors send when the cursor is on a diagnostic: that is not a selection
// the user made.
func isDiagnosticRange(r protocol.Range, diags []protocol.Diagnostic) bool {
	for _, d := range diags {
		if d.Range == r {
			return true
		}
	}
	return false
}

// kindWanted applies the client's "only" filter. Kinds form a hierarchy
// of dotted names whose root is the empty kind: a kind matches an entry
// that is the kind itself, one of its dotted prefixes, or the empty kind
// (which vim-lsp sends to ask for every kind).
func kindWanted(kind protocol.CodeActionKind, only []protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o == "" || kind == o || strings.HasPrefix(string(kind), string(o)+".") {
			return true
		}
	}
	return false
}
