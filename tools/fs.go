package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
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

// Overlay is implemented by an FS that holds some files in memory (the
// editor's unsaved buffers, changes it has not written yet) and reads
// every other file from the local disk. Tools take the files it holds from
// Overlaid and read the others from the disk themselves, through a
// descriptor judged by its real path, as they read DiskFS.
type Overlay interface {
	FS
	// Overlaid returns the content held in memory for the file at name;
	// held is false when the file is to be read from the disk. A file
	// deleted in memory is held, with an fs.ErrNotExist error.
	Overlaid(name string) (data []byte, held bool, err error)
}

// A Proposer is an FS whose changes may be proposals: while it proposes,
// a change waits for a person to review and accept it (an editor's
// review), and no file changes until then. A call whose changes only
// propose needs no approval of its own, since the review is where the
// person decides; the permission gate is told so (permission.Request's
// Proposes), and marks the context of a call it allowed for that reason
// alone (WithProposalOnly). Apply with such a context must propose the
// changes, or refuse them with ErrNotPermitted if it no longer proposes:
// they were never approved to be made.
type Proposer interface {
	FS
	// Proposes reports whether changes applied now are proposals.
	Proposes() bool
}

// Proposes reports whether the changes e.FS applies now are proposals
// (see Proposer).
func (e *Env) Proposes() bool {
	p, ok := Base(e.FS).(Proposer)
	return ok && p.Proposes()
}

type proposalOnlyKey struct{}

// WithProposalOnly marks ctx as the context of a tool call that was
// allowed only because its changes are proposals (see Proposer).
func WithProposalOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, proposalOnlyKey{}, true)
}

// ProposalOnly reports whether ctx belongs to a call allowed only because
// its changes are proposals: an FS must not make them for real.
func ProposalOnly(ctx context.Context) bool {
	only, _ := ctx.Value(proposalOnlyKey{}).(bool)
	return only
}

// Base returns the FS that fsys wraps, through any number of wrappers
// that judge changes on their way (they implement Unwrap), which do not
// change how files are read.
func Base(fsys FS) FS {
	for {
		u, ok := fsys.(interface{ Unwrap() FS })
		if !ok {
			return fsys
		}
		fsys = u.Unwrap()
	}
}

// OnDisk reports whether files the FS does not hold in memory come from
// the local disk: true for DiskFS and for an Overlay. Tools then read
// them from the disk directly, confined; an FS that is neither is asked
// for everything.
func (e *Env) OnDisk() bool {
	switch Base(e.FS).(type) {
	case DiskFS, *DiskFS, Overlay:
		return true
	}
	return false
}

// Held returns the content of the file at abs when the FS, rather than
// the disk, provides it: an Overlay's buffer, or anything an FS that is
// not on disk (see OnDisk) reads. held is false when the caller must read
// the file from the disk itself, judging what it opened by its real path.
func (e *Env) Held(abs string) (data []byte, held bool, err error) {
	if o, ok := Base(e.FS).(Overlay); ok {
		return o.Overlaid(abs)
	}
	if e.OnDisk() {
		return nil, false, nil
	}
	data, err = e.FS.ReadFile(abs)
	return data, true, err
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
	// Mode is the permission bits of a file that Write creates; zero
	// means 0644. A file that exists keeps its own.
	Mode fs.FileMode
}

// DiskFS is the FS of the local disk.
//
// With Roots set, every change must land inside one of them, and on Linux
// each path is resolved beneath its root by the kernel without following
// symbolic links (openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS):
// a directory swapped for a link between the sandbox's check and the write
// cannot redirect the write. Roots must be absolute and symlink-free.
type DiskFS struct {
	Roots []string
}

