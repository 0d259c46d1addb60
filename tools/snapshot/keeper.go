package snapshot

import (
	"bytes"
	"cmp"
	"context"
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

// A Keeper holds the texts the files of a snapshot had when it was made,
// so that a file a later command changes or deletes can be shown as it
// was, diffed and put back. In a git repository the files git holds
// unchanged are not read: their text is git's, fetched on demand. The
// others (changed, untracked, or every file outside a repository) are
// read at once, smallest budget first: files above MaxKeep, and files
// past the budget, are not kept, and their text before is unknown.
type Keeper struct {
	root    string
	maxKeep int
	// blobs maps the files git holds unchanged to the id of their text.
	blobs map[string]string
	// git reads them; nil outside a repository.
	git *gitRunner
	// texts holds the texts read at once.
	texts map[string][]byte
	// listed holds the files of the snapshot the Keeper was made from;
	// nil for a Tracker's Keeper, which does not know.
	listed map[string]bool
	// over holds the texts read again for a Tracker's later Keeper,
	// which take precedence over texts and blobs, shared with the
	// Keeper it was made from.
	over map[string]text
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
	k := newKeeper(ctx, snap.Root, files, opts)
	k.listed = make(map[string]bool, len(snap.files))
	for p := range snap.files {
		k.listed[p] = true
	}
	return k
}

// maxStale bounds the files a Tracker's Keeper reads again: past it,
// the texts of every file are read anew.
const maxStale = 1024

// Keeper keeps the texts of the files the Tracker lists now. Unlike a
// Keeper made from a Snapshot, it does not know which files existed
// (Before reports every path as existing): its caller knows that from
// the Difference, which says whether the file was created.
//
// Reading every file's text, and asking git which files it holds, costs
// as much as the tree is large, so the Tracker does it once and keeps
// the result (its base) for its life, with the paths its Syncs have
// reported changed since (stale). A later Keeper shares the base and
// reads again only the stale files, whose texts take precedence: its
// cost is what changed since the base was read, not the tree. Past
// maxStale stale files, or with other options, the base is read anew.
// A Keeper's texts stay as they were when it was made: a later Keeper
// does not change them.
func (t *Tracker) Keeper(ctx context.Context, opts KeepOptions) *Keeper {
	t.keepMu.Lock()
	defer t.keepMu.Unlock()
	t.mu.Lock()
	base := t.kept
	if base == nil || t.keptOpts != opts || len(t.stale) > maxStale {
		t.kept, t.stale = nil, nil
		t.mu.Unlock()
		files := func(yield func(string, int64) bool) {
			t.mu.Lock()
			defer t.mu.Unlock()
			// What a Sync reports from now on is read anew by the
			// next Keeper: it may have come after its file was read.
			t.stale = map[string]bool{}
			t.regularFiles(yield)
		}
		k := newKeeper(ctx, t.root, files, opts)
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
	t.mu.Unlock()
	return base.reread(ctx, stale, opts)
}

// reread returns a Keeper that shares k's texts but for paths, whose
// texts it reads now, smallest first within the budget.
func (k *Keeper) reread(ctx context.Context, paths []string, opts KeepOptions) *Keeper {
	n := &Keeper{root: k.root, maxKeep: k.maxKeep, blobs: k.blobs, git: k.git, texts: k.texts,
		over: make(map[string]text, len(paths))}
	var read []sized
	for _, p := range paths {
		// Not known unless read below: gone, not a regular file, too
		// large, or past the budget.
		n.over[p] = text{}
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() && info.Size() <= int64(k.maxKeep) {
			read = append(read, sized{p, info.Size()})
		}
	}
	readSmallest(ctx, read, k.maxKeep, cmp.Or(opts.Budget, DefaultKeepBudget), func(p string, data []byte) {
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

// newKeeper keeps the texts of the regular files that files yields,
// with their sizes.
func newKeeper(ctx context.Context, root string, files iter.Seq2[string, int64], opts KeepOptions) *Keeper {
	k := &Keeper{
		root:    root,
		maxKeep: cmp.Or(opts.MaxKeep, DefaultMaxKeep),
		texts:   map[string][]byte{},
	}
	k.blobs, k.git, _ = gitClean(ctx, root)
	var read []sized
	for p, size := range files {
		if _, ok := k.blobs[p]; !ok && size <= int64(k.maxKeep) {
			read = append(read, sized{p, size})
		}
	}
	readSmallest(ctx, read, k.maxKeep, cmp.Or(opts.Budget, DefaultKeepBudget), func(p string, data []byte) {
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
	id, ok := k.blobs[path]
	if !ok || k.git == nil {
		return nil, true, false
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	out, err := k.git.run(ctx, "cat-file", "blob", id)
	if err != nil || len(out) > k.maxKeep {
		return nil, true, false
	}
	return out, true, true
}

// gitClean returns the files below root that git holds unchanged (in
// the index as in the work tree), with the ids of their texts, and the
// runner that reads them; nil when root is in no repository or git is
// missing or slow.
func gitClean(ctx context.Context, root string) (map[string]string, *gitRunner, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	g, err := newGit(ctx, root)
	if err != nil {
		return nil, nil, err
	}
	top, err := g.run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, nil, err
	}
	topDir := strings.TrimSpace(string(top))
	staged, err := g.run(ctx, "ls-files", "-s", "-z")
	if err != nil {
		return nil, nil, err
	}
	// Porcelain status names paths from the top of the repository.
	status, err := g.run(ctx, "status", "--porcelain", "-z", "--untracked-files=all", "--ignore-submodules", "--", ".")
	if err != nil {
		return nil, nil, err
	}
	dirty := map[string]bool{}
	fields := strings.Split(string(status), "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		dirty[filepath.Join(topDir, filepath.FromSlash(f[3:]))] = true
		if f[0] == 'R' || f[0] == 'C' {
			i++ // the path it was renamed or copied from
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	blobs := map[string]string{}
	for _, rec := range strings.Split(string(staged), "\x00") {
		// "<mode> <id> <stage>\t<path>"
		meta, path, ok := strings.Cut(rec, "\t")
		parts := strings.Fields(meta)
		if !ok || len(parts) != 3 || parts[2] != "0" || parts[0] == "160000" {
			continue // a merge conflict's stages, or a submodule
		}
		abs := filepath.Join(root, filepath.FromSlash(path))
		if dirty[filepath.Join(real, filepath.FromSlash(path))] || dirty[abs] {
			continue
		}
		blobs[abs] = parts[1]
	}
	return blobs, g, nil
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
	slices.SortFunc(files, func(a, b sized) int {
		return cmp.Or(cmp.Compare(a.size, b.size), strings.Compare(a.path, b.path))
	})
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
