package snapshot

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reasonix/reasonix/tools/walk"
)

// Bounds of the texts a Keeper holds.
const (
	// DefaultMaxKeep is the largest file whose text is kept.
	DefaultMaxKeep = 256 << 10
	// DefaultKeepBudget bounds the texts kept in all.
	DefaultKeepBudget = 16 << 20
	// gitTimeout bounds each git command; past it the Keeper does
	// without git.
	gitTimeout = 5 * time.Second
)

// KeepOptions bound a Keeper.
type KeepOptions struct {
	// MaxKeep is the largest file whose text is kept; zero means
	// DefaultMaxKeep.
	MaxKeep int
	// Budget bounds the bytes kept in all; zero means DefaultKeepBudget.
	Budget int
}

// Bounds of what a Keeper holds besides texts.
const (
	// maxDirty bounds the files git holds that differ from its index:
	// past it, git is not used (a file's text before is then known only
	// when read at once).
	maxDirty = 100_000
	// maxCandidates bounds the files chosen to be read at once, so
	// that the choice does not hold a tree's worth of names.
	maxCandidates = 1 << 16
	// maxOpaque bounds the directories git does not look into (nested
	// repositories) whose files are read at once.
	maxOpaque = 1024
)

// A Keeper holds the texts the files of a snapshot had when it was made,
// so that a file a later command changes or deletes can be shown as it
// was, diffed and put back.
//
// In a git repository the files git holds unchanged are not read: their
// text is in git's index, and the Keeper keeps that index open (git
// replaces the file when it writes an index, so the open one keeps its
// content whatever git commands run later) and asks git for a text on
// demand, naming the open index. What it holds per file is then only
// for the files that differ from the index: the paths git holds
// changed, and the texts of those and of untracked files, read at once,
// smallest first within the budget. Outside a repository every file is
// such a file. Files above MaxKeep, and files past the budget, are not
// kept, and their text before is unknown; so is that of every file the
// index does not hold unchanged, when it was not read.
type Keeper struct {
	root    string
	maxKeep int
	// index is git's index when the Keeper was made, which holds the
	// texts of the files not in dirty; nil outside a repository, or when
	// git could not be used.
	index *keptIndex
	// dirty holds the files git holds that differed from its index.
	dirty map[string]bool
	// texts holds the texts read at once.
	texts map[string][]byte
	// listed holds the files of the snapshot the Keeper was made from;
	// nil for a Tracker's Keeper, which does not know.
	listed map[string]bool
	// over holds the texts read again for a Tracker's later Keeper,
	// which take precedence over texts and the index, shared with the
	// Keeper it was made from.
	over map[string]text
}

// A keptIndex is a git index kept open, with the runner that reads it.
// The descriptor is closed when the last Keeper holding it is collected
// (os.File closes itself then).
type keptIndex struct {
	git  *gitRunner
	file *os.File
	// prefix is the Keeper's root relative to the top of the work tree,
	// slash-separated and ending in a slash, or empty at the top.
	prefix string
}

// NewKeeper keeps the texts of the files of snap as they are now.
func NewKeeper(ctx context.Context, snap *Snapshot, opts KeepOptions) *Keeper {
	files := func(yield func(string, int64) bool) {
		for p, st := range snap.files {
			if st.mode.IsRegular() && !yield(p, st.size) {
				return
			}
		}
	}
	k := newKeeper(ctx, snap.Root, keeperFiles{all: files}, opts)
	k.listed = make(map[string]bool, len(snap.files))
	for p := range snap.files {
		k.listed[p] = true
	}
	return k
}

// maxStale bounds the files a Tracker's Keeper reads again before its
// base is read anew, in the background.
const maxStale = 1024

