package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reasonix/reasonix/tools/walk"
)

// Bounds of a Tracker's listings.
const (
	// DefaultMaxTracked bounds the files a Tracker keeps: its first
	// listing stops past it, and tracking is then off (and said so).
	// At about 45 bytes a file kept (see entries), about 90 MB at the
	// bound.
	DefaultMaxTracked = 2_000_000
	// DefaultBaselineTimeout bounds the first listing, which is paid
	// once for the Tracker's life rather than around every command.
	DefaultBaselineTimeout = time.Minute
)

// ErrOff is wrapped by the errors of a Tracker whose tracking is off:
// its first listing could not be made, or a later one failed.
var ErrOff = errors.New("file changes are not tracked")

// A Tracker learns which files shell commands change, for as long as it
// lives (an agent's life), at a cost that does not grow with the tree.
//
// Its first Sync lists the workspace once, as Take does; that listing is
// the baseline. Every later Sync reads only what changed since: on Linux
// an inotify watch on every listed directory names the entries that had
// events, and only those are looked at again (a directory that appears
// is listed whole), compared with the baseline, which is then brought
// up to date. Where the events cannot be trusted
// (the kernel's queue overflowed, a watch could not be added, a
// listing failed half-way), Sync falls back to a full listing, bounded
// as Take is, and says so in Changes.Notice: it fails closed, never
// reporting "nothing changed" for lost events. Elsewhere than Linux
// every Sync is such a listing, without a notice, as before.
//
// The same skip rules, ignore files and control names hold as in Take:
// a directory is listed by the same walk, rooted there, with the ignore
// rules in force at that directory.
//
// Changes made by anyone else while a command runs (the user, the
// editor) are indistinguishable from the command's, as with snapshots.
type Tracker struct {
	root string
	opts Options

	// keepMu serializes Keeper, so that one base is read at a time.
	keepMu sync.Mutex

	mu sync.Mutex // guards the fields below and the events source
	// dirs holds every directory listed, by its path (root as given
	// joined with the path below it), with what it holds.
	dirs map[string]*dirState
	// control holds the files that are control paths; repos the .git
	// directories found.
	control map[string]bool
	repos   map[string]bool
	// ready says the baseline is taken; off says tracking is off, for
	// offErr; closed that Close was called.
	ready  bool
	off    bool
	offErr error
	closed bool
	// ev is the source of events, nil where there is none (not Linux,
	// closed, or a watch could not be added): every Sync then lists the
	// whole workspace.
	ev *events
	// windows are the windows open.
	windows map[*Window]bool
	// wds maps each watch to its directory, wdOf back.
	wds  map[int32]string
	wdOf map[string]int32

	// kept is the base of later Keepers (see Keeper), read with
	// keptOpts; stale holds the paths Syncs reported since its files
	// were listed, nil before; rebasing is the base's reading anew
	// under way in the background, if any.
	kept     *Keeper
	keptOpts KeepOptions
	stale    map[string]bool
	rebasing *rebase
}

// A dirState is what a Tracker knows of one listed directory: its files
// and subdirectories. Names are kept per directory, so a path's
// directory part is stored once.
type dirState struct {
	files entries[fileStat]
	subs  entries[struct{}]
}

// fileStat is what a comparison needs of a file, packed in 16 bytes:
// the size above the type bits of its mode (shifted down: they are the
// mode's high bits), and the modification time in nanoseconds.
type fileStat struct {
	sizeType uint64
	mtime    int64
}

// typeShift moves fs.ModeType's bits, the highest of a mode, down.
const typeShift = 19

func statOf(info fs.FileInfo) fileStat {
	return fileStat{
		sizeType: uint64(info.Size())<<(32-typeShift) | uint64(info.Mode().Type()>>typeShift),
		mtime:    info.ModTime().UnixNano(),
	}
}

func (s fileStat) size() int64 { return int64(s.sizeType >> (32 - typeShift)) }
func (s fileStat) mode() fs.FileMode {
	return fs.FileMode(s.sizeType&(1<<(32-typeShift)-1)) << typeShift
}

// Changes are what one Sync found.
type Changes struct {
	Diffs []Difference
	// NewRepos are the .git directories that appeared.
	NewRepos []string
	// Notice, when set, says tracking was not done the cheap way, or
	// not at all: for the user and the model alike.
	Notice string
}

// NewTracker returns a Tracker of root; nothing is listed before the
// first Sync. opts.MaxFiles bounds every full listing, the first
// included (zero means DefaultMaxTracked, not DefaultMaxFiles: a
// Tracker's commands do not pay for the files); opts.Timeout bounds
// those of the fallback, and DefaultBaselineTimeout the first.
func NewTracker(root string, opts Options) *Tracker {
	return &Tracker{root: filepath.Clean(root), opts: opts}
}

