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
func Repo(dot string) (pointer string, dirs []string) {
	if fi, err := os.Lstat(dot); err == nil && !fi.IsDir() {
		pointer = dot
	}
	return pointer, Dirs(filepath.Dir(dot))
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

// maxDepth bounds how deep Walk goes into modules and worktrees: a
// submodule nested in a submodule nests its git directory too, but not
// without end.
const maxDepth = 32

// Walk calls visit for each control entry below the git directory dir,
// as it is now: config, config.worktree and commondir, the hooks
// directory and everything below it, info/attributes, and the same in
// every directory below dir but those of history, which covers the git
// directories of submodules (modules/…) and linked work trees
// (worktrees/…) whatever their names. A directory is visited before its
// entries; returning fs.SkipDir for the hooks directory leaves its
// entries out. Symbolic links are visited, never followed (but dir
// itself may be one). Entries that vanish or cannot be read are left out;
// a dir that does not exist visits nothing.
func Walk(dir string, visit func(path string, d fs.DirEntry) error) error {
	return walk(dir, 0, visit)
}

func walk(dir string, depth int, visit func(string, fs.DirEntry) error) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		name, p := e.Name(), filepath.Join(dir, e.Name())
		switch {
		case strings.EqualFold(name, "hooks"):
			if err := visitTree(p, e, visit); err != nil {
				return err
			}
		case isControlName(name):
			if err := visit(p, e); err != nil && err != fs.SkipDir {
				return err
			}
		case strings.EqualFold(name, "info") && e.IsDir():
			if err := visitAttributes(p, visit); err != nil {
				return err
			}
		case e.IsDir() && !slices.Contains(history, name) && depth < maxDepth:
			if err := walk(p, depth+1, visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// visitAttributes visits the attributes file of the info directory p.
func visitAttributes(p string, visit func(string, fs.DirEntry) error) error {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		if strings.EqualFold(e.Name(), "attributes") {
			if err := visit(filepath.Join(p, e.Name()), e); err != nil && err != fs.SkipDir {
				return err
			}
		}
	}
	return nil
}

// visitTree visits p and, unless visit skips it or it is not a real
// directory, everything below it, links unfollowed.
func visitTree(p string, d fs.DirEntry, visit func(string, fs.DirEntry) error) error {
	err := visit(p, d)
	if err == fs.SkipDir || !d.IsDir() {
		return nil
	}
	if err != nil {
		return err
	}
	return filepath.WalkDir(p, func(q string, e fs.DirEntry, err error) error {
		if err != nil || q == p {
			return nil
		}
		if err := visit(q, e); err != nil && !errors.Is(err, fs.SkipDir) {
			return err
		}
		return nil
	})
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
