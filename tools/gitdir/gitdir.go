// Package gitdir knows where git finds what makes it run a program: a
// repository's configuration (core.fsmonitor, filter drivers, a hooks
// path), its hooks and its attributes (which pick the filter and diff
// drivers), and the files that send git to another directory for all of
// them.
//
// A work tree's .git is a directory, or a file ("gitdir: <path>") naming
// the git directory elsewhere, as in a linked work tree or a submodule's
// checkout. A git directory holding a commondir file takes its
// configuration, hooks and attributes from the directory that file names
// (a linked work tree's git directory names the main one). Below a git
// directory, modules/<name> is a submodule's git directory (a name may
// hold slashes) and worktrees/<name> a linked work tree's, each with the
// same files again.
//
// So a command that can write a git directory can make git run anything,
// the next time anyone runs git there, unless those files stay as they
// were; the rest of a git directory (objects, refs, logs, the index) must
// stay writable for commits to work. Walk visits those files and nothing
// of the repository's history.
package gitdir

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Dirs returns the git directories git uses for the work tree at dir: the
// repository's own — dir/.git, or where a .git file points — and, when
// that directory holds a commondir file, the directory it names. Paths
// are absolute and clean, and need not exist: with no .git at all,
// dir/.git is where `git init` would make one.
func Dirs(dir string) []string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	dot := filepath.Join(dir, ".git")
	g := dot
	if fi, err := os.Lstat(dot); err == nil && fi.Mode().IsRegular() {
		target, ok := readPointer(dot, "gitdir:")
		if !ok {
			return nil // not a repository git would use
		}
		g = resolveAgainst(dir, target)
	}
	out := []string{g}
	if target, ok := readPointer(filepath.Join(g, "commondir"), ""); ok {
		if c := resolveAgainst(g, target); c != g {
			out = append(out, c)
		}
	}
	return out
}

// Repo returns, for a repository's .git at dot, what git takes
// configuration and hooks from through it: pointer is dot itself when it
// is a file naming the git directory elsewhere ("" when it is the
// directory), and dirs the git directories it uses (Dirs).
//
// A directory a pointer names is among dirs only if it looks like one
// git would use (it holds HEAD or objects): a nested repository is
// whatever a command or a checkout made it, and `gitdir: /` must not
// send the callers over the whole file system.
func Repo(dot string) (pointer string, dirs []string) {
	if fi, err := os.Lstat(dot); err == nil && !fi.IsDir() {
		pointer = dot
	}
	for _, d := range Dirs(filepath.Dir(dot)) {
		if d == dot || looksLikeGitDir(d) {
			dirs = append(dirs, d)
		}
	}
	return pointer, dirs
}

// looksLikeGitDir reports whether dir holds HEAD or objects, as a git
// directory or the common directory of one does.
func looksLikeGitDir(dir string) bool {
	for _, name := range []string{"HEAD", "objects"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// maxPointer bounds what is read of a .git file or a commondir file,
// which hold one path.
const maxPointer = 4096

// readPointer reads the path a pointer file holds after prefix, as git
// does: trailing line breaks are not part of it.
func readPointer(path, prefix string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPointer))
	if err != nil {
		return "", false
	}
	data = bytes.TrimRight(data, "\r\n")
	s, ok := strings.CutPrefix(string(data), prefix)
	s = strings.TrimSpace(s)
	if !ok || s == "" || strings.ContainsRune(s, 0) {
		return "", false
	}
	return s, true
}