// Sync brings the Tracker's view of the workspace up to date and returns
// what differs from its view before. The first call lists the whole
// workspace and reports nothing. Once tracking is off, Sync returns an
// error wrapping ErrOff.
func (t *Tracker) Sync(ctx context.Context) (Changes, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, err := t.sync(ctx)
	if t.stale != nil {
		for _, d := range c.Diffs {
			t.stale[d.Path] = true
		}
	}
	for w := range t.windows {
		w.c.Diffs = append(w.c.Diffs, c.Diffs...)
		w.c.NewRepos = append(w.c.NewRepos, c.NewRepos...)
		w.c.Notice = joinNotice(w.c.Notice, c.Notice)
	}
	return c, err
}

// A Window collects what changes between its Begin and its End, whatever
// other windows sync meanwhile: the commands of parallel tasks, or of
// several sessions, share one Tracker.
type Window struct {
	c Changes // guarded by the Tracker's mu
}

// Begin syncs and opens a window.
func (t *Tracker) Begin(ctx context.Context) (*Window, Changes, error) {
	c, err := t.Sync(ctx)
	if err != nil {
		return nil, c, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	w := &Window{}
	if t.windows == nil {
		t.windows = map[*Window]bool{}
	}
	t.windows[w] = true
	return w, c, nil
}

// End syncs, closes w and returns what changed while it was open, each
// path once.
func (t *Tracker) End(ctx context.Context, w *Window) (Changes, error) {
	_, err := t.Sync(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.windows, w)
	c := w.c
	c.Diffs = merge(c.Diffs)
	return c, err
}

func joinNotice(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || a == b:
		return a
	}
	return a + "; " + b
}

func (t *Tracker) sync(ctx context.Context) (Changes, error) {
	if t.off {
		return Changes{}, t.offErr
	}
	if !t.ready {
		return t.baseline(ctx)
	}
	var c Changes
	var err error
	if t.ev == nil {
		// No events: a full listing, as Take's.
		err = t.full(ctx, &c, t.opts.MaxFiles, t.opts.Timeout)
	} else if reason := t.incremental(ctx, &c); reason != "" {
		// What was found so far is in the state already: the full
		// listing adds the rest.
		c.Notice = "file changes were found by listing the whole workspace: " + reason
		err = t.full(ctx, &c, t.opts.MaxFiles, t.opts.Timeout)
		c.Diffs = merge(c.Diffs)
	}
	if errors.Is(err, errWatch) {
		// The listing is whole; only the watch is not, from now on.
		t.degrade(err)
		c.Notice = degradedNotice + err.Error()
		err = nil
	}
	if err != nil {
		t.turnOff(err)
		return Changes{}, t.offErr
	}
	return c, nil
}

// incremental lists again the directories that had events since the
// last Sync. It returns why it could not, when the events cannot be
// trusted or a listing failed; the caller then lists everything.
func (t *Tracker) incremental(ctx context.Context, c *Changes) string {
	touched, overflow, err := t.ev.drain()
	switch {
	case err != nil:
		return err.Error()
	case overflow:
		return "the kernel's queue of file events overflowed"
	}
	dirs := map[string]map[string]bool{}
	for wd, names := range touched {
		if wd < 0 {
			continue // the queue's own events
		}
		d, ok := t.wds[wd]
		if !ok {
			continue // a watch removed since
		}
		if dirs[d] == nil {
			dirs[d] = names
		} else {
			maps.Copy(dirs[d], names)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, cmpOr(t.opts.Timeout, DefaultTimeout))
	defer cancel()
	// Parents first: a directory dropped with its parent is not listed.
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if t.dirs[d] == nil {
			continue
		}
		var err error
		if names := dirs[d]; len(names) <= maxRestat && !names[""] && !names[ignoreFile] {
			err = t.restat(ctx, d, names, c)
		} else {
			err = t.list(ctx, d, false, names, 0, c)
		}
		if err != nil {
			return err.Error()
		}
	}
	return ""
}

// maxRestat is the most entries of one directory that had events that
// are looked at one by one; past it the directory is listed again.
const maxRestat = 64

// ignoreFile is the name of the files of ignore rules.
const ignoreFile = ".gitignore"

