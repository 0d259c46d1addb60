// Package walk lists the files of a project the way its developers see
// it: in parallel, leaving out what git would ignore.
//
// A walk honours .gitignore files (a nested one applies to its own
// directory and below, and the deepest file with a matching pattern
// decides) and the repository's .git/info/exclude, skips the .git, .hg and
// .svn directories, and never follows a symbolic link to a directory.
// Hidden files are included. Ignore files are honoured even outside a git
// repository, since an agent's workspace is often not one yet; a nested
// repository starts afresh, with none of the outer rules.
//
// A walk is confined for a caller that must keep out of some paths: the
// root is opened first (following links, as any path a caller names) and
// judged by the real path of what was opened; everything below it is
// opened relative to its open parent directory, one name at a time,
// without following a symbolic link. The real path of every entry is
// therefore the root's real path joined with the entry's path below it,
// and that is the path Options.Skip judges. A directory or file swapped
// for a link while the walk runs fails to open instead of leading the
// walk somewhere it did not judge. Entry.ReadFile reads a file through
// the same confined open.
//
// Directories are read by a pool of workers bounded by GOMAXPROCS, and the
// visit function runs on those workers, so a search can read and scan the
// files as they are found rather than after the walk. Order is not
// defined: callers sort what they keep.
package walk

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Options configure a walk. The zero value walks with GOMAXPROCS workers
// and honours ignore files.
type Options struct {
	// Workers bounds the goroutines that read directories and run the
	// visit function; zero means GOMAXPROCS.
	Workers int
	// Ceiling is where ignore files start to apply when the root is in no
	// git repository: the .gitignore files of Ceiling and of the
	// directories between it and the root are read too. Empty, or a
	// directory that does not contain the root, means the root alone. In
	// a repository the repository's root plays this part.
	Ceiling string
	// NoIgnore walks everything but the version-control directories.
	NoIgnore bool
	// Skip, when set, is asked about every entry, with its real path
	// (absolute and free of symbolic links: see the package comment),
	// before anything else; true leaves the entry out, and a directory is
	// then never read. It is also asked about the root, after opening it,
	// and about every ignore file before reading it. It is called
	// concurrently. Callers use it to keep out of directories they may
	// not read; since the paths are real, a lexical comparison is exact.
	Skip func(path string, isDir bool) bool
	// Withhold, when set, is asked about every entry that Skip and the
	// ignore rules let through, with its real path, and about the root
	// after Skip; true leaves the entry out as Skip does (a directory is
	// then never read). Unlike Skip, it is not asked about the ignore
	// files the walk reads for itself, nor about what the ignore rules
	// leave out anyway: a caller that counts what it withholds counts
	// only what the walk would have shown. It is called concurrently.
	Withhold func(path string, isDir bool) bool
	// Dirs reports directories (other than the root) to the visit
	// function too, before their content. Returning SkipDir for one
	// prunes it.
	Dirs bool
	// Keep, when set, is asked about every entry the ignore rules leave
	// out, by its name; true visits it nonetheless, and a directory is
	// then walked whole, no ignore rule applying below it. A caller that
	// must see certain names wherever they are (Reasonix's control
	// files, often in .gitignore) uses it.
	Keep func(name string, isDir bool) bool
	// Repo, when set, is called with the path of each .git directory
	// the walk finds (and, as every version-control directory, does not
	// go into), the root's own included. It is called concurrently.
	Repo func(path string)
}

// SkipDir, returned by the visit function for a directory, leaves it out.
var SkipDir = fs.SkipDir

// SkipAll, returned by the visit function, ends the walk early; Walk then
// returns nil. Calls already under way on other workers still finish.
var SkipAll = fs.SkipAll

// ErrSkipped is wrapped by Walk's error when Options.Skip or
// Options.Withhold leaves out the root itself; the error is an
// *fs.PathError holding the root's real path.
var ErrSkipped = errors.New("left out of the walk")

var errChanged = errors.New("the file changed while it was being opened")

// Entry is a file (or, with Options.Dirs, a directory) found by a walk.
// Its methods other than Name and Rel work only during the visit call
// that received it.
type Entry struct {
	// Path is the walk's root, as given, joined with the entry's path
	// below it.
	Path string
	// Type holds the type bits from the directory listing; the walk makes
	// no stat call. A symbolic link is reported as a link, whatever it
	// points to.
	Type fs.FileMode

	relOff int    // where the path below the root starts in Path
	name   string // the entry's base name
	dir    *dir   // the open directory that holds the entry
}

// A dirent is one entry of a directory listing: its name and the type
// bits the listing gave.
type dirent struct {
	name string
	typ  fs.FileMode
}

// Name is the entry's base name.
func (e Entry) Name() string { return e.name }

