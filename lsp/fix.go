package lsp

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// Many clients send with a request for code actions only the diagnostics
// of the server they ask (eglot, vim-lsp, yegappan/lsp), and Reasonix
// publishes none of its own, so their requests carry no problem to fix.
// For them the server looks at what the project graph's language servers
// (gopls and the others) report on the requested lines, and offers the
// same quick fix; the command reasonix.fix does the same from a key
// binding, for the problem at the cursor.

// codeActionWait bounds how long a request for code actions waits for the
// project graph: clients ask on every cursor move, and the menu waits for
// the answer. A warm server that has checked the current text answers at
// once; one still checking an edit, or starting, is not waited for, and
// its problems show at a later request.
const codeActionWait = 250 * time.Millisecond

// fixWait bounds how long reasonix.fix waits for the project graph. It is
// one request the user made, so it waits for a server that is checking
// an edit, but stays under the request timeouts of clients that execute
// commands synchronously (eglot gives up after 10 seconds).
const fixWait = 5 * time.Second

// cmdFix is the command that fixes the problem the project graph reports
// at a place.
const cmdFix = "reasonix.fix"

// fixArgs is the argument object of reasonix.fix. The file is uri, or
// textDocument.uri, so that a client's TextDocumentPositionParams (what
// yegappan/lsp's getTextDocPosition returns) serve as they are.
type fixArgs struct {
	URI          string `json:"uri"`
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	// Range or Position says where; without either, the whole file.
	Range    *protocol.Range    `json:"range,omitempty"`
	Position *protocol.Position `json:"position,omitempty"`
	// Prompt and SessionID are as for reasonix.start.
	Prompt    string `json:"prompt,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// fixResult is what reasonix.fix answers: the turn's session, and the
// problem it was asked to fix.
type fixResult struct {
	SessionID string `json:"sessionId"`
	Problem   string `json:"problem"`
}

// fix starts a turn that fixes the most severe problem the project graph
// reports at the place args names (nearest the position or the range's
// start), as the quick fix for a diagnostic does, and answers once the
// turn has started.
func (s *Server) fix(ctx context.Context, args fixArgs) (fixResult, error) {
	args.URI = cmp.Or(args.URI, args.TextDocument.URI)
	path := pathOf(uri.URI(args.URI))
	if path == "" {
		return fixResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, "reasonix.fix needs the uri of a file")
	}
	ws, err := s.workspaceFor(path)
	if err != nil {
		s.showError(s.ctx, "Reasonix configuration: "+err.Error())
		return fixResult{}, err
	}
	g, _ := ws.agent.Env.Graph.(tools.FileDiagnoser)
	if g == nil {
		return fixResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest,
			"the project graph is off ([graph] enabled = false), so Reasonix sees no problems of its own; send the diagnostic with reasonix.start")
	}
	span := lineSpan{first: 0, last: -1}
	at := -1
	switch {
	case args.Range != nil:
		span, at = linesOf(*args.Range), int(args.Range.Start.Line)
	case args.Position != nil:
		span, at = lineSpan{int(args.Position.Line), int(args.Position.Line)}, int(args.Position.Line)
	}
	found, err := g.Reported(ctx, path, fixWait)
	if err != nil {
		if ctx.Err() != nil {
			return fixResult{}, protocol.ErrRequestCancelled
		}
		return fixResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("Reasonix cannot see the problems of %s yet: %v; try again in a moment", s.relPath(path), err))
	}
	problems := s.problemsOn(path, found, span)
	if len(problems) == 0 {
		where := s.relPath(path)
		if span.last >= 0 {
			where = fmt.Sprintf("line %d of %s", span.first+1, where)
			if span.last > span.first {
				where = fmt.Sprintf("lines %d-%d of %s", span.first+1, span.last+1, s.relPath(path))
			}
		}
		return fixResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "Reasonix's language servers report no error or warning on "+where)
	}
	best := slices.MinFunc(problems, func(a, b problem) int {
		return cmp.Or(
			cmp.Compare(a.d.Severity, b.d.Severity),
			cmp.Compare(distance(a.d.Range, at), distance(b.d.Range, at)),
		)
	})
	raw, err := protocol.Marshal(&best.d)
	if err != nil {
		return fixResult{}, fmt.Errorf("reasonix.fix: %w", err)
	}
	started, err := s.start(ctx, askArgs{URI: args.URI, Diagnostic: raw, Prompt: args.Prompt, SessionID: args.SessionID})
	if err != nil {
		return fixResult{}, err
	}
	return fixResult{SessionID: started.SessionID, Problem: best.String()}, nil
}

// graphProblems returns the problems the project graph reports on the
// lines of r in the document u, for a request for code actions that
// carries no diagnostic. It takes at most codeActionWait, the wait for a
// workspace's agent being built (its MCP servers starting) included.
func (s *Server) graphProblems(ctx context.Context, u uri.URI, r protocol.Range) []problem {
	path := pathOf(u)
	if path == "" {
		return nil
	}
	deadline := time.Now().Add(codeActionWait)
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	w := s.builtWorkspace(wctx, path)
	if w == nil || w.agent == nil {
		return nil
	}
	g, _ := w.agent.Env.Graph.(tools.FileDiagnoser)
	if g == nil {
		return nil
	}
	found, err := g.Reported(ctx, path, time.Until(deadline))
	if err != nil {
		s.log.Debug("no problems from the project graph for code actions", "path", path, "err", err)
		return nil
	}
	return s.problemsOn(path, found, linesOf(r))
}

// builtWorkspace returns the workspace of path once its agent is built,
// waiting for a build under way until ctx ends, but never starting one.
func (s *Server) builtWorkspace(ctx context.Context, path string) *workspace {
	s.mu.Lock()
	root := s.rootFor(path)
	w, b := s.spaces[root], s.building[root]
	s.mu.Unlock()
	if w != nil || b == nil {
		return w
	}
	select {
	case <-b.done:
		return b.w
	case <-ctx.Done():
		return nil
	}
}

// A problem is a diagnostic of the project graph, with its range in the
// client's position encoding.
type problem struct {
	tools.Diagnostic
	d protocol.Diagnostic
}

// lineSpan is a range of lines, 0-based and inclusive; last < 0 means
// every line.
type lineSpan struct{ first, last int }

// linesOf returns the lines a range covers: a range that ends at the
// start of a line does not cover that line.
func linesOf(r protocol.Range) lineSpan {
	last := int(r.End.Line)
	if r.End.Character == 0 && r.End.Line > r.Start.Line {
		last--
	}
	return lineSpan{int(r.Start.Line), max(last, int(r.Start.Line))}
}

// problemsOn keeps the errors and warnings of found on the lines of span,
// with their ranges converted to the client's encoding in path's current
// text. Hints and notes are left out: a quick fix on every line that has
// one would crowd the menu.
func (s *Server) problemsOn(path string, found []tools.Diagnostic, span lineSpan) []problem {
	doc, ok := s.docFor(path)
	if !ok {
		return nil
	}
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()
	text := wire.NewText(doc.Text)
	var out []problem
	for _, d := range found {
		sev := severityOf(d.Severity)
		if sev > protocol.DiagnosticSeverityWarning {
			continue
		}
		start := clientPosition(text, d.Line, d.Column, enc)
		end := start
		if d.EndLine > 0 {
			end = clientPosition(text, d.EndLine, d.EndColumn, enc)
		}
		r := protocol.Range{Start: start, End: end}
		if span.last >= 0 {
			if lines := linesOf(r); lines.first > span.last || lines.last < span.first {
				continue
			}
		}
		out = append(out, problem{Diagnostic: d, d: protocol.Diagnostic{
			Range: r, Severity: sev, Source: protocol.NewOptional(d.Server), Message: protocol.String(d.Message),
		}})
	}
	return out
}

// clientPosition converts a 1-based line and character column in text to
// a position in enc.
func clientPosition(text *wire.Text, line, column int, enc wire.Encoding) protocol.Position {
	p := protocol.Position{Line: uint32(max(line-1, 0)), Character: uint32(max(column-1, 0))}
	off, err := text.Offset(p, wire.UTF32)
	if err != nil {
		return p
	}
	return text.Position(off, enc)
}

// severityOf is the protocol's severity for a severity name of
// tools.Diagnostic.
func severityOf(name string) protocol.DiagnosticSeverity {
	switch name {
	case "warning":
		return protocol.DiagnosticSeverityWarning
	case "info":
		return protocol.DiagnosticSeverityInformation
	case "hint":
		return protocol.DiagnosticSeverityHint
	}
	return protocol.DiagnosticSeverityError
}

// distance is how many lines r lies from line at; 0 when at < 0.
func distance(r protocol.Range, at int) int {
	switch {
	case at < 0:
		return 0
	case at < int(r.Start.Line):
		return int(r.Start.Line) - at
	case at > int(r.End.Line):
		return at - int(r.End.Line)
	}
	return 0
}
