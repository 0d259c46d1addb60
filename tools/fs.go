package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FS is the one seam through which tools read and change files. Paths are
// absolute. The disk implementation is DiskFS; the LSP server supplies one
// that reads the editor's unsaved buffers and turns changes into
// WorkspaceEdits.
type FS interface {
	ReadFile(name string) ([]byte, error)
	Stat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// Apply makes every change or none of them. Changes apply in order,
	// so a later change sees the effect of an earlier one.
	Apply(ctx context.Context, changes []Change) error
}

// ChangeKind says what a Change does.
type ChangeKind int

const (
	// Write creates Path, or replaces its content, with Content.
	Write ChangeKind = iota
	// Delete removes the file at Path.
	Delete
	// Rename moves Path to NewPath, which must not exist.
	Rename
)

func (k ChangeKind) String() string {
	switch k {
	case Write:
		return "write"
	case Delete:
		return "delete"
	case Rename:
		return "rename"
	}
	return fmt.Sprintf("ChangeKind(%d)", int(k))
}

// Change is one file operation.
type Change struct {
	Kind    ChangeKind
	Path    string
	NewPath string // Rename only
	Content []byte // Write only
}

// DiskFS is the FS of the local disk.
type DiskFS struct{}

func (DiskFS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }
func (DiskFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (DiskFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Apply performs the changes in order. If one fails, the ones already made
// are undone from an in-memory journal, so a multi-file edit lands whole or
// not at all. Each write goes through a temporary file and a rename, so a
// crash never leaves a file half written.
func (DiskFS) Apply(ctx context.Context, changes []Change) error {
	var j journal
	for i, c := range changes {
		if err := ctx.Err(); err != nil {
			j.rollback()
			return err
		}
		if err := j.apply(c); err != nil {
			j.rollback()
			if len(changes) > 1 {
				return fmt.Errorf("change %d of %d (%s %s): %w; no file was changed", i+1, len(changes), c.Kind, c.Path, err)
			}
			return err
		}
	}
	return nil
}

// journal records how to undo the changes made so far.
type journal struct {
	undo []func()
}

func (j *journal) rollback() {
	for i := len(j.undo) - 1; i >= 0; i-- {
		j.undo[i]()
	}
	j.undo = nil
}

func (j *journal) apply(c Change) error {
	switch c.Kind {
	case Write:
		return j.write(c.Path, c.Content)
	case Delete:
		return j.delete(c.Path)
	case Rename:
		return j.rename(c.Path, c.NewPath)
	}
	return fmt.Errorf("unknown change kind %v", c.Kind)
}

func (j *journal) mkdirAll(dir string) error {
	// Find the first missing ancestor so a rollback removes exactly the
	// directories this change created.
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j.undo = append(j.undo, func() {
		for _, d := range missing {
			os.Remove(d)
		}
	})
	return nil
}

func (j *journal) write(path string, content []byte) error {
	mode := fs.FileMode(0o644)
	old, err := os.ReadFile(path)
	existed := err == nil
	if existed {
		if fi, err := os.Stat(path); err == nil {
			if !fi.Mode().IsRegular() {
				return fmt.Errorf("%s is not a regular file", path)
			}
			mode = fi.Mode().Perm()
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := j.mkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	if err := writeAtomic(path, content, mode); err != nil {
		return err
	}
	if existed {
		j.undo = append(j.undo, func() { writeAtomic(path, old, mode) })
	} else {
		j.undo = append(j.undo, func() { os.Remove(path) })
	}
	return nil
}

func (j *journal) delete(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	mode := fi.Mode().Perm()
	j.undo = append(j.undo, func() { writeAtomic(path, old, mode) })
	return nil
}

func (j *journal) rename(from, to string) error {
	if _, err := os.Lstat(from); err != nil {
		return err
	}
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("%s already exists", to)
	}
	if err := j.mkdirAll(filepath.Dir(to)); err != nil {
		return err
	}
	if err := os.Rename(from, to); err != nil {
		return err
	}
	j.undo = append(j.undo, func() { os.Rename(to, from) })
	return nil
}

// writeAtomic replaces path with content through a temporary file in the
// same directory.
func writeAtomic(path string, content []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".reasonix-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(content)
	if werr == nil {
		werr = f.Chmod(mode)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}
