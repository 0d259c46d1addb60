package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// showFile writes text as a file of the connection's temporary directory
// (diffDir) and, when the client can, asks it to open the file
// (window/showDocument). A pattern with "*" gets a name of its own each
// time (os.CreateTemp), so an editor that has an earlier one open does
// not show it instead; shown reports whether the editor opened it.
func (s *Server) showFile(ctx context.Context, pattern, text string) (u uri.URI, name string, shown bool, err error) {
	dir, err := s.diffDir()
	if err != nil {
		return "", "", false, err
	}
	if strings.Contains(pattern, "*") {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return "", "", false, err
		}
		name = f.Name()
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", "", false, err
		}
	} else {
		name = filepath.Join(dir, pattern)
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			return "", "", false, err
		}
	}
	u = uri.File(name)
	s.mu.Lock()
	can := s.caps.showDocument
	s.mu.Unlock()
	if can {
		yes := true
		res, err := showDocument.call(ctx, s, &protocol.ShowDocumentParams{URI: u, TakeFocus: &yes})
		shown = err == nil && res != nil && res.Success
	}
	return u, name, shown, nil
}

// diffDir returns the connection's directory for the files it shows (a
// proposal's diff, a plan), made on first use; release removes it.
func (s *Server) diffDir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.diffs == "" {
		dir, err := os.MkdirTemp("", "reasonix-review-")
		if err != nil {
			return "", err
		}
		s.diffs = dir
	}
	return s.diffs, nil
}
