//go:build linux

package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// beneathOps resolves every path beneath its write root with openat2, so
// the kernel refuses a symbolic link anywhere on the way: there is no
// window between checking a path and using it.
type beneathOps struct {
	roots []string
}

func newBeneathOps(roots []string) fileOps {
	if !openat2Works() {
		return checkedOps{roots: roots}
	}
	return beneathOps{roots: roots}
}

var errLink = errors.New("a symbolic link appeared in the path; refusing to follow it")

// parent opens the directory that holds path and returns it with the
// path's last element. The caller closes fd.
func (b beneathOps) parent(path string) (fd int, base string, err error) {
	root, rel, ok := rootOf(b.roots, path)
	if !ok {
		return -1, "", fmt.Errorf("%s is %w", path, errOutside)
	}
	if rel == "." {
		return -1, "", fmt.Errorf("%s is a write root, not a file in one", path)
	}
	rootfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return -1, "", &fs.PathError{Op: "open", Path: root, Err: err}
	}
	dir := filepath.Dir(rel)
	if dir == "." {
		return rootfd, filepath.Base(rel), nil
	}
	defer unix.Close(rootfd)
	fd, err = unix.Openat2(rootfd, dir, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
		return -1, "", fmt.Errorf("%s: %w", path, errLink)
	case err != nil:
		return -1, "", &fs.PathError{Op: "open", Path: filepath.Join(root, dir), Err: err}
	}
	return fd, filepath.Base(rel), nil
}

func (b beneathOps) read(path string) ([]byte, fs.FileMode, bool, error) {
	dirfd, base, err := b.parent(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	defer unix.Close(dirfd)
	fd, err := unix.Openat(dirfd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil, 0, false, nil
	case errors.Is(err, unix.ELOOP):
		return nil, 0, false, fmt.Errorf("%s: %w", path, errLink)
	case err != nil:
		return nil, 0, false, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, false, err
	}
	if fi.IsDir() {
		return nil, 0, false, fmt.Errorf("%s is a directory", path)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(f)
	return data, fi.Mode().Perm(), true, err
}

func (b beneathOps) lexists(path string) (bool, error) {
	if _, rel, ok := rootOf(b.roots, path); ok && rel == "." {
		return true, nil
	} else if !ok {
		// Above every root (a parent of one): it exists, and nothing is
		// created there.
		if _, err := os.Lstat(path); err == nil {
			return true, nil
		}
		return false, fmt.Errorf("%s is %w", path, errOutside)
	}
	dirfd, base, err := b.parent(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer unix.Close(dirfd)
	var st unix.Stat_t
	err = unix.Fstatat(dirfd, base, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return false, nil
	}
	return err == nil, err
}

func (b beneathOps) mkdir(dir string) error {
	dirfd, base, err := b.parent(dir)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	if err := unix.Mkdirat(dirfd, base, 0o755); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return fs.ErrExist
		}
		return &fs.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	return nil
}

func (b beneathOps) writeFile(path string, content []byte, mode fs.FileMode) error {
	dirfd, base, err := b.parent(path)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	var tmp string
	var fd int
	for i := 0; ; i++ {
		tmp = fmt.Sprintf(".%s.reasonix-%d-%d", base, os.Getpid(), i)
		fd, err = unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(mode.Perm()))
		if !errors.Is(err, unix.EEXIST) || i > 100 {
			break
		}
	}
	if err != nil {
		return &fs.PathError{Op: "create", Path: filepath.Join(filepath.Dir(path), tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, werr := f.Write(content)
	if werr == nil {
		werr = unix.Fchmod(fd, uint32(mode.Perm())) // the umask narrowed it
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = unix.Renameat(dirfd, tmp, dirfd, base)
	}
	if werr != nil {
		unix.Unlinkat(dirfd, tmp, 0)
		return &fs.PathError{Op: "write", Path: path, Err: werr}
	}
	return nil
}

func (b beneathOps) remove(path string) error {
	dirfd, base, err := b.parent(path)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	err = unix.Unlinkat(dirfd, base, 0)
	if errors.Is(err, unix.EISDIR) {
		err = unix.Unlinkat(dirfd, base, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

func (b beneathOps) rename(from, to string) error {
	fromfd, fromBase, err := b.parent(from)
	if err != nil {
		return err
	}
	defer unix.Close(fromfd)
	tofd, toBase, err := b.parent(to)
	if err != nil {
		return err
	}
	defer unix.Close(tofd)
	if err := unix.Renameat2(fromfd, fromBase, tofd, toBase, unix.RENAME_NOREPLACE); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("%s already exists", to)
		}
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// openat2Works reports whether the kernel has openat2 (Linux 5.6+).
func openat2Works() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
