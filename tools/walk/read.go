package walk

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// ErrTooLarge is returned by reads of a file longer than their limit.
var ErrTooLarge = errors.New("file too large")

// ReadAll reads f from its current offset to the end into buf's storage,
// growing it as needed, and returns the content. Callers that read many
// files pass the previous result back (as data[:0]) and read a tree
// without allocating. A file longer than limit, when limit is positive,
// fails with ErrTooLarge.
func ReadAll(f *os.File, buf []byte, limit int) ([]byte, error) {
	return readAll(f, f.Name(), buf, limit)
}

// readAll is ReadAll for anything with a Read method. It is generic, not
// written against io.Reader, so that reading a raw descriptor does not
// allocate an interface value per file.
func readAll[R interface{ Read([]byte) (int, error) }](r R, name string, buf []byte, limit int) ([]byte, error) {
	n := 0
	buf = buf[:cap(buf)]
	for {
		if n == len(buf) {
			if limit > 0 && n > limit {
				return buf[:n], &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
			}
			buf = grow(buf, n, limit)
		}
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			if _, ok := err.(*fs.PathError); !ok {
				err = &fs.PathError{Op: "read", Path: name, Err: err}
			}
			return buf[:n], err
		}
	}
	if limit > 0 && n > limit {
		return buf[:n], &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
	}
	return buf[:n], nil
}

// grow returns buf with room for at least one more byte after n, keeping
// buf[:n]. With a positive limit it grows to no more than limit+1 bytes:
// one byte past the limit is enough to tell that a file exceeds it.
func grow(buf []byte, n, limit int) []byte {
	if n < cap(buf) {
		return buf[:cap(buf)]
	}
	size := max(2*cap(buf), 64<<10)
	if limit > 0 {
		size = min(size, limit+1)
	}
	nb := make([]byte, size)
	copy(nb, buf[:n])
	return nb
}

// dirents converts a listing from the os package.
func dirents(des []fs.DirEntry, err error) ([]dirent, error) {
	ents := make([]dirent, len(des))
	for i, de := range des {
		ents[i] = dirent{name: de.Name(), typ: de.Type()}
	}
	return ents, err
}
