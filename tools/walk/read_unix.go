//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package walk

import (
	"io/fs"
	"syscall"
)

// ReadFile reads the named file whole into buf's storage, growing it as
// needed, and returns the content. It is os.ReadFile for loops over many
// files: a caller that passes the previous result back (as data[:0])
// reads a tree without allocating. A file longer than limit, when limit
// is positive, fails with ErrTooLarge.
//
// On this platform it calls the system directly, because os.Open spends
// several extra system calls per file setting up polling that regular
// files never use; over a large tree that is a visible share of a search.
func ReadFile(name string, buf []byte, limit int) ([]byte, error) {
	var fd int
	var err error
	for {
		// O_NONBLOCK keeps a FIFO from blocking the open; it does
		// nothing to regular files.
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return buf[:0], &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	n := 0
	buf = buf[:cap(buf)]
	for {
		if n == len(buf) {
			if limit > 0 && n > limit {
				return buf[:n], &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
			}
			buf = grow(buf, n, limit)
		}
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf[:n], &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if m <= 0 {
			break
		}
		n += m
	}
	if limit > 0 && n > limit {
		return buf[:n], &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
	}
	return buf[:n], nil
}
