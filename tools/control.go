package tools

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/tools/gitdir"
	"github.com/reasonix/reasonix/tools/permission"
)

// ControlWatch keeps Reasonix's control files (its configuration, a
// repository's hooks: see sandbox.Policy.Protect) as they were around a
// call that can change files without going through FS — a shell command,
// an MCP server's tool. What such a call changed there is put back.
//
// Where the system allows it, the shell sandbox already mounts the
// control paths that exist read-only; the watch is what catches the rest:
// a control file created where there was none (a new reasonix.toml, a
// .git/commondir), or any change where the sandbox could not mount.
//
// Three kinds of path are watched. Paths are kept whole. GitDirs are
// kept only in what git takes configuration, hooks and attributes from
// (gitdir.Walk), so that the cost does not grow with the repository's
// history and what a commit writes is left alone. And below Root, a path
// is a control path by its names, at any depth (permission.ControlRoot:
// `pkg/reasonix.toml`, `vendor/x/.git`): the watch never walks the
// workspace to find those, but learns from its caller which exist before
// a call (Snapshot's known) and which the call changed (Restore's
// changed) — the shell's change tracking, which lists the workspace
// around each command anyway.
type ControlWatch struct {
	// Paths are the control paths kept whole, absolute and clean.
	Paths []string
	// GitDirs are git directories, absolute and clean.
	GitDirs []string
	// Root is the workspace, absolute and clean; "" watches no path by
	// its names.
	Root string
	// Disk makes the repairs; its Roots keep them inside the
	// directories Reasonix may write, without following links.
	Disk DiskFS

	mu sync.Mutex // guards held
	// held is the state the control paths must keep while a command
	// left processes running in the background (see Hold).
	held *ControlState
}

// Watch limits: what a control directory may hold for the watch to keep
// it whole. Beyond them, changes are still found but not all undone.
const (
	watchMaxFiles = 2000
	watchMaxBytes = 8 << 20
)

// ControlState is the state of the control paths at one moment.
type ControlState struct {
	entries map[string]watchEntry
	// nested are the control paths below the watch's Root, beyond its
	// Paths and GitDirs, that the state covers (see nestedRoots).
	nested []string
}

type watchEntry struct {
	mode fs.FileMode // type and permission bits
	data []byte      // a regular file's content, when kept
	kept bool        // data is the whole content
	link string      // a symbolic link's target
	// repo is the git directory the entry was found in as a nested
	// repository's, "" for any other.
	repo string
}

func (e watchEntry) same(o watchEntry) bool {
	if e.mode != o.mode || e.link != o.link {
		return false
	}
	if e.mode.IsRegular() {
		return e.kept && o.kept && bytes.Equal(e.data, o.data)
	}
	return true
}

// Snapshot records the control paths as they are now. known are paths
// below Root that exist now and are control paths by their names (any
// others are left out): those the shell's change tracking listed, whose
// state the watch could not know otherwise. A nil watch records nothing.
func (w *ControlWatch) Snapshot(known ...string) *ControlState {
	if w == nil {
		return &ControlState{entries: map[string]watchEntry{}}
	}
	return w.snapshot(w.nestedRoots(nil, known))
}

// snapshot records the watch's paths and the nested control paths.
func (w *ControlWatch) snapshot(nested []string) *ControlState {
	s := &ControlState{entries: map[string]watchEntry{}, nested: nested}
	r := recorder{s: s}
	for _, p := range w.Paths {
		r.whole(p)
	}
	for _, g := range w.GitDirs {
		r.git(g, "")
	}
	for _, n := range nested {
		if !strings.EqualFold(filepath.Base(n), ".git") {
			r.whole(n)
			continue
		}
		// A nested repository: its .git file, if it is one, whole;
		// and what git takes configuration and hooks from in the
		// directories it uses.
		pointer, dirs := gitdir.Repo(n)
		if pointer != "" {
			r.whole(pointer)
		}
		for _, g := range dirs {
			r.git(g, n)
		}
	}
	return s
}

// nestedRoots returns the control paths that paths (below Root) are or
// lie in, less those the watch's Paths and GitDirs cover, added to have.
func (w *ControlWatch) nestedRoots(have, paths []string) []string {
	out := slices.Clone(have)
	for _, p := range paths {
		if r, ok := w.nestedRoot(p); ok && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// nestedRoot returns the control path below Root that p is or lies in,
// by its names (permission.ControlRoot), unless Paths or GitDirs cover
// it.
func (w *ControlWatch) nestedRoot(p string) (string, bool) {
	if w.Root == "" {
		return "", false
	}
	rel, err := filepath.Rel(w.Root, p)
	if err != nil {
		return "", false
	}
	r, ok := permission.ControlRoot(rel)
	if !ok {
		return "", false
	}
	r = filepath.Join(w.Root, r)
	return r, !w.covers(r)
}

// covers reports whether path is one of the watch's Paths or GitDirs, or
// below one.
func (w *ControlWatch) covers(path string) bool {
	return slices.ContainsFunc(slices.Concat(w.Paths, w.GitDirs), func(c string) bool {
		return path == c || strings.HasPrefix(path, c+string(filepath.Separator))
	})
}

// A recorder fills a state, within the watch limits.
type recorder struct {
	s           *ControlState
	files, size int
}

// whole records p and everything below it.
func (r *recorder) whole(p string) {
	_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone, or closed to us: nothing to keep
		}
		r.add(path, d, "")
		return nil
	})
}