// restat looks again at the entries of the known directory dir named
// names, which had events, judging each as a walk of dir would (the
// skip rule, the ignore rules in force there, the control names), and
// brings the state up to date. A directory that appears is listed
// whole.
func (t *Tracker) restat(ctx context.Context, dir string, names map[string]bool, c *Changes) error {
	real := realDir(dir)
	ld := walk.LoadDir(real, walk.Options{Ceiling: t.root, Skip: t.opts.Skip})
	kept := dir != t.root && ld.Ignored()
	admits := func(name string, isDir bool) bool {
		if t.opts.Skip != nil && t.opts.Skip(filepath.Join(real, name), isDir) {
			return false
		}
		if !kept && ld.IgnoredEntry(name, isDir) {
			return t.opts.Control != nil && t.opts.Control(name)
		}
		return true
	}
	s := t.dirs[dir]
	// The files' changes are made at once, on the way out, whatever
	// happens: the state holds what was found, and c says it.
	var edits []edit[fileStat]
	defer func() { s.files.edit(edits) }()
	for name := range names {
		p := filepath.Join(dir, name)
		info, err := os.Lstat(p)
		exists := err == nil
		isDir := exists && info.IsDir()
		if isDir && isVCSDir(name) {
			// Never walked; a repository's .git is reported.
			if name == ".git" && t.opts.Control != nil {
				t.repo(p, t.opts.Skip == nil || !t.opts.Skip(filepath.Join(real, name), true), c)
			}
			exists = false
		} else if name == ".git" {
			t.repo(p, false, c)
		}
		listed := exists && admits(name, isDir)
		if s.subs.has(name) && (!listed || !isDir) {
			s.subs.delete(name)
			t.drop(p, c)
		}
		if prev, had := s.files.get(name); had && (!listed || isDir) {
			edits = append(edits, edit[fileStat]{name: name, del: true})
			delete(t.control, p)
			c.Diffs = append(c.Diffs, Difference{Path: p, Deleted: true})
		} else if listed && !isDir {
			st := statOf(info)
			switch {
			case !had:
				c.Diffs = append(c.Diffs, Difference{Path: p, Created: true})
			case prev != st:
				c.Diffs = append(c.Diffs, Difference{Path: p})
			}
			edits = append(edits, edit[fileStat]{name: name, v: st})
			if t.opts.Control != nil && t.opts.Control(t.rel(p)) {
				t.control[p] = true
			}
		}
		if listed && isDir {
			// New, or replaced: listed whole.
			s.subs.set(name, struct{}{})
			if err := t.list(ctx, p, true, nil, 0, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// repo records whether the .git directory p is there.
func (t *Tracker) repo(p string, there bool, c *Changes) {
	switch {
	case there && !t.repos[p]:
		t.repos[p] = true
		c.NewRepos = append(c.NewRepos, p)
	case !there:
		delete(t.repos, p)
	}
}

// isVCSDir reports whether a directory named name holds version-control
// metadata, which a walk never enters.
func isVCSDir(name string) bool {
	return name == ".git" || name == ".hg" || name == ".svn"
}

// merge folds the differences found for one path twice (before and
// during a fallback) into one.
func merge(diffs []Difference) []Difference {
	at := map[string]int{}
	var out []Difference
	for _, d := range diffs {
		i, ok := at[d.Path]
		if !ok {
			at[d.Path] = len(out)
			out = append(out, d)
			continue
		}
		out[i].Deleted = d.Deleted
	}
	return out
}

// baseline makes the first listing and starts watching.
func (t *Tracker) baseline(ctx context.Context) (Changes, error) {
	t.dirs = map[string]*dirState{}
	t.control = map[string]bool{}
	t.repos = map[string]bool{}
	t.wds = map[int32]string{}
	t.wdOf = map[string]int32{}
	var c Changes
	if !t.closed {
		ev, err := openEvents()
		switch {
		case err == nil:
			t.ev = ev
		case !errors.Is(err, errNoEvents):
			c.Notice = degradedNotice + err.Error()
		}
	}
	err := t.full(ctx, &c, t.opts.MaxFiles, DefaultBaselineTimeout)
	if errors.Is(err, errWatch) {
		// The listing is whole; only the watch is not.
		t.degrade(err)
		c.Notice = degradedNotice + err.Error()
		err = nil
	}
	if err != nil {
		t.turnOff(err)
		return Changes{}, t.offErr
	}
	t.ready = true
	c.Diffs, c.NewRepos = nil, nil
	return c, nil
}

// degradedNotice heads the notice of a Tracker that stops watching.
const degradedNotice = "file changes will be found by listing the whole workspace around every command: "

// errNoEvents is openEvents' error where the system has no file events.
var errNoEvents = errors.New("no file events on this system")

// errWatch is wrapped by the error of a watch that could not be added.
var errWatch = errors.New("cannot watch")

// degrade stops watching for events: every later Sync lists the whole
// workspace.
func (t *Tracker) degrade(err error) {
	if t.ev != nil {
		t.ev.close()
		t.ev = nil
	}
	clear(t.wds)
	clear(t.wdOf)
}

// watch adds a watch on dir, when there is a source of events. It is
// called with the listing's lock held.
func (t *Tracker) watch(dir string) error {
	if t.ev == nil {
		return nil
	}
	wd, err := t.ev.add(dir)
	if err != nil {
		return fmt.Errorf("%w %s: %w", errWatch, dir, err)
	}
	t.wds[wd] = dir
	t.wdOf[dir] = wd
	return nil
}

// unwatch removes the watch on d, unless its watch now belongs to
// another path (a directory moved within the tree keeps its watch).
func (t *Tracker) unwatch(d string) {
	wd, ok := t.wdOf[d]
	if !ok {
		return
	}
	delete(t.wdOf, d)
	if t.wds[wd] == d {
		delete(t.wds, wd)
		if t.ev != nil {
			t.ev.remove(wd)
		}
	}
}

func (t *Tracker) turnOff(err error) {
	t.off = true
	t.offErr = fmt.Errorf("%w: %w", ErrOff, err)
	t.dirs, t.control, t.repos = nil, nil, nil
	if t.ev != nil {
		t.ev.close()
		t.ev = nil
	}
}

// Close stops watching. A Tracker closed still works, listing the whole
// workspace at every Sync: a copy of its agent may be running a turn.
func (t *Tracker) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	if t.ev != nil {
		t.ev.close()
		t.ev = nil
	}
	return nil
}

// Control returns the control paths the Tracker knows, as
// Snapshot.Control does.
func (t *Tracker) Control() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := slices.Concat(slices.Collect(maps.Keys(t.control)), slices.Collect(maps.Keys(t.repos)))
	slices.Sort(out)
	return out
}

// full lists the whole workspace again and compares it with the state.
func (t *Tracker) full(ctx context.Context, c *Changes, maxFiles int, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, cmpOr(timeout, DefaultTimeout))
	defer cancel()
	err := t.list(ctx, t.root, true, nil, cmpOr(maxFiles, DefaultMaxTracked), c)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("listing the workspace took longer than %s", cmpOr(timeout, DefaultTimeout))
	case err != nil:
		return err
	}
	return nil
}

