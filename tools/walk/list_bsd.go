//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package walk

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// list returns the directory's entries, in no particular order. The os
// package reads them from a duplicate of the descriptor, which it owns
// and closes.
func (d *dir) list() ([]dirent, error) {
	fd, err := unix.Dup(d.fd)
	if err != nil {
		return nil, &fs.PathError{Op: "dup", Path: d.real, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.real)
	defer f.Close()
	return dirents(f.ReadDir(-1))
}
