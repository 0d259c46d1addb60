package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// maxVerifyLines caps the diagnostics Verify reports per server.
const maxVerifyLines = 20

// Verify reports the errors and warnings of files just changed, once their
// servers have settled, as a block to append to the edit's result:
//
//	Diagnostics after the edit (gopls):
//	calc.go:5:9: error: cannot use "x" (untyped string constant) as int value in return statement
//
// It returns "" when the files are clean, have no server, or their server
// is not installed or does not answer in time. The wait is bounded by the
// settle time once a server is warm, and by a longer start-up bound before.
func (m *Manager) Verify(ctx context.Context, paths []string) string {
	var files []string
	for _, p := range paths {
		p = m.abs(p)
		if _, err := m.config(p); err == nil && !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return ""
	}
	m.FilesChanged(files)
	ctx, cancel := context.WithTimeout(ctx, coldWait+m.settle)
	defer cancel()
	src := m.source()
	found, _, err := m.collect(ctx, src, files, true)
	if err != nil {
		m.log.Debug("verify found no diagnostics", "err", err)
		return ""
	}
	var b strings.Builder
	shown := map[string]int{}
	total := map[string]int{}
	var order []string
	for _, f := range found {
		if f.d.Severity != 0 && f.d.Severity > protocol.DiagnosticSeverityWarning {
			continue // hints and notes are not worth the model's attention here
		}
		if total[f.server] == 0 {
			order = append(order, f.server)
		}
		total[f.server]++
	}
	for _, name := range order {
		fmt.Fprintf(&b, "\n\nDiagnostics after the edit (%s):", name)
		for _, f := range found {
			if f.server != name || (f.d.Severity != 0 && f.d.Severity > protocol.DiagnosticSeverityWarning) {
				continue
			}
			if shown[name] == maxVerifyLines {
				break
			}
			shown[name]++
			p := m.place(src, f.enc, f.path, f.d.Range.Start)
			fmt.Fprintf(&b, "\n%s:%d:%d: %s: %s", p.Path, p.Line, p.Column, severityName(f.d.Severity), message(f.d))
		}
		if n := total[name] - shown[name]; n > 0 {
			fmt.Fprintf(&b, "\n… and %d more", n)
		}
	}
	return b.String()
}

func (m *Manager) diagnostics(ctx context.Context, src *source, q tools.GraphQuery) (string, error) {
	paths := []string{q.Path}
	if q.Path == "" {
		paths = nil
		for _, p := range q.Changed {
			p = m.abs(p)
			if _, err := m.config(p); err == nil && !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
		if len(paths) == 0 {
			return encode(map[string]any{"files": []string{}, "total": 0, "diagnostics": []place{},
				"note": "no path was given and no source file changed in this turn"})
		}
	}
	found, names, err := m.collect(ctx, src, paths, false)
	if err != nil {
		return "", err
	}
	type diag struct {
		place
		Severity string `json:"severity"`
		Source   string `json:"source,omitempty"`
		Code     string `json:"code,omitempty"`
		Message  string `json:"message"`
	}
	res := struct {
		Files       []string `json:"files"`
		Servers     []string `json:"servers"`
		Total       int      `json:"total"`
		Diagnostics []diag   `json:"diagnostics"`
		Truncated   bool     `json:"truncated,omitempty"`
	}{Servers: names, Diagnostics: []diag{}}
	for _, p := range paths {
		res.Files = append(res.Files, m.rel(p))
	}
	for _, f := range found {
		res.Total++
		if len(res.Diagnostics) == maxResults {
			res.Truncated = true
			continue
		}
		d := diag{place: m.place(src, f.enc, f.path, f.d.Range.Start), Severity: severityName(f.d.Severity), Code: code(f.d), Message: message(f.d)}
		if d.Withheld {
			d.Code, d.Message = "", "(withheld: the permission rules deny reading this file, or ask first)"
		}
		d.Source, _ = f.d.Source.Get()
		res.Diagnostics = append(res.Diagnostics, d)
	}
	return encode(res)
}

// A found diagnostic, with what is needed to show it.
type found struct {
	server string
	path   string
	enc    wire.Encoding
	d      protocol.Diagnostic
}

// collect gathers the diagnostics of paths from their servers, sorted by
// file, then severity, then position. For Verify (quick), a server's wait
// is bounded by the settle time once it is warm; otherwise by the
// question's context. Files without a server, or whose server is not
// installed, are skipped, unless every file's server is missing.
func (m *Manager) collect(ctx context.Context, src *source, paths []string, quick bool) ([]found, []string, error) {
	groups := map[*supervisor][]string{}
	var order []*supervisor
	for _, p := range paths {
		if _, err := src.read(p); err != nil {
			// A deleted file has nothing to report; a file asked about
			// by name must exist.
			if !quick && len(paths) == 1 {
				return nil, nil, fmt.Errorf("cannot read %s: %w", m.rel(p), err)
			}
			continue
		}
		sv, err := m.supervisorFor(p)
		if err != nil {
			if !quick && len(paths) == 1 {
				return nil, nil, err
			}
			continue
		}
		if _, ok := groups[sv]; !ok {
			order = append(order, sv)
		}
		groups[sv] = append(groups[sv], p)
	}
	var out []found
	var names []string
	var firstErr error
	for _, sv := range order {
		files := groups[sv]
		var got map[string][]protocol.Diagnostic
		var enc wire.Encoding
		err := m.withServer(ctx, sv, func(s *server) error {
			wait := coldWait
			if s.warm.Load() {
				wait = m.settle
			}
			if !quick {
				wait = max(wait, coldWait)
			}
			var err error
			got, err = s.diagnose(ctx, src, files, time.Now().Add(wait))
			enc = s.enc
			return err
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		names = append(names, sv.cfg.Name)
		for _, p := range files {
			for _, d := range got[p] {
				out = append(out, found{server: sv.cfg.Name, path: p, enc: enc, d: d})
			}
		}
	}
	if len(names) == 0 && firstErr != nil {
		return nil, nil, firstErr
	}
	slices.SortStableFunc(out, func(a, b found) int {
		if a.path != b.path {
			return strings.Compare(a.path, b.path)
		}
		sa, sb := a.d.Severity, b.d.Severity
		if sa == 0 {
			sa = protocol.DiagnosticSeverityError
		}
		if sb == 0 {
			sb = protocol.DiagnosticSeverityError
		}
		if sa != sb {
			return int(sa) - int(sb)
		}
		if a.d.Range.Start.Line != b.d.Range.Start.Line {
			return int(a.d.Range.Start.Line) - int(b.d.Range.Start.Line)
		}
		return int(a.d.Range.Start.Character) - int(b.d.Range.Start.Character)
	})
	return out, names, nil
}