// Keeper keeps the texts of the files the Tracker lists now. Unlike a
// Keeper made from a Snapshot, it does not know which files existed
// (Before reports every path as existing): its caller knows that from
// the Difference, which says whether the file was created.
//
// Asking git which files differ from its index, and reading the texts
// of the others, costs as much as the tree is large, so the Tracker does
// it once and keeps the result (its base) for its life, with the paths
// its Syncs have reported changed since (stale). A later Keeper shares
// the base and reads again only the stale files, whose texts take
// precedence: its cost is what changed since the base was read, not the
// tree. Past maxStale stale files the base is read anew in the
// background, while Keepers made meanwhile still read the stale files
// only; with other options it is read anew at once. A Keeper's texts
// stay as they were when it was made: a later Keeper does not change
// them.
func (t *Tracker) Keeper(ctx context.Context, opts KeepOptions) *Keeper {
	t.keepMu.Lock()
	defer t.keepMu.Unlock()
	t.mu.Lock()
	base := t.kept
	if base == nil || t.keptOpts != opts {
		t.kept, t.stale, t.rebasing = nil, nil, nil
		t.mu.Unlock()
		k := newKeeper(ctx, t.root, t.listFiles(func() {
			// What a Sync reports from now on is read anew by the
			// next Keeper: it may have come after its file was read.
			t.stale = map[string]bool{}
		}), opts)
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.stale != nil && ctx.Err() == nil {
			// A Keeper cut short by ctx is not kept: its texts are not
			// all it could have read.
			t.kept, t.keptOpts = k, opts
		}
		return k
	}
	stale := slices.Collect(maps.Keys(t.stale))
	if r := t.rebasing; r != nil {
		for p := range r.stale {
			if !t.stale[p] {
				stale = append(stale, p)
			}
		}
	}
	var r *rebase
	if len(stale) > maxStale && t.rebasing == nil {
		r = &rebase{}
		t.rebasing = r
	}
	t.mu.Unlock()
	if r != nil {
		// Bounded by time, not by ctx: the turn that started it may
		// end before it does.
		go t.rebase(context.WithoutCancel(ctx), r, opts)
	}
	return base.reread(ctx, stale, opts)
}

// A rebase is the reading anew of a Tracker's Keeper base, in the
// background. Until it ends the old base stays in use, with the paths
// reported stale before the new one's reading started (stale) as well
// as those reported since.
type rebase struct {
	stale map[string]bool // guarded by the Tracker's mu
}

// rebase reads the Keeper base anew for r and makes it the base, unless
// the base was read anew meanwhile (with other options).
func (t *Tracker) rebase(ctx context.Context, r *rebase, opts KeepOptions) {
	ctx, cancel := context.WithTimeout(ctx, DefaultBaselineTimeout)
	defer cancel()
	k := newKeeper(ctx, t.root, t.listFiles(func() {
		if t.rebasing == r {
			r.stale, t.stale = t.stale, map[string]bool{}
		}
	}), opts)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rebasing != r {
		return
	}
	t.rebasing = nil
	if ctx.Err() == nil {
		t.kept = k
		return
	}
	// Cut short: the old base stays, stale since it was read.
	for p := range r.stale {
		t.stale[p] = true
	}
}

// listFiles returns the files of a Keeper base: it calls start, with
// t.mu held, when the base's reading starts, then yields the regular
// files the Tracker lists, if the Keeper needs them.
func (t *Tracker) listFiles(start func()) keeperFiles {
	return keeperFiles{
		start: func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			start()
		},
		all: func(yield func(string, int64) bool) {
			t.mu.Lock()
			defer t.mu.Unlock()
			t.regularFiles(yield)
		},
	}
}

// keeperFiles are the files a Keeper is made of: start is called when
// its reading starts; all yields every regular file with its size.
type keeperFiles struct {
	start func()
	all   iter.Seq2[string, int64]
}

// reread returns a Keeper that shares k's texts but for paths, whose
// texts it reads now, smallest first within the budget.
func (k *Keeper) reread(ctx context.Context, paths []string, opts KeepOptions) *Keeper {
	n := &Keeper{root: k.root, maxKeep: k.maxKeep, index: k.index, dirty: k.dirty, texts: k.texts,
		over: make(map[string]text, len(paths))}
	read := newCandidates(k.maxKeep, cmp.Or(opts.Budget, DefaultKeepBudget))
	for _, p := range paths {
		// Not known unless read below: gone, not a regular file, too
		// large, or past the budget.
		n.over[p] = text{}
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() {
			read.add(p, info.Size())
		}
	}
	readSmallest(ctx, read.sorted(), k.maxKeep, read.budget, func(p string, data []byte) {
		n.over[p] = text{data: data, known: true}
	})
	return n
}

// text is a file's text as a Keeper read it again; known is false when
// it could not be.
type text struct {
	data  []byte
	known bool
}

