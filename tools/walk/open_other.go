//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package walk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
)

var (
	errLink   = errors.New("a symbolic link; not followed")
	errNotDir = errors.New("not a directory")
)

// dir is a directory a walk holds open. This system offers no way to open
// a name relative to a directory without following links, so entries are
// opened by path after a check that they are not links: a link swapped in
// between the check and the open is followed (a time-of-check,
// time-of-use window that Linux and the BSDs do not have).
type dir struct {
	real string
	refs atomic.Int32
}

func newDir(real string) *dir {
	d := &dir{real: real}
	d.refs.Store(1)
	return d
}

func openRoot(path string) (*dir, string, error) {
	real, err := realPath(path)
	if err != nil {
		return nil, "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, "", err
	}
	if !fi.IsDir() {
		return nil, "", &fs.PathError{Op: "open", Path: path, Err: errNotDir}
	}
	return newDir(real), real, nil
}

func (d *dir) sub(name, real string) (*dir, error) {
	if err := notLink(real); err != nil {
		return nil, err
	}
	return newDir(real), nil
}

func (d *dir) list() ([]dirent, error) {
	f, err := os.Open(d.real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return dirents(f.ReadDir(-1))
}

func (d *dir) readFile(name, path string, buf []byte, limit int) ([]byte, error) {
	real := filepath.Join(d.real, name)
	if err := notLink(real); err != nil {
		return buf[:0], err
	}
	f, err := os.Open(real)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	return readAll(f, path, buf, limit)
}

func (d *dir) hold()    { d.refs.Add(1) }
func (d *dir) release() { d.refs.Add(-1) }

// notLink fails for a symbolic link (or a junction) at path.
func notLink(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return &fs.PathError{Op: "open", Path: path, Err: errLink}
	}
	return nil
}

func realPath(name string) (string, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Open opens the named file or directory for reading, following symbolic
// links as the system does, and asks check (when not nil) about its real
// path, absolute and free of links, before returning it; when check
// fails, check's error is returned. This system offers no account of an
// open descriptor's path, so the path is resolved first and the real path
// opened: a link swapped into it in between is followed. The file's Name
// is its real path.
func Open(name string, check func(real string) error) (*os.File, error) {
	real, err := realPath(name)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(real); err != nil {
			return nil, err
		}
	}
	return os.Open(real)
}

func readConfig(path string, skip func(string, bool) bool) []byte {
	if err := notLink(path); err != nil {
		return nil
	}
	real, err := realPath(path)
	if err != nil || (skip != nil && skip(real, false)) {
		return nil
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return nil
	}
	return data
}

// info lstats d's entry name by its real path: this system offers no
// stat relative to an open directory.
func (d *dir) info(name, _ string) (fs.FileInfo, error) { return os.Lstat(filepath.Join(d.real, name)) }
