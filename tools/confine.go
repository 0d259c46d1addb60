package tools

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/reasonix/reasonix/tools/walk"
)

// Confined reads. Whatever reads files on the model's behalf — the read
// tools, and the prompt pipeline attaching the files a prompt refers to —
// checks a path with ReadPath first, for a clear refusal, and then judges
// what it actually opened on the disk by its real path, taken from the
// open descriptor: a symbolic link swapped in between the check and the
// open (by a command the model left running) cannot carry a read into a
// forbidden directory.

// ReadDisk reads the file at abs from the disk, judged by its real path,
// into buf's storage as walk.ReadAll does; limit bounds the read as there
// (0: no bound). Only a regular file is read: a device that never ends
// (/dev/zero) or another program's input (a named pipe, /dev/stdin — an
// editor's requests to the server), which a link in the workspace may
// name, is refused (ErrNotRegular).
func (e *Env) ReadDisk(abs string, buf []byte, limit int) ([]byte, error) {
	f, err := walk.Open(abs, e.CheckRead)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	if err := Regular(f); err != nil {
		return buf[:0], err
	}
	return walk.ReadAll(f, buf, limit)
}

// OpenDisk opens the file at abs on disk for reading as ReadDisk does —
// judged by its real path, and only if it is a regular file — for a
// reader that streams it instead of holding it whole.
func (e *Env) OpenDisk(abs string) (*os.File, error) {
	f, err := walk.Open(abs, e.CheckRead)
	if err != nil {
		return nil, err
	}
	if err := Regular(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ErrNotRegular refuses to read what is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Regular returns ErrNotRegular, with the file's name, unless the open
// file f is a regular file.
func Regular(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "read", Path: f.Name(), Err: ErrNotRegular}
	}
	return nil
}

// ReadConfined reads the file at abs as the tools see it: the FS's copy
// when it holds one (an editor buffer), else the disk's, judged by its
// real path. The tools that change files read what they change this way
// too: an edit's complaint ("old_string appears at line 3") must not
// become an oracle on a file no tool may read.
//
// A file over MaxEditBytes on disk is refused (walk.ErrTooLarge) rather
// than held whole: a change to it is a job for a stream editor.
func (e *Env) ReadConfined(abs string) ([]byte, error) {
	if data, held, err := e.Held(abs); held {
		if err == nil {
			// An editor's buffer of a file no tool may read.
			err = e.CheckRead(abs)
		}
		return data, err
	}
	data, err := e.ReadDisk(abs, nil, MaxEditBytes)
	if errors.Is(err, walk.ErrTooLarge) {
		return nil, fmt.Errorf("%w: it is over %d MiB; change it with a command (sed, a script) instead", err, MaxEditBytes>>20)
	}
	return data, err
}

// MaxEditBytes bounds the size of a file the tools that change files
// read whole.
const MaxEditBytes = 64 << 20

// ListDir lists the directory at abs, sorted by name, and returns its
// real path with it: from the disk, judged by that real path, when the
// FS reads the disk, else from the FS.
func (e *Env) ListDir(abs string) (real string, ents []fs.DirEntry, err error) {
	if !e.OnDisk() {
		ents, err = e.FS.ReadDir(abs)
		return abs, ents, err
	}
	f, err := walk.Open(abs, e.CheckRead)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	ents, err = f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })
	return f.Name(), ents, err
}

// SniffLen is how much of a file is inspected to decide if it is binary.
const SniffLen = 8000

// IsBinary reports whether data looks like a binary file: a NUL byte in
// its first bytes, or text that is not valid UTF-8 there.
func IsBinary(data []byte) bool {
	head := data
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	// Allow a multi-byte rune cut at the end of the sniffed window.
	for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return !utf8.Valid(head)
}