// Rel is the entry's path relative to the walk's root, slash-separated.
func (e Entry) Rel() string { return filepath.ToSlash(e.Path[e.relOff:]) }

// Info returns the entry's FileInfo, from an lstat of the entry made on
// each call, relative to its open directory where the system allows (see
// ReadFile). It is metadata only: no content is read.
func (e Entry) Info() (fs.FileInfo, error) { return e.dir.info(e.name, e.Path) }

// ReadFile reads the entry's content into buf's storage, as ReadAll
// does, through the walk's confined open: the entry is opened relative to
// its open directory and not followed if it is now a symbolic link, so
// what is read is the file the walk listed and judged. A file longer than
// limit, when limit is positive, fails with ErrTooLarge.
func (e Entry) ReadFile(buf []byte, limit int) ([]byte, error) {
	return e.dir.readFile(e.name, e.Path, buf, limit)
}

// Walk calls visit for every file below root that the ignore rules let
// through, and for every such directory when opts.Dirs is set. "File"
// means any entry that is not a directory: regular files, symbolic links
// (to anything), devices and so on; check Entry.Type.
//
// visit runs concurrently on up to opts.Workers goroutines. The first
// error it returns ends the walk and is returned, except SkipAll, which
// ends it quietly. Walk also ends when ctx does, returning ctx.Err().
// Directories that cannot be read are skipped, except root itself.
func Walk(ctx context.Context, root string, opts Options, visit func(Entry) error) error {
	root = filepath.Clean(root)
	d, real, err := openRoot(root)
	if err != nil {
		return err
	}
	if opts.Skip != nil && opts.Skip(real, true) || opts.Withhold != nil && opts.Withhold(real, true) {
		d.release()
		return &fs.PathError{Op: "open", Path: real, Err: ErrSkipped}
	}
	w := &walker{ctx: ctx, opts: opts, visit: visit, root: d}
	w.cond.L = &w.mu
	w.prefix = withSep(real)
	w.shown = withSep(root)
	var r *rules
	if !opts.NoIgnore {
		r, _ = loadRules(real, opts.Ceiling, opts.Skip)
	}
	w.stack = []task{{dir: d, path: real, rules: r}}
	w.pending = 1

	n := opts.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for range n - 1 {
		wg.Go(w.work)
	}
	w.work()
	wg.Wait()
	return w.err
}

// batchSize is how many files of one directory a worker visits before it
// lets others help: a directory of thousands of files is then spread over
// the pool instead of finishing last on one worker.
const batchSize = 32

// withSep returns path with a trailing separator.
func withSep(path string) string {
	if strings.HasSuffix(path, string(filepath.Separator)) {
		return path
	}
	return path + string(filepath.Separator)
}

// A task is a directory to read, or a batch of files to visit. It holds
// one reference to dir.
type task struct {
	dir   *dir
	name  string // the subdirectory of dir to open and read; "" reads dir itself
	path  string // the real path of the directory to read
	rules *rules // the rules from above it; readDir adds its own ignore file
	keep  bool   // Options.Keep kept the directory or one above it: no rule applies
	files []Entry
}

// walker is the shared state of one walk. Workers take tasks from a
// stack (depth first keeps it short) and push the subdirectories and file
// batches they find.
type walker struct {
	ctx    context.Context
	opts   Options
	visit  func(Entry) error
	root   *dir
	prefix string // the root's real path, with a trailing separator
	shown  string // the root as given, with a trailing separator

	stopped atomic.Bool // set once the walk is failing or done early

	mu      sync.Mutex // guards the fields below
	cond    sync.Cond  // signalled when work arrives or the walk ends
	stack   []task
	pending int // tasks queued or under way
	idle    int // workers waiting on cond
	err     error
}

func (w *walker) work() {
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && w.pending > 0 {
			w.idle++
			w.cond.Wait()
			w.idle--
		}
		if len(w.stack) == 0 {
			w.mu.Unlock()
			return
		}
		t := w.stack[len(w.stack)-1]
		w.stack[len(w.stack)-1] = task{}
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()

		w.run(t)

		w.mu.Lock()
		w.pending--
		if w.pending == 0 && w.idle > 0 {
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}
}

// push queues tasks for any worker.
func (w *walker) push(ts []task) {
	if len(ts) == 0 {
		return
	}
	w.mu.Lock()
	if !w.stopped.Load() {
		w.stack = append(w.stack, ts...)
		w.pending += len(ts)
		if w.idle > 0 {
			w.cond.Broadcast()
		}
	} else {
		drop(ts)
	}
	w.mu.Unlock()
}

// drop releases tasks that will not run.
func drop(ts []task) {
	for _, t := range ts {
		t.dir.release()
	}
}