// newKeeper keeps the texts of files as they are now.
func newKeeper(ctx context.Context, root string, files keeperFiles, opts KeepOptions) *Keeper {
	k := &Keeper{
		root:    root,
		maxKeep: cmp.Or(opts.MaxKeep, DefaultMaxKeep),
		texts:   map[string][]byte{},
	}
	if files.start != nil {
		files.start()
	}
	read := newCandidates(k.maxKeep, cmp.Or(opts.Budget, DefaultKeepBudget))
	index, dirty, opaque, err := gitDirty(ctx, root, read)
	if err == nil {
		k.index, k.dirty = index, dirty
	} else {
		// Every file is read at once, or not known.
		read = newCandidates(k.maxKeep, read.budget)
		opaque = []string{root}
	}
	if len(opaque) > 0 {
		for p, size := range files.all {
			for _, d := range opaque {
				if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
					read.add(p, size)
					break
				}
			}
		}
	}
	readSmallest(ctx, read.sorted(), k.maxKeep, read.budget, func(p string, data []byte) {
		k.texts[p] = data
	})
	return k
}

// Before returns the text path had when the Keeper was made. existed is
// false for a file the snapshot did not list; known is false when the
// text was not kept (too large, past the budget, unreadable).
func (k *Keeper) Before(ctx context.Context, path string) (text []byte, existed, known bool) {
	if k.listed != nil && !k.listed[path] {
		return nil, false, true
	}
	if t, ok := k.over[path]; ok {
		return t.data, true, t.known
	}
	if t, ok := k.texts[path]; ok {
		return t, true, true
	}
	if k.index == nil || k.dirty[path] {
		return nil, true, false
	}
	text, err := k.index.read(ctx, k.root, path, k.maxKeep)
	if err != nil {
		return nil, true, false
	}
	return text, true, true
}

// read returns path's text in the index, of at most limit bytes.
func (x *keptIndex) read(ctx context.Context, root, path string, limit int) ([]byte, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s is not below %s", path, root)
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	// ":0:" names stage 0 of the index: the path is taken as it is,
	// whatever it starts with.
	cmd := x.git.command(ctx, x.file, "cat-file", "blob", ":0:"+x.prefix+filepath.ToSlash(rel))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(out, int64(limit)+1))
	if err == nil && len(data) > limit {
		// Git is stopped, not waited for to write the rest.
		cancel()
		err = walk.ErrTooLarge
	}
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = werr
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s from git: %w", rel, err)
	}
	return data, nil
}

// gitDirty opens the index of the repository root is in and asks git,
// against that open index, which files below root differ from it: the
// files git holds that differ are returned (dirty), and, with the
// untracked ones, added to read; the nested repositories below root,
// which git does not look into, are returned as opaque. It fails when
// root is in no repository, git is missing or slow, the index cannot be
// kept open, or more than maxDirty files differ.
func gitDirty(ctx context.Context, root string, read *candidates) (index *keptIndex, dirty map[string]bool, opaque []string, err error) {
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		// No way to name an open file to git.
		return nil, nil, nil, fmt.Errorf("no /dev/fd: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	g, err := newGit(ctx, root)
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := g.run(ctx, "rev-parse", "--show-prefix", "--git-path", "index")
	if err != nil {
		return nil, nil, nil, err
	}
	prefix, indexPath, ok := strings.Cut(strings.TrimSuffix(string(out), "\n"), "\n")
	if !ok {
		return nil, nil, nil, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	if !filepath.IsAbs(indexPath) {
		indexPath = filepath.Join(root, indexPath)
	}
	// Opened before git compares the work tree with it, so that the
	// comparison and the texts are the same index's.
	f, err := os.Open(indexPath)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("keeping git's index: %w", err)
	}
	index = &keptIndex{git: g, file: f, prefix: prefix}
	dirty, opaque, err = index.status(ctx, root, read)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return index, dirty, opaque, nil
}

// status runs git status against the kept index and reads its output as
// it comes (one record a file: a tree's worth of them is not held).
func (x *keptIndex) status(ctx context.Context, root string, read *candidates) (dirty map[string]bool, opaque []string, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := x.git.command(ctx, x.file, "status", "--porcelain", "-z", "--untracked-files=all", "--ignore-submodules", "--", ".")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	dirty, opaque, err = x.parseStatus(out, root, read)
	if err != nil {
		cancel() // git is stopped, not read to the end
	}
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("git status: %s: %w", strings.TrimSpace(stderr.String()), werr)
	}
	return dirty, opaque, err
}

