//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package walk

import (
	"io"
	"io/fs"
	"os"
)

// ReadFile reads the named file whole into buf's storage, growing it as
// needed, and returns the content. It is os.ReadFile for loops over many
// files: a caller that passes the previous result back (as data[:0])
// reads a tree without allocating. A file longer than limit, when limit
// is positive, fails with ErrTooLarge.
func ReadFile(name string, buf []byte, limit int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	n := 0
	buf = buf[:cap(buf)]
	for {
		if n == len(buf) {
			if limit > 0 && n > limit {
				return buf[:n], &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
			}
			buf = grow(buf, n, limit)
		}
		m, err := f.Read(buf[n:])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			return buf[:n], err
		}
	}
	if limit > 0 && n > limit {
		return buf[:n], &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
	}
	return buf[:n], nil
}
