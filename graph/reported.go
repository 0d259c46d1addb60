package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/tools"
)

var _ tools.FileDiagnoser = (*Manager)(nil)

// Reported returns the diagnostics of one file as the editor's buffer (or
// the disk) holds it now. Unlike Verify and Diagnose it does not wait for
// a server to load: the editor asks on every request for code actions, so
// the whole call — starting the server, syncing the file, awaiting the
// server's report on it — is bounded by wait. A server still starting
// when the wait ends goes on starting, and the next call finds it up.
func (m *Manager) Reported(ctx context.Context, path string, wait time.Duration) ([]tools.Diagnostic, error) {
	path = m.abs(path)
	sv, err := m.handledBy(path)
	if sv == nil || err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	s, err := sv.get(wctx)
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s is still starting: %w", sv.cfg.Name, err)
		}
		return nil, err
	}
	src := m.source()
	got, err := s.freshOrDiagnose(wctx, src, path, deadline)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		// The wait ran out while the file was being synced or pulled:
		// what the server published for this text, if anything.
		got = s.latest([]string{path})
	default:
		return nil, err
	}
	t := src.text(path)
	out := make([]tools.Diagnostic, 0, len(got[path]))
	for _, d := range got[path] {
		line, col := int(d.Range.Start.Line)+1, int(d.Range.Start.Character)+1
		endLine, endCol := int(d.Range.End.Line)+1, int(d.Range.End.Character)+1
		if t != nil {
			line, col = fromServer(t, d.Range.Start, s.enc)
			endLine, endCol = fromServer(t, d.Range.End, s.enc)
		}
		out = append(out, tools.Diagnostic{
			Path: path, File: m.rel(path), Line: line, Column: col, EndLine: endLine, EndColumn: endCol,
			Severity: severityName(d.Severity), Message: message(d), Server: sv.cfg.Name,
		})
	}
	slices.SortStableFunc(out, func(a, b tools.Diagnostic) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return out, nil
}

// freshOrDiagnose syncs the file and returns the server's diagnostics
// of its text. A server that pushes versioned diagnostics (gopls) has
// usually published them for a text the user has not changed since, and
// otherwise soon will; waiting for that beats a pull request, which costs
// a round trip through the server's checks (a quarter of a second with
// gopls v0.23, whatever the file). Other servers are asked as diagnose
// does.
func (s *server) freshOrDiagnose(ctx context.Context, src *source, path string, deadline time.Time) (map[string][]protocol.Diagnostic, error) {
	if err := s.sync(ctx, src, []string{path}); err != nil {
		return nil, err
	}
	diags, ok, versioned := s.fresh(path)
	switch {
	case ok:
		return map[string][]protocol.Diagnostic{path: diags}, nil
	case versioned:
		if err := s.awaitPublished(ctx, []string{path}, s.publications(), deadline); err != nil {
			return nil, err
		}
		return s.latest([]string{path}), nil
	}
	return s.diagnose(ctx, src, []string{path}, deadline)
}
