package graph

import (
	"context"
	"slices"

	"github.com/reasonix/reasonix/tools"
)

var _ tools.Diagnoser = (*Manager)(nil)

// Checks reports whether a language server is configured for path.
func (m *Manager) Checks(path string) bool {
	_, err := m.config(m.abs(path))
	return err == nil
}

// Diagnose returns the diagnostics of paths as they would be with texts
// in place of the files' contents. The texts are laid over the editor's
// documents and the FS for this one question, as open documents; the
// next request brings the servers back to what the files hold.
func (m *Manager) Diagnose(ctx context.Context, paths []string, texts map[string]string) ([]tools.Diagnostic, error) {
	src := m.source()
	for p, t := range texts {
		src.overlay[m.abs(p)] = t
	}
	var files []string
	for _, p := range paths {
		p = m.abs(p)
		if m.Checks(p) && !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	// Servers that have not seen the files' changes on disk hear of
	// them first, so the texts not laid over are current too.
	m.FilesChanged(files)
	// The full wait, not Verify's quick one: the caller bounds it, and a
	// server cut short answers with what it published last, which may
	// describe a moment between two of the files' changes.
	found, _, err := m.collect(ctx, src, files, false)
	if err != nil {
		return nil, err
	}
	out := make([]tools.Diagnostic, 0, len(found))
	for _, f := range found {
		p := m.place(src, f.enc, f.path, f.d.Range.Start)
		out = append(out, tools.Diagnostic{
			Path: f.path, File: p.Path, Line: p.Line, Column: p.Column,
			Severity: severityName(f.d.Severity), Message: message(f.d), Server: f.server,
		})
	}
	return out, nil
}