func cmpOr[T comparable](v, d T) T {
	var zero T
	if v == zero {
		return d
	}
	return v
}

// A listing is one directory's entries as a walk found them, gathered
// compactly: a deep listing holds every directory's until it is
// applied.
type listing struct {
	files gathering[fileStat]
	subs  gathering[struct{}]
	repos []string
}

// list lists dir again: its entries, and every subdirectory it did not
// know (or every one, when deep), whole. touched names the entries of
// dir whose metadata must be read again; nil means all of them. Files
// below the limit are compared with the state, the differences added to
// c, and the state updated. maxFiles, when positive, bounds the files
// listed.
func (t *Tracker) list(ctx context.Context, dir string, deep bool, touched map[string]bool, maxFiles int, c *Changes) error {
	got := map[string]*listing{}
	var mu sync.Mutex // guards got, n, watchErr
	n := 0
	var watchErr error
	ensure := func(d string) *listing {
		l := got[d]
		if l == nil {
			l = &listing{}
			got[d] = l
		}
		return l
	}
	// A directory the walk reached although the ignore rules leave it
	// out was kept for its control name: no rule applies below it.
	kept := false
	if dir != t.root {
		kept = walk.LoadDir(realDir(dir), walk.Options{Ceiling: t.root, Skip: t.opts.Skip}).Ignored()
	}
	// The directory is watched before it is read, so that nothing
	// created meanwhile is missed.
	if err := t.watch(dir); err != nil {
		watchErr = err
	}
	ensure(dir)
	if touched[".gitignore"] {
		// Its rules hold below: what they leave out may have changed
		// anywhere there.
		deep, touched = true, nil
	}
	wopts := walk.Options{Skip: t.opts.Skip, Dirs: true, NoIgnore: kept}
	if dir != t.root {
		wopts.Ceiling = t.root
	}
	if t.opts.Control != nil {
		wopts.Keep = func(name string, _ bool) bool { return t.opts.Control(name) }
		wopts.Repo = func(path string) {
			mu.Lock()
			defer mu.Unlock()
			l := ensure(filepath.Dir(path))
			l.repos = append(l.repos, path)
		}
	}
	old := t.dirs[dir]
	err := walk.Walk(ctx, dir, wopts, func(e walk.Entry) error {
		parent, name := filepath.Dir(e.Path), e.Name()
		if e.Type.IsDir() {
			mu.Lock()
			defer mu.Unlock()
			ensure(parent).subs.add(name, struct{}{})
			if !deep && parent == dir && t.dirs[e.Path] != nil && !touched[name] {
				return walk.SkipDir // known and watched: its events tell
			}
			ensure(e.Path)
			if err := t.watch(e.Path); err != nil && watchErr == nil {
				watchErr = err
			}
			return nil
		}
		var st fileStat
		reuse := false
		if parent == dir && touched != nil && !touched[name] && old != nil {
			st, reuse = old.files.get(name)
		}
		if !reuse {
			info, err := e.Info()
			if err != nil {
				return nil // gone meanwhile
			}
			st = statOf(info)
		}
		mu.Lock()
		defer mu.Unlock()
		if maxFiles > 0 && n >= maxFiles {
			return fmt.Errorf("%w: more than %d", ErrTooLarge, maxFiles)
		}
		n++
		ensure(parent).files.add(name, st)
		return nil
	})
	if err != nil {
		if dir != t.root && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, walk.ErrSkipped)) {
			t.drop(dir, c) // gone: its parent's listing says so too
			return nil
		}
		return err
	}
	// Parents first, so a directory's subtree is dropped before it.
	order := slices.Sorted(maps.Keys(got))
	for _, d := range order {
		t.apply(d, got[d], c)
		delete(got, d) // its memory is the state's now
	}
	if watchErr != nil {
		return watchErr
	}
	return nil
}

