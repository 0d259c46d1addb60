//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package walk

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// dir is a directory a walk holds open. Its files and subdirectories are
// opened relative to it, by a single name and never through a symbolic
// link (O_NOFOLLOW on the only element looked up), so whatever the walk
// opens below its root is the entry it listed, at the real path it
// judged: a directory or file swapped for a link after the listing fails
// to open rather than leading elsewhere. No kernel feature newer than
// openat is needed for that.
type dir struct {
	fd   int    // a raw descriptor: an os.File's poller set-up and finalizer buy nothing here
	real string // the directory's real path
	// refs counts the tasks that still need the directory open: the one
	// reading it, its batches of files, and its subdirectories until
	// they are opened. The last to finish closes it.
	refs atomic.Int32
}

func newDir(fd int, real string) *dir {
	d := &dir{fd: fd, real: real}
	d.refs.Store(1)
	return d
}

// openRoot opens the directory at path, following symbolic links as the
// system does, and returns it with its real path.
func openRoot(path string) (*dir, string, error) {
	fd, err := openat(unix.AT_FDCWD, path, unix.O_DIRECTORY)
	if err != nil {
		return nil, "", &fs.PathError{Op: "open", Path: path, Err: err}
	}
	real, err := fdPath(fd, path)
	if err != nil {
		unix.Close(fd)
		return nil, "", err
	}
	return newDir(fd, real), real, nil
}

// sub opens d's subdirectory name, whose real path is real.
func (d *dir) sub(name, real string) (*dir, error) {
	fd, err := openat(d.fd, name, unix.O_DIRECTORY|unix.O_NOFOLLOW)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: real, Err: err}
	}
	return newDir(fd, real), nil
}

// readFile reads d's file name (path is for errors) as ReadAll does. A
// FIFO does not block the open, and a link is not followed.
func (d *dir) readFile(name, path string, buf []byte, limit int) ([]byte, error) {
	fd, err := openat(d.fd, name, unix.O_NOFOLLOW|unix.O_NONBLOCK)
	if err != nil {
		return buf[:0], &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	return readAll(fdReader(fd), path, buf, limit)
}

func (d *dir) hold() { d.refs.Add(1) }
func (d *dir) release() {
	if d.refs.Add(-1) == 0 {
		unix.Close(d.fd)
	}
}

// openat opens name relative to dirfd for reading. It calls the system
// directly: os.Open spends several more system calls per file setting
// up polling that files and directories never use, which over a large
// tree is a visible share of a search.
func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// fdReader reads a raw descriptor.
type fdReader int

func (r fdReader) Read(b []byte) (int, error) {
	for {
		n, err := unix.Read(int(r), b)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Open opens the named file or directory for reading, following symbolic
// links as the system does, and asks check (when not nil) about its real
// path, absolute and free of links, before returning it; when check
// fails, the file is closed and check's error returned. The real path is
// the kernel's account of the open descriptor (on Linux and macOS), so a
// link swapped in after the open cannot change it: open, then judge, is
// free of the window that judging a path and then opening it leaves. The
// file's Name is its real path.
func Open(name string, check func(real string) error) (*os.File, error) {
	fd, err := openat(unix.AT_FDCWD, name, unix.O_NONBLOCK)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	real, err := fdPath(fd, name)
	if err == nil && check != nil {
		err = check(real)
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), real), nil
}

// readConfig reads a file the walk's rules come from (an ignore file, a
// repository's .git file or info/exclude), or returns nil when it cannot
// or may not. A link in the last element is not followed, as git does
// not follow a linked .gitignore, and the file is judged by its real
// path, so a link above it cannot carry the read somewhere skip forbids.
func readConfig(path string, skip func(string, bool) bool) []byte {
	fd, err := openat(unix.AT_FDCWD, path, unix.O_NOFOLLOW|unix.O_NONBLOCK)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	if skip != nil {
		real, err := fdPath(fd, path)
		if err != nil || skip(real, false) {
			return nil
		}
	}
	data, err := readAll(fdReader(fd), path, nil, 0)
	if err != nil {
		return nil
	}
	return data
}

// statPath finds the real path of the file open as fd, which was opened
// as name, where the system cannot say: it resolves name's links and
// accepts the answer only if it is the same file as fd. A link swapped
// between the two can still mislead it, in a window much narrower than
// between a check and an open.
func statPath(fd int, name string) (string, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	var opened, found unix.Stat_t
	if err := unix.Fstat(fd, &opened); err != nil {
		return "", &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	if err := unix.Stat(real, &found); err != nil {
		return "", &fs.PathError{Op: "stat", Path: real, Err: err}
	}
	if opened.Dev != found.Dev || opened.Ino != found.Ino {
		return "", &fs.PathError{Op: "open", Path: name, Err: errChanged}
	}
	return real, nil
}