// parseStatus reads the records of `git status --porcelain -z`:
// "XY path", and for a rename or a copy a second record, the path it
// came from. X compares the index with HEAD, Y the work tree with the
// index ("?" for both when untracked); paths are relative to the top of
// the work tree.
func (x *keptIndex) parseStatus(r io.Reader, root string, read *candidates) (dirty map[string]bool, opaque []string, err error) {
	dirty = map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		rec := sc.Text()
		if len(rec) < 4 {
			continue
		}
		if rec[0] == 'R' || rec[0] == 'C' {
			sc.Scan() // the path it came from
		}
		rel, ok := strings.CutPrefix(rec[3:], x.prefix)
		if !ok || rel == "" {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			// A nested repository.
			if opaque = append(opaque, p); len(opaque) > maxOpaque {
				return nil, nil, fmt.Errorf("more than %d nested repositories", maxOpaque)
			}
			continue
		}
		switch {
		case rec[:2] == "??":
		case rec[1] == ' ':
			// Staged, or differs from HEAD only: the file holds the
			// index's text, which the Keeper reads from the index.
			continue
		default:
			if dirty[p] = true; len(dirty) > maxDirty {
				return nil, nil, fmt.Errorf("more than %d files differ from git's index", maxDirty)
			}
		}
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() {
			read.add(p, info.Size())
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading git status: %w", err)
	}
	return dirty, opaque, nil
}

// sized is a file to read, with its size when listed.
type sized struct {
	path string
	size int64
}

// readSmallest reads the texts of files, of at most maxKeep bytes,
// smallest first (the most files for the budget, and deterministic),
// and hands each to keep until budget bytes are read or ctx is done.
func readSmallest(ctx context.Context, files []sized, maxKeep, budget int, keep func(path string, data []byte)) {
	slices.SortFunc(files, compareSized)
	var buf []byte
	for _, f := range files {
		if ctx.Err() != nil || budget < int(f.size) {
			break
		}
		data, err := readFile(f.path, buf, maxKeep)
		if err != nil {
			continue
		}
		keep(f.path, bytes.Clone(data))
		budget -= len(data)
		buf = data[:0]
	}
}

// readFile reads a file of at most limit bytes.
func readFile(path string, buf []byte, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return walk.ReadAll(f, buf, limit)
}

// candidates chooses the files to read at once as they are offered: the
// smallest (the most files for the budget), as many as fit in it, and
// no more than maxCandidates. It holds them in a heap whose top is the
// largest, dropped whenever they are too many or too large in all.
type candidates struct {
	maxKeep int
	budget  int
	sum     int64
	files   []sized
}

func newCandidates(maxKeep, budget int) *candidates {
	return &candidates{maxKeep: maxKeep, budget: budget}
}

// add offers a file of size bytes.
func (c *candidates) add(path string, size int64) {
	if size > int64(c.maxKeep) || size > int64(c.budget) {
		return
	}
	heap.Push(c, sized{path, size})
	c.sum += size
	for len(c.files) > maxCandidates || c.sum > int64(c.budget) {
		c.sum -= heap.Pop(c).(sized).size
	}
}

// sorted returns the files chosen, smallest first.
func (c *candidates) sorted() []sized {
	slices.SortFunc(c.files, compareSized)
	return c.files
}

func compareSized(a, b sized) int {
	return cmp.Or(cmp.Compare(a.size, b.size), strings.Compare(a.path, b.path))
}

// The methods of heap.Interface, for candidates' own use.
func (c *candidates) Len() int           { return len(c.files) }
func (c *candidates) Less(i, j int) bool { return compareSized(c.files[i], c.files[j]) > 0 }
func (c *candidates) Swap(i, j int)      { c.files[i], c.files[j] = c.files[j], c.files[i] }
func (c *candidates) Push(x any)         { c.files = append(c.files, x.(sized)) }
func (c *candidates) Pop() any {
	last := c.files[len(c.files)-1]
	c.files = c.files[:len(c.files)-1]
	return last
}