// stop ends the walk with err (nil for an early, successful end): queued
// tasks are dropped and running ones finish.
func (w *walker) stop(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped.Load() {
		return
	}
	w.stopped.Store(true)
	if err != SkipAll {
		w.err = err
	}
	w.pending -= len(w.stack)
	drop(w.stack)
	clear(w.stack)
	w.stack = nil
	if w.pending == 0 && w.idle > 0 {
		w.cond.Broadcast()
	}
}

func (w *walker) run(t task) {
	d := t.dir
	if t.name != "" && w.live() {
		// Open the subdirectory; its parent is then no longer needed
		// by this task. One that vanished, is closed to us or was
		// swapped for a link is left out.
		sub, err := d.sub(t.name, t.path)
		d.release()
		if err != nil {
			return
		}
		d = sub
	}
	defer d.release()
	if !w.live() {
		return
	}
	if t.files != nil {
		w.visitFiles(t.files)
		return
	}
	files, more, err := w.readDir(d, t)
	if err != nil {
		// Only the root must be readable.
		if d == w.root {
			w.stop(err)
		}
		return
	}
	// Share all but the first batch of files, then visit that one here.
	for len(files) > batchSize {
		n := len(files) - batchSize
		n -= n % batchSize
		d.hold()
		more = append(more, task{dir: d, files: files[n:]})
		files = files[:n]
	}
	w.push(more)
	w.visitFiles(files)
}

// live reports whether the walk goes on, stopping it if ctx is done.
func (w *walker) live() bool {
	if w.stopped.Load() {
		return false
	}
	if err := w.ctx.Err(); err != nil {
		w.stop(err)
		return false
	}
	return true
}

func (w *walker) visitFiles(files []Entry) {
	for _, e := range files {
		if w.stopped.Load() {
			return
		}
		if err := w.visit(e); err != nil && err != SkipDir {
			w.stop(err)
			return
		}
	}
}

// readDir lists d, the directory of task t, applies the ignore rules and
// returns its files and a task for each subdirectory. The error is the
// directory's read error; an error from visiting a subdirectory stops the
// walk here.
func (w *walker) readDir(d *dir, t task) (files []Entry, subdirs []task, err error) {
	// Unlike os.ReadDir, this does not sort: order is the caller's
	// business.
	ents, err := d.list()
	if err != nil && len(ents) == 0 {
		return nil, nil, err
	}

	prefix := w.prefix
	if d != w.root {
		prefix = t.path + string(filepath.Separator)
	}
	// When the root was given by its real path, an entry's real path is
	// also the path the caller sees.
	same := w.shown == w.prefix
	r := t.rules
	if !w.opts.NoIgnore && d != w.root && !t.keep {
		// The root's own rules came from loadRules.
		hasGit, hasIgnore := false, false
		for _, e := range ents {
			switch e.name {
			case gitDir:
				hasGit = true
			case ignoreFile:
				hasIgnore = true
			}
		}
		if hasGit {
			// A nested repository: git run inside it would not see
			// the outer ignore files.
			r = repoRules(t.path, w.opts.Skip)
		}
		if hasIgnore {
			name := prefix + ignoreFile
			if w.opts.Skip == nil || !w.opts.Skip(name, false) {
				data, _ := d.readFile(ignoreFile, name, nil, 0)
				r = r.with(t.path, data)
			}
		}
	}

	files = make([]Entry, 0, len(ents))
	for _, de := range ents {
		name := de.name
		typ := de.typ
		isDir := typ.IsDir()
		path := prefix + name
		shown := path
		if !same {
			shown = w.shown + path[len(w.prefix):]
		}
		if isDir && isVCSDir(name) {
			if name == gitDir && w.opts.Repo != nil && (w.opts.Skip == nil || !w.opts.Skip(path, true)) {
				w.opts.Repo(shown)
			}
			continue
		}
		if w.opts.Skip != nil && w.opts.Skip(path, isDir) {
			continue
		}
		keep := t.keep
		if !w.opts.NoIgnore && r != nil && !keep && r.ignored(path, isDir) {
			if w.opts.Keep == nil || !w.opts.Keep(name, isDir) {
				continue
			}
			keep = true
		}
		if w.opts.Withhold != nil && w.opts.Withhold(path, isDir) {
			continue
		}
		e := Entry{Path: shown, Type: typ, relOff: len(w.shown), name: name, dir: d}
		if !isDir {
			files = append(files, e)
			continue
		}
		if w.opts.Dirs {
			if err := w.visit(e); err == SkipDir {
				continue
			} else if err != nil {
				drop(subdirs)
				w.stop(err)
				return nil, nil, nil
			}
		}
		d.hold()
		subdirs = append(subdirs, task{dir: d, name: name, path: path, rules: r, keep: keep})
	}
	return files, subdirs, nil
}