// git records what git takes configuration and hooks from in the git
// directory g; repo names the nested repository it serves, if any.
func (r *recorder) git(g, repo string) {
	_ = gitdir.Walk(g, func(path string, d fs.DirEntry) error {
		r.add(path, d, repo)
		return nil
	})
}

// add records one entry, once: a submodule's git directory may be
// reached through the repository's and through the submodule's .git.
func (r *recorder) add(path string, d fs.DirEntry, repo string) {
	if _, ok := r.s.entries[path]; ok {
		return
	}
	info, err := d.Info()
	if err != nil {
		return
	}
	e := watchEntry{mode: info.Mode().Type() | info.Mode().Perm(), repo: repo}
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		e.link, _ = os.Readlink(path)
	case info.Mode().IsRegular():
		r.files++
		if r.files <= watchMaxFiles && r.size+int(info.Size()) <= watchMaxBytes {
			if b, err := os.ReadFile(path); err == nil {
				e.data, e.kept = b, true
				r.size += len(b)
			}
		}
	}
	r.s.entries[path] = e
}

// Restore compares the control paths with before and undoes every
// difference, except under the paths keep reports (changes a call made
// with the user's approval). changed are the files below Root the call
// created, changed or deleted, as the shell's change tracking saw them:
// among them, control paths by their names that before did not cover are
// undone too — a file created is removed; one that existed, whose content
// before is not known, is reported as not put back. Restore returns the
// paths that had changed, sorted, whether or not they could be put back;
// err says what could not be.
func (w *ControlWatch) Restore(ctx context.Context, before *ControlState, keep func(path string) bool, changed ...PathChange) ([]string, error) {
	if w == nil || before == nil {
		return nil, nil
	}
	kept := func(p string) bool { return keep != nil && keep(p) }
	nested := slices.Clone(before.nested)
	var fresh, lost []string
	for _, c := range changed {
		root, ok := w.nestedRoot(c.Path)
		if !ok || slices.Contains(before.nested, root) || kept(c.Path) {
			continue
		}
		fi, err := os.Lstat(c.Path)
		switch {
		case !c.Created:
			lost = append(lost, c.Path)
		case c.Path == root && strings.EqualFold(filepath.Base(c.Path), ".git") && err == nil && fi.IsDir():
			// A repository made by the call: what git would take
			// configuration and hooks from in it is all new.
			nested = append(nested, c.Path)
		case err == nil:
			fresh = append(fresh, c.Path)
		}
	}
	now := w.snapshot(nested)
	var added, removed, modified []string
	for p, e := range now.entries {
		old, ok := before.entries[p]
		switch {
		case kept(p):
		case !ok:
			added = append(added, p)
		case !e.same(old):
			modified = append(modified, p)
		}
	}
	for p, e := range before.entries {
		if _, ok := now.entries[p]; ok || kept(p) {
			continue
		}
		if e.repo != "" {
			if _, err := os.Lstat(e.repo); errors.Is(err, fs.ErrNotExist) {
				continue // the repository went, and what git read there with it
			}
		}
		removed = append(removed, p)
	}
	added = append(added, fresh...)
	all := slices.Concat(added, removed, modified, lost)
	if len(all) == 0 {
		return nil, nil
	}
	sort.Strings(all)

	// Undo: remove what was added, deepest first; then put back what
	// was removed or modified, parents first.
	var errs []error
	sort.Sort(sort.Reverse(sort.StringSlice(added)))
	for _, p := range added {
		if err := w.Disk.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	back := append(removed, modified...)
	sort.Strings(back)
	for _, p := range back {
		var cur *watchEntry
		if e, ok := now.entries[p]; ok {
			cur = &e
		}
		if err := w.put(ctx, p, before.entries[p], cur); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range lost {
		errs = append(errs, &fs.PathError{Op: "restore", Path: p, Err: errors.New("cannot be put back (what it held before was not recorded)")})
	}
	return all, errors.Join(errs...)
}

// Known returns the control paths below the watch's Root, beyond its
// Paths and GitDirs, that s covers: Snapshot(s.Known()...) records the
// same paths again.
func (s *ControlState) Known() []string {
	if s == nil {
		return nil
	}
	return s.nested
}

// put makes p what old says it was; cur is what is there now, nil if
// nothing.
func (w *ControlWatch) put(ctx context.Context, p string, old watchEntry, cur *watchEntry) error {
	if cur != nil && cur.mode.Type() != old.mode.Type() {
		// A file where a directory was, or the reverse: out first. A
		// directory here is empty by now, its entries being "added".
		if err := w.Disk.Remove(p); err != nil {
			return err
		}
		cur = nil
	}
	switch {
	case old.mode.IsDir():
		if cur != nil {
			return nil
		}
		// Writing a placeholder creates the directory and its parents
		// beneath the root; the placeholder then goes.
		tmp := filepath.Join(p, ".reasonix-restore")
		return w.Disk.Apply(ctx, []Change{{Kind: Write, Path: tmp}, {Kind: Delete, Path: tmp}})
	case old.mode.IsRegular() && old.kept:
		if cur != nil && cur.mode.Perm() != old.mode.Perm() {
			// Write keeps an existing file's mode: start afresh.
			if err := w.Disk.Remove(p); err != nil {
				return err
			}
		}
		return w.Disk.Apply(ctx, []Change{{Kind: Write, Path: p, Content: old.data, Mode: old.mode.Perm()}})
	}
	return &fs.PathError{Op: "restore", Path: p, Err: errors.New("cannot be put back (a link, or too large to keep)")}
}

// Hold remembers s as the state the control paths must keep: a command
// left processes running after it returned, and they may still change
// the control files. Settle checks.
func (w *ControlWatch) Hold(s *ControlState) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held = s
}

// Accept takes paths as they are now into the state Hold remembered, so
// that Settle keeps them: they changed with the user's approval (an
// "Always allow" grant written to reasonix.toml, an approved edit).
func (w *ControlWatch) Accept(paths ...string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held == nil {
		return
	}
	for _, p := range paths {
		if !w.under(p) {
			continue
		}
		if !w.covers(p) {
			w.held.nested = w.nestedRoots(w.held.nested, []string{p})
		}
		for q := range w.held.entries {
			if q == p || strings.HasPrefix(q, p+string(filepath.Separator)) {
				delete(w.held.entries, q)
			}
		}
		r := recorder{s: &ControlState{entries: map[string]watchEntry{}}}
		r.whole(p)
		for q, e := range r.s.entries {
			w.held.entries[q] = e
		}
	}
}

// Settle undoes what changed among the control paths since the state
// Hold remembered — the doing of processes a command left running — and
// forgets it unless running reports that such processes remain. It
// returns a note for the model and a notice for the user, both empty
// when nothing had changed.
func (w *ControlWatch) Settle(ctx context.Context, running bool, rel func(string) string) (note, notice string) {
	if w == nil {
		return "", ""
	}
	w.mu.Lock()
	held := w.held
	w.held = nil
	w.mu.Unlock()
	if held == nil {
		return "", ""
	}
	var res Result
	w.Undo(ctx, held, &res, rel)
	if running {
		w.Hold(w.Snapshot(held.Known()...))
	}
	if res.Notice == "" {
		return "", ""
	}
	return strings.Replace(strings.TrimSpace(res.Content), "this call", "a process left running by an earlier command", 1), res.Notice
}

// Under reports whether path is one of the watch's paths or below one,
// or below Root a control path by its names.
func (w *ControlWatch) Under(path string) bool {
	if w == nil {
		return false
	}
	return w.under(path)
}

func (w *ControlWatch) under(path string) bool {
	_, nested := w.nestedRoot(path)
	return nested || w.covers(path)
}

// Undo puts back what a call changed among the control paths since
// before, and amends res to tell the model and the user. Changes to paths
// the call reports in res.Changed went through FS, and were approved
// there; they stay.
//
// changed are the files the call created, changed or deleted below Root
// (see Restore), nil when they are not known.
func (w *ControlWatch) Undo(ctx context.Context, before *ControlState, res *Result, rel func(string) string, files ...PathChange) {
	if w == nil {
		return
	}
	changed, err := w.Restore(ctx, before, func(p string) bool { return slices.Contains(res.Changed, p) }, files...)
	if len(changed) == 0 {
		return
	}
	// A new directory stands for what it holds.
	var names []string
	for i, p := range changed {
		if i > 0 && slices.ContainsFunc(changed[:i], func(q string) bool {
			return strings.HasPrefix(p, q+string(filepath.Separator))
		}) {
			continue
		}
		names = append(names, rel(p))
	}
	list := strings.Join(names, ", ")
	if len(list) > 300 {
		list = list[:300] + "…"
	}
	note := "Note: this call changed Reasonix's control files (" + list + "), which commands and plugins may not change; the changes were undone. Change them with a file tool, which asks the user each time."
	res.Notice = "undid a change to Reasonix's control files: " + list
	if err != nil {
		note = "Note: this call changed Reasonix's control files (" + list + "), which commands and plugins may not change; undoing it failed: " + err.Error()
		res.Notice = "could not undo a change to Reasonix's control files: " + list + ": " + err.Error()
	}
	res.Content = strings.TrimRight(res.Content, "\n") + "\n" + note
}
