package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// A rule allows access beneath path: to it and, for a directory, to
// everything below it.
type rule struct {
	path   string
	access uint64
}

// plan turns grants into Landlock rules that leave out the forbidden paths.
// In a unit's mount namespace the supervisor hides what it can by mounts
// first (see hideForbidden) and hands only the rest here, so the
// splitting below is for paths that could not be hidden.
//
// Landlock only allows; it cannot take a subtree back out of a grant. So a
// grant whose subtree holds a forbidden path is split: along the way from
// the grant down to each forbidden path, every directory keeps only the
// rights about its entries (llDirOnly: list, create, remove, rename), and
// each of its entries gets the whole grant, except the forbidden one and
// those on the way to another forbidden path, which are split in turn.
//
// What this costs: the directories on the way stay listable (so `ls ~`
// works and the names inside ~/.ssh show, though not its files' contents),
// and an entry created in one of them after the rules were made (during the
// same command) gets no read access. Symbolic links on the way are not
// granted anything, since a rule on one would follow it; their targets get
// whatever rules they fall under. A grant inside a forbidden path is
// dropped: forbid_read wins.
func plan(grants []rule, forbid []string) []rule {
	var present []string
	for _, f := range forbid {
		// Only paths that exist can be opened; splitting around one
		// that does not would only cost access.
		if _, err := os.Lstat(f); err == nil {
			present = append(present, f)
		}
	}
	var out []rule
	for _, g := range grants {
		if slices.ContainsFunc(present, func(f string) bool { return within(g.path, f) }) {
			continue
		}
		out = split(out, g.path, g.access, below(present, g.path))
	}
	return out
}

// split appends the rules granting access beneath path except to the
// forbidden paths in inner, all of which lie strictly below path.
func split(out []rule, path string, access uint64, inner []string) []rule {
	if len(inner) == 0 {
		return append(out, rule{path, access})
	}
	if dir := access & llDirOnly; dir != 0 {
		out = append(out, rule{path, dir})
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		// Without the entries nothing below can be granted safely.
		return out
	}
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		if slices.Contains(inner, p) {
			continue
		}
		sub := below(inner, p)
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		out = split(out, p, access, sub)
	}
	return out
}

// below returns the paths strictly below dir.
func below(paths []string, dir string) []string {
	var out []string
	for _, p := range paths {
		if p != dir && within(p, dir) {
			out = append(out, p)
		}
	}
	return out
}
