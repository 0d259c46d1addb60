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
)

// ControlWatch keeps Reasonix's control files (its configuration, a
// repository's hooks: see sandbox.Policy.Protect) as they were around a
// call that can change files without going through FS — a shell command,
// an MCP server's tool. What such a call changed there is put back.
//
// Where the system allows it, the shell sandbox already mounts the
// control paths that exist read-only; the watch is what catches the rest:
// a control file created where there was none (a new reasonix.toml), or
// any change where the sandbox could not mount.
type ControlWatch struct {
	// Paths are the control paths, absolute and clean.
	Paths []string
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
}

type watchEntry struct {
	mode fs.FileMode // type and permission bits
	data []byte      // a regular file's content, when kept
	kept bool        // data is the whole content
	link string      // a symbolic link's target
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

// Snapshot records the control paths as they are now. A nil watch
// records nothing.
func (w *ControlWatch) Snapshot() *ControlState {
	if w == nil {
		return &ControlState{entries: map[string]watchEntry{}}
	}
	return snapshot(w.Paths)
}

// snapshot records paths and everything below them.
func snapshot(paths []string) *ControlState {
	s := &ControlState{entries: map[string]watchEntry{}}
	files, size := 0, 0
	for _, p := range paths {
		_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // gone, or closed to us: nothing to keep
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			e := watchEntry{mode: info.Mode().Type() | info.Mode().Perm()}
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				e.link, _ = os.Readlink(path)
			case info.Mode().IsRegular():
				files++
				if files <= watchMaxFiles && size+int(info.Size()) <= watchMaxBytes {
					if b, err := os.ReadFile(path); err == nil {
						e.data, e.kept = b, true
						size += len(b)
					}
				}
			}
			s.entries[path] = e
			return nil
		})
	}
	return s
}

// Restore compares the control paths with before and undoes every
// difference, except under the paths keep reports (changes a call made
// with the user's approval). It returns the paths that had changed,
// sorted, whether or not they could be put back; err says what could
// not be.
func (w *ControlWatch) Restore(ctx context.Context, before *ControlState, keep func(path string) bool) (changed []string, err error) {
	if w == nil || before == nil {
		return nil, nil
	}
	now := w.Snapshot()
	kept := func(p string) bool { return keep != nil && keep(p) }
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
	for p := range before.entries {
		if _, ok := now.entries[p]; !ok && !kept(p) {
			removed = append(removed, p)
		}
	}
	changed = append(append(append(changed, added...), removed...), modified...)
	if len(changed) == 0 {
		return nil, nil
	}
	sort.Strings(changed)

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
	return changed, errors.Join(errs...)
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
		for q := range w.held.entries {
			if q == p || strings.HasPrefix(q, p+string(filepath.Separator)) {
				delete(w.held.entries, q)
			}
		}
		for q, e := range snapshot([]string{p}).entries {
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
		w.Hold(w.Snapshot())
	}
	if res.Notice == "" {
		return "", ""
	}
	return strings.Replace(strings.TrimSpace(res.Content), "this call", "a process left running by an earlier command", 1), res.Notice
}

// Under reports whether path is one of the watch's paths or below one.
func (w *ControlWatch) Under(path string) bool {
	if w == nil {
		return false
	}
	return w.under(path)
}

func (w *ControlWatch) under(path string) bool {
	return slices.ContainsFunc(w.Paths, func(c string) bool {
		return path == c || strings.HasPrefix(path, c+string(filepath.Separator))
	})
}

// Undo puts back what a call changed among the control paths since
// before, and amends res to tell the model and the user. Changes to paths
// the call reports in res.Changed went through FS, and were approved
// there; they stay.
func (w *ControlWatch) Undo(ctx context.Context, before *ControlState, res *Result, rel func(string) string) {
	if w == nil {
		return
	}
	changed, err := w.Restore(ctx, before, func(p string) bool { return slices.Contains(res.Changed, p) })
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