func resolveAgainst(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// controlNames are the entries of a git directory that git reads
// configuration, hooks or a redirection from. They are matched without
// regard to case, as git finds them on a case-insensitive file system.
var controlNames = []string{"config", "config.worktree", "commondir", "hooks"}

// isControlName reports whether name is one of controlNames.
func isControlName(name string) bool {
	return slices.ContainsFunc(controlNames, func(c string) bool { return strings.EqualFold(c, name) })
}

// history are the directories of a git directory that hold the
// repository's content and history, or caches of it; their size grows
// with the repository and git takes no program from them, so Walk does
// not go into them. The others are small. These are matched as written:
// leaving out less costs a little, never what is watched.
var history = []string{"objects", "refs", "logs", "lfs", "annex", "rr-cache", "svn", "subtree-cache", "branches"}

// Bounds of a Walk. maxDepth bounds how deep it goes into modules and
// worktrees: a submodule nested in a submodule nests its git directory
// too, but not without end. maxEntries bounds the entries it looks at,
// whatever the directory: hundreds of submodules fit.
const (
	maxDepth   = 32
	maxEntries = 50_000
)

// errTooMany ends a Walk past its limit.
var errTooMany = errors.New("too many entries")

// Walk calls visit for each control entry below the git directory dir,
// as it is now: config, config.worktree and commondir, the hooks
// directory and everything below it (the inert samples git ships too,
// so that a hooks directory a command made can be removed whole),
// info/attributes, and the same in every directory below dir
// but those of history, which covers the git directories of submodules
// (modules/…) and linked work trees (worktrees/…) whatever their names.
// A directory is visited before its entries; returning fs.SkipDir for
// the hooks directory leaves its entries out. Symbolic links are
// visited, never followed (but dir itself may be one). Entries that
// vanish or cannot be read are left out; a dir that does not exist
// visits nothing; past maxEntries, Walk stops.
func Walk(dir string, visit func(path string, d fs.DirEntry) error) error {
	return walker{visit: visit, limit: maxEntries}.walk(dir)
}

// A walker is the state of one Walk.
type walker struct {
	visit func(string, fs.DirEntry) error
	limit int // the entries it may look at
	seen  int // entries looked at
}

func (w walker) walk(dir string) error {
	if err := w.dir(dir, 0); err != nil && err != errTooMany {
		return err
	}
	return nil
}

// read lists dir, counting its entries against maxEntries.
func (w *walker) read(dir string) ([]fs.DirEntry, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	if w.seen += len(ents); w.seen > w.limit {
		return nil, errTooMany
	}
	return ents, nil
}

// call visits one entry; fs.SkipDir is no error.
func (w *walker) call(p string, d fs.DirEntry) error {
	if err := w.visit(p, d); err != nil && err != fs.SkipDir {
		return err
	}
	return nil
}

func (w *walker) dir(dir string, depth int) error {
	ents, err := w.read(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name, p := e.Name(), filepath.Join(dir, e.Name())
		switch {
		case strings.EqualFold(name, "hooks"):
			err = w.hooks(p, e)
		case isControlName(name):
			err = w.call(p, e)
		case strings.EqualFold(name, "info") && e.IsDir():
			err = w.attributes(p)
		case e.IsDir() && !slices.Contains(history, name) && depth < maxDepth:
			err = w.dir(p, depth+1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// attributes visits the attributes file of the info directory p.
func (w *walker) attributes(p string) error {
	ents, err := w.read(p)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if strings.EqualFold(e.Name(), "attributes") {
			if err := w.call(filepath.Join(p, e.Name()), e); err != nil {
				return err
			}
		}
	}
	return nil
}

// hooks visits the hooks directory p and, unless visit skips it or it
// is not a real directory, everything below it, links unfollowed.
func (w *walker) hooks(p string, d fs.DirEntry) error {
	err := w.visit(p, d)
	if err == fs.SkipDir || !d.IsDir() {
		return nil
	}
	if err != nil {
		return err
	}
	ents, err := w.read(p)
	if err != nil {
		return err
	}
	for _, e := range ents {
		q := filepath.Join(p, e.Name())
		if e.IsDir() {
			err = w.hooks(q, e)
		} else {
			err = w.call(q, e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Control returns the control entries below the git directory dir that
// exist now (see Walk), each hooks directory standing for what it holds.
func Control(dir string) []string {
	var out []string
	_ = Walk(dir, func(p string, d fs.DirEntry) error {
		out = append(out, p)
		if strings.EqualFold(d.Name(), "hooks") {
			return fs.SkipDir
		}
		return nil
	})
	return out
}
