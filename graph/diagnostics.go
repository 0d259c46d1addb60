package graph

import (
	"context"
	"maps"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// quiet is how long a file's pushed diagnostics must stay unchanged before
// they count as settled, for servers that publish without versions and in
// stages (typescript-language-server sends syntax, then semantic
// diagnostics).
const quiet = 150 * time.Millisecond

// published is the last publishDiagnostics for a file.
type published struct {
	version int32  // the document version they are for; 0 when not given
	seq     uint64 // the server's publication count when they arrived
	at      time.Time
	diags   []protocol.Diagnostic
}

// publications returns how many publishDiagnostics have arrived.
func (s *server) publications() uint64 {
	s.diagMu.Lock()
	defer s.diagMu.Unlock()
	return s.diagSeq
}

// publish records a publishDiagnostics notification and wakes the waiters.
func (s *server) publish(p *protocol.PublishDiagnosticsParams) {
	path := filepath.Clean(p.URI.FsPath())
	v, _ := p.Version.Get()
	s.diagMu.Lock()
	defer s.diagMu.Unlock()
	s.diagSeq++
	s.diags[path] = &published{version: v, seq: s.diagSeq, at: time.Now(), diags: p.Diagnostics}
	close(s.diagWake)
	s.diagWake = make(chan struct{})
}

// diagnose returns the diagnostics of files as they are now in src. The
// files are synced first. Where the server answers pull requests
// (textDocument/diagnostic) it is asked, which answers exactly when the
// file's diagnostics are ready; otherwise the wait is for a publication
// newer than the sync, then a short quiet period. Either way the wait ends
// at deadline, with what the server has published so far.
func (s *server) diagnose(ctx context.Context, src *source, paths []string, deadline time.Time) (map[string][]protocol.Diagnostic, error) {
	s.diagMu.Lock()
	before := s.diagSeq
	s.diagMu.Unlock()
	if err := s.sync(ctx, src, paths); err != nil {
		return nil, err
	}
	out := make(map[string][]protocol.Diagnostic, len(paths))
	if s.pulls() {
		var mu sync.Mutex // guards out
		var wg sync.WaitGroup
		wctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		for _, p := range paths {
			wg.Go(func() {
				diags, err := s.pull(wctx, p)
				if err != nil {
					s.log.Debug("pull diagnostics failed; using published ones", "path", p, "err", err)
					return
				}
				mu.Lock()
				out[p] = diags
				mu.Unlock()
				s.warm.Store(true)
			})
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	var rest []string
	for _, p := range paths {
		if _, ok := out[p]; !ok {
			rest = append(rest, p)
		}
	}
	if len(rest) > 0 {
		if err := s.awaitPublished(ctx, rest, before, deadline); err != nil {
			return nil, err
		}
		maps.Copy(out, s.latest(rest))
	}
	return out, nil
}

// fresh returns what the server published for the current version of
// an open document, if it has (ok): a server that gives versions has then
// nothing newer to say about that text. versioned reports whether the
// server gave a version with what it last published for the file.
func (s *server) fresh(path string) (diags []protocol.Diagnostic, ok, versioned bool) {
	v, _, open := s.version(path)
	// syncMu is never taken while diagMu is held.
	s.diagMu.Lock()
	defer s.diagMu.Unlock()
	pub := s.diags[path]
	if pub == nil || pub.version == 0 {
		return nil, false, false
	}
	if !open || pub.version < v {
		return nil, false, true
	}
	return pub.diags, true, true
}

// latest returns what the server last published for paths, leaving out
// what it published for an older version of a document: that describes
// text that is gone, and none are better than those.
func (s *server) latest(paths []string) map[string][]protocol.Diagnostic {
	versions := make(map[string]int32, len(paths))
	for _, p := range paths {
		versions[p], _, _ = s.version(p)
	}
	out := make(map[string][]protocol.Diagnostic, len(paths))
	// syncMu is never taken while diagMu is held.
	s.diagMu.Lock()
	defer s.diagMu.Unlock()
	for _, p := range paths {
		pub := s.diags[p]
		if pub == nil || (pub.version != 0 && pub.version < versions[p]) {
			continue
		}
		out[p] = pub.diags
	}
	return out
}

// pulls reports whether the server answers textDocument/diagnostic.
func (s *server) pulls() bool {
	return s.caps.pullDiagnostics || s.pullRegistered.Load()
}

// pull asks for a file's diagnostics.
func (s *server) pull(ctx context.Context, path string) ([]protocol.Diagnostic, error) {
	var report protocol.DocumentDiagnosticReport
	err := s.call(ctx, "textDocument/diagnostic", &protocol.DocumentDiagnosticParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
	}, &report)
	if err != nil {
		return nil, err
	}
	switch r := report.(type) {
	case *protocol.RelatedFullDocumentDiagnosticReport:
		return r.Items, nil
	}
	// No previous result was named, so "unchanged" cannot be meant; read
	// it as nothing to report.
	return nil, nil
}

// awaitPublished waits until each file has diagnostics for its current
// text: published for its current version, or, from a server that gives
// no versions, published after that version was sent (after before, for
// a file that is not open) and then left alone for the quiet period — or
// for as long as the server took to publish since the wait began, if that
// is longer: a server slowed down (a loaded machine) sends its later
// stages later too, and settling on its first would miss them.
func (s *server) awaitPublished(ctx context.Context, paths []string, before uint64, deadline time.Time) error {
	start := time.Now()
	versions := make(map[string]int32, len(paths))
	after := make(map[string]uint64, len(paths))
	for _, p := range paths {
		v, sent, ok := s.version(p)
		if !ok {
			sent = before
		}
		versions[p], after[p] = v, sent
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		s.diagMu.Lock()
		wake := s.diagWake
		var wait time.Duration
		settled := true
		for _, p := range paths {
			pub := s.diags[p]
			switch {
			case pub == nil:
				settled = false
			case pub.version != 0:
				settled = settled && pub.version >= versions[p]
			case pub.seq <= after[p]:
				settled = false
			default:
				if left := max(quiet, pub.at.Sub(start)) - time.Since(pub.at); left > 0 {
					settled = false
					wait = max(wait, left)
				}
			}
		}
		s.diagMu.Unlock()
		if settled {
			return nil
		}
		var again <-chan time.Time
		if wait > 0 {
			again = time.After(wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return nil
		case <-s.exited:
			return &crashedError{server: s.name, err: errExited}
		case <-wake:
		case <-again:
		}
	}
}