func (DiskFS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }
func (DiskFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (DiskFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Apply performs the changes in order. If one fails, the ones already made
// are undone from an in-memory journal, so a multi-file edit lands whole or
// not at all. Each write goes through a temporary file and a rename, so a
// crash never leaves a file half written.
func (d DiskFS) Apply(ctx context.Context, changes []Change) error {
	j := journal{ops: d.ops()}
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

func (d DiskFS) ops() fileOps {
	if len(d.Roots) == 0 {
		return pathOps{}
	}
	return newBeneathOps(d.Roots)
}

// fileOps are the primitive changes a journal makes.
type fileOps interface {
	// read returns a regular file's content and mode; exists is false when
	// there is nothing at path.
	read(path string) (data []byte, mode fs.FileMode, exists bool, err error)
	// lexists reports whether anything (a link included) is at path.
	lexists(path string) (bool, error)
	// mkdir creates one directory.
	mkdir(dir string) error
	// writeFile replaces path with content through a temporary file.
	writeFile(path string, content []byte, mode fs.FileMode) error
	// remove removes a file or an empty directory.
	remove(path string) error
	// rename moves from to to, which must not exist.
	rename(from, to string) error
}

// journal records how to undo the changes made so far.
type journal struct {
	ops  fileOps
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
		return j.write(c.Path, c.Content, c.Mode)
	case Delete:
		return j.delete(c.Path)
	case Rename:
		return j.rename(c.Path, c.NewPath)
	}
	return fmt.Errorf("unknown change kind %v", c.Kind)
}

func (j *journal) mkdirAll(dir string) error {
	// Find the missing ancestors so a rollback removes exactly the
	// directories this change created.
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		ok, err := j.ops.lexists(d)
		if err != nil {
			return err
		}
		if ok {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := j.ops.mkdir(missing[i]); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		d := missing[i]
		j.undo = append(j.undo, func() { j.ops.remove(d) })
	}
	return nil
}

func (j *journal) write(path string, content []byte, newMode fs.FileMode) error {
	old, mode, existed, err := j.ops.read(path)
	if err != nil {
		return err
	}
	if !existed {
		mode = cmp.Or(newMode.Perm(), 0o644)
	}
	if err := j.mkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	if err := j.ops.writeFile(path, content, mode); err != nil {
		return err
	}
	if existed {
		j.undo = append(j.undo, func() { j.ops.writeFile(path, old, mode) })
	} else {
		j.undo = append(j.undo, func() { j.ops.remove(path) })
	}
	return nil
}

func (j *journal) delete(path string) error {
	old, mode, existed, err := j.ops.read(path)
	if err != nil {
		return err
	}
	if !existed {
		return &fs.PathError{Op: "remove", Path: path, Err: fs.ErrNotExist}
	}
	if err := j.ops.remove(path); err != nil {
		return err
	}
	j.undo = append(j.undo, func() { j.ops.writeFile(path, old, mode) })
	return nil
}

func (j *journal) rename(from, to string) error {
	if ok, err := j.ops.lexists(from); err != nil {
		return err
	} else if !ok {
		return &fs.PathError{Op: "rename", Path: from, Err: fs.ErrNotExist}
	}
	if ok, err := j.ops.lexists(to); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("%s already exists", to)
	}
	if err := j.mkdirAll(filepath.Dir(to)); err != nil {
		return err
	}
	if err := j.ops.rename(from, to); err != nil {
		return err
	}
	j.undo = append(j.undo, func() { j.ops.rename(to, from) })
	return nil
}

// Remove removes the file, symbolic link or empty directory at path,
// beneath the roots as Apply works, without following a link. Unlike a
// Delete it keeps nothing to undo.
func (d DiskFS) Remove(path string) error {
	return d.ops().remove(path)
}

// pathOps works on plain paths.
type pathOps struct{}

func (pathOps) read(path string) ([]byte, fs.FileMode, bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// Write through a link to the file it names, as editors do.
		if fi, err = os.Stat(path); err != nil {
			return nil, 0, false, err
		}
	}
	if fi.IsDir() {
		return nil, 0, false, fmt.Errorf("%s is a directory", path)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := os.ReadFile(path)
	return data, fi.Mode().Perm(), true, err
}

func (pathOps) lexists(path string) (bool, error) {
	_, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (pathOps) mkdir(dir string) error { return os.Mkdir(dir, 0o755) }

func (pathOps) writeFile(path string, content []byte, mode fs.FileMode) error {
	return writeAtomic(path, content, mode)
}

func (pathOps) remove(path string) error { return os.Remove(path) }

func (pathOps) rename(from, to string) error { return os.Rename(from, to) }

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

// rootOf returns the root that contains path, and path relative to it.
func rootOf(roots []string, path string) (root, rel string, ok bool) {
	path = filepath.Clean(path)
	for _, r := range roots {
		if path == r {
			return r, ".", true
		}
		if strings.HasPrefix(path, r+string(filepath.Separator)) {
			if len(r) > len(root) {
				root, rel, ok = r, path[len(r)+1:], true
			}
		}
	}
	return root, rel, ok
}

// errOutside is returned for a change outside every root.
var errOutside = errors.New("outside the directories Reasonix may write")

// MemFileInfo describes a regular file of size bytes held in memory (an
// editor's buffer, a proposed text) rather than on a disk.
func MemFileInfo(name string, size int64) fs.FileInfo {
	return memInfo{name: name, size: size}
}

type memInfo struct {
	name string
	size int64
}

func (m memInfo) Name() string       { return m.name }
func (m memInfo) Size() int64        { return m.size }
func (m memInfo) Mode() fs.FileMode  { return 0o644 }
func (m memInfo) ModTime() time.Time { return time.Time{} }
func (m memInfo) IsDir() bool        { return false }
func (m memInfo) Sys() any           { return nil }
