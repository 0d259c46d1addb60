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
// Directories are read by a pool of workers bounded by GOMAXPROCS, and the
// visit function runs on those workers, so a search can read and scan the
// files as they are found rather than after the walk. Order is not
// defined: callers sort what they keep.
package walk

import (
	"context"
	"fmt"
	"io/fs"
	"os"
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
	// Skip, when set, is asked about every entry, with its absolute path,
	// before anything else; true leaves the entry out, and a directory is
	// then never read. It is called concurrently. Callers use it to keep
	// out of directories they may not read.
	Skip func(path string, isDir bool) bool
	// Dirs reports directories (other than the root) to the visit
	// function too, before their content. Returning SkipDir for one
	// prunes it.
	Dirs bool
}

// SkipDir, returned by the visit function for a directory, leaves it out.
var SkipDir = fs.SkipDir

// SkipAll, returned by the visit function, ends the walk early; Walk then
// returns nil. Calls already under way on other workers still finish.
var SkipAll = fs.SkipAll

// Entry is a file (or, with Options.Dirs, a directory) found by a walk.
type Entry struct {
	// Path is the walk's root joined with the entry's path below it.
	Path string
	// Type holds the type bits from the directory listing; the walk makes
	// no stat call. A symbolic link is reported as a link, whatever it
	// points to.
	Type fs.FileMode

	relOff int // where the path below the root starts in Path
	d      fs.DirEntry
}

// Name is the entry's base name.
func (e Entry) Name() string { return e.d.Name() }

// Rel is the entry's path relative to the walk's root, slash-separated.
func (e Entry) Rel() string { return filepath.ToSlash(e.Path[e.relOff:]) }

// Info returns the entry's FileInfo, from an lstat made on first use.
func (e Entry) Info() (fs.FileInfo, error) { return e.d.Info() }

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
	fi, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("walk: %s is not a directory", root)
	}
	w := &walker{ctx: ctx, opts: opts, visit: visit, root: root}
	w.cond.L = &w.mu
	w.prefix = root
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		w.prefix += string(filepath.Separator)
	}
	var r *rules
	if !opts.NoIgnore {
		r, _ = loadRules(root, opts.Ceiling, opts.Skip)
	}
	w.stack = []task{{dir: root, rules: r}}
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

// A task is a directory to read, or a batch of files to visit.
type task struct {
	dir   string
	rules *rules  // the rules from above dir; readDir adds dir's own ignore file
	files []Entry // a batch of files, when not nil
}

// walker is the shared state of one walk. Workers take tasks from a
// stack (depth first keeps it short) and push the subdirectories and file
// batches they find.
type walker struct {
	ctx    context.Context
	opts   Options
	visit  func(Entry) error
	root   string
	prefix string // root with a trailing separator

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
	}
	w.mu.Unlock()
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
	clear(w.stack)
	w.stack = nil
	if w.pending == 0 && w.idle > 0 {
		w.cond.Broadcast()
	}
}

func (w *walker) run(t task) {
	if w.stopped.Load() {
		return
	}
	if err := w.ctx.Err(); err != nil {
		w.stop(err)
		return
	}
	if t.files != nil {
		w.visitFiles(t.files)
		return
	}
	files, more, err := w.readDir(t)
	if err != nil {
		// Only the root must be readable; a subdirectory that vanished
		// or is closed to us is left out.
		if t.dir == w.root {
			w.stop(err)
		}
		return
	}
	// Share all but the first batch of files, then visit that one here.
	for len(files) > batchSize {
		n := len(files) - batchSize
		n -= n % batchSize
		more = append(more, task{files: files[n:]})
		files = files[:n]
	}
	w.push(more)
	w.visitFiles(files)
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

// readDir lists one directory, applies the ignore rules and returns its
// files and a task for each subdirectory. The error is the directory's
// read error; an error from visiting a subdirectory stops the walk here.
func (w *walker) readDir(t task) (files []Entry, subdirs []task, err error) {
	f, err := os.Open(t.dir)
	if err != nil {
		return nil, nil, err
	}
	// ReadDir(-1) on the open file, unlike os.ReadDir, does not sort:
	// order is the caller's business.
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil && len(ents) == 0 {
		return nil, nil, err
	}

	prefix := w.prefix
	if t.dir != w.root {
		prefix = t.dir + string(filepath.Separator)
	}
	r := t.rules
	if !w.opts.NoIgnore && t.dir != w.root {
		// The root's own rules came from loadRules.
		hasGit, hasIgnore := false, false
		for _, e := range ents {
			switch e.Name() {
			case gitDir:
				hasGit = true
			case ignoreFile:
				hasIgnore = true
			}
		}
		if hasGit {
			// A nested repository: git run inside it would not see
			// the outer ignore files.
			r = repoRules(t.dir, w.opts.Skip)
		}
		if hasIgnore {
			r = r.withIgnoreFile(t.dir, w.opts.Skip)
		}
	}

	for _, d := range ents {
		name := d.Name()
		typ := d.Type()
		isDir := typ.IsDir()
		if isDir && isVCSDir(name) {
			continue
		}
		path := prefix + name
		if w.opts.Skip != nil && w.opts.Skip(path, isDir) {
			continue
		}
		if !w.opts.NoIgnore && r != nil && r.ignored(path, isDir) {
			continue
		}
		e := Entry{Path: path, Type: typ, relOff: len(w.prefix), d: d}
		if !isDir {
			files = append(files, e)
			continue
		}
		if w.opts.Dirs {
			if err := w.visit(e); err == SkipDir {
				continue
			} else if err != nil {
				w.stop(err)
				return nil, nil, nil
			}
		}
		subdirs = append(subdirs, task{dir: path, rules: r})
	}
	return files, subdirs, nil
}