// apply replaces what the state holds of directory d by l, adding the
// differences to c.
func (t *Tracker) apply(d string, l *listing, c *Changes) {
	old := t.dirs[d]
	if old == nil {
		old = &dirState{}
		t.dirs[d] = old
	}
	files, subs := l.files.entries(), l.subs.entries()
	compareEntries(&old.files, &files, func(name string, prev fileStat, had bool, st fileStat, has bool) {
		if !t.ready && t.opts.Control == nil {
			return // the baseline reports nothing, and finds no control paths
		}
		p := filepath.Join(d, name)
		if t.ready {
			switch {
			case !has:
				c.Diffs = append(c.Diffs, Difference{Path: p, Deleted: true})
			case !had:
				c.Diffs = append(c.Diffs, Difference{Path: p, Created: true})
			case prev != st:
				c.Diffs = append(c.Diffs, Difference{Path: p})
			}
		}
		switch {
		case !has:
			delete(t.control, p)
		case t.opts.Control != nil && t.opts.Control(t.rel(p)):
			t.control[p] = true
		}
	})
	compareEntries(&old.subs, &subs, func(name string, _ struct{}, had bool, _ struct{}, has bool) {
		if !has {
			t.drop(filepath.Join(d, name), c)
		}
	})
	for r := range t.repos {
		if filepath.Dir(r) == d && !slices.Contains(l.repos, r) {
			delete(t.repos, r)
		}
	}
	for _, r := range l.repos {
		if !t.repos[r] {
			t.repos[r] = true
			if t.ready {
				c.NewRepos = append(c.NewRepos, r)
			}
		}
	}
	old.files, old.subs = files, subs
	if !t.ready {
		c.Diffs = c.Diffs[:0] // the baseline reports nothing
	}
}

// drop forgets directory d and everything below it, reporting its files
// deleted.
func (t *Tracker) drop(d string, c *Changes) {
	s := t.dirs[d]
	if s == nil {
		return
	}
	for name := range s.subs.all() {
		t.drop(filepath.Join(d, name), c)
	}
	for name := range s.files.all() {
		p := filepath.Join(d, name)
		c.Diffs = append(c.Diffs, Difference{Path: p, Deleted: true})
		delete(t.control, p)
	}
	for r := range t.repos {
		if filepath.Dir(r) == d {
			delete(t.repos, r)
		}
	}
	t.unwatch(d)
	delete(t.dirs, d)
}

// regularFiles yields the path and size of every regular file listed,
// until yield returns false. t.mu must be held.
func (t *Tracker) regularFiles(yield func(path string, size int64) bool) {
	for dir, d := range t.dirs {
		for name, st := range d.files.all() {
			if st.mode().IsRegular() && !yield(filepath.Join(dir, name), st.size()) {
				return
			}
		}
	}
}

// rel returns p relative to the root, slash-separated.
func (t *Tracker) rel(p string) string {
	return filepath.ToSlash(strings.TrimPrefix(p[len(t.root):], string(filepath.Separator)))
}

// realDir returns the real path of dir, or dir when it has none.
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}
