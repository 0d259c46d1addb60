package graph

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Servers learn of changes on disk only from their client: language
// servers such as gopls watch no files themselves. The agent reports the
// files its own tools change, but a shell command (a code generator, git
// checkout, sed) changes files nobody names. So each server keeps a
// picture of the files it cares about, taken when it starts; after the
// disk may have changed behind its back, the next request compares the
// disk with that picture first and reports the differences as
// watched-file changes.

// A stamp is what a file looked like on disk.
type stamp struct {
	size int64
	mod  time.Time
}

// maxScan bounds the files a picture holds; a tree larger than that is
// pictured in part, and changes beyond the bound go unreported.
const maxScan = 200_000

// scanDisk returns the picture of the files under root that matter to
// the server: the ones it handles and its root markers. Hidden
// directories and node_modules are skipped.
func scanDisk(root string, cfg ServerSpec) map[string]stamp {
	out := map[string]stamp{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !handles(cfg, p) && !slices.Contains(cfg.RootMarkers, name) {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		out[p] = stamp{size: info.Size(), mod: info.ModTime()}
		if len(out) >= maxScan {
			return filepath.SkipAll
		}
		return nil
	})
	return out
}

// diffDisk returns the files that differ between two pictures, with
// whether each exists now.
func diffDisk(before, after map[string]stamp) map[string]bool {
	out := map[string]bool{}
	for p, a := range after {
		if b, ok := before[p]; !ok || b.size != a.size || !b.mod.Equal(a.mod) {
			out[p] = true
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out[p] = false
		}
	}
	return out
}

// rescan compares the disk with the server's picture, records the
// differences to report, and keeps the new picture. syncMu must be held.
func (s *server) rescan() {
	now := scanDisk(s.root, s.cfg)
	if s.disk != nil {
		for p, exists := range diffDisk(s.disk, now) {
			s.pending[p] = exists
		}
	}
	s.disk = now
}
