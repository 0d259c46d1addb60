// Package snapshot records what the files of a workspace look like,
// cheaply enough to do around every shell command, so that the agent can
// tell which files a command created, changed or deleted, and what they
// held before.
//
// A Tracker keeps that listing for the agent's life and, on Linux, is
// told by the kernel what changed, so that a command costs what it
// changed rather than the size of the tree; a Snapshot lists the tree
// whole, and is the Tracker's fallback.
//
// A Snapshot is metadata only: the size, modification time and type of
// every file a walk lists (ignore files honoured, as the project's
// developers see the tree). Two snapshots differ where a file appeared,
// vanished, or changed size, time or type; whether its content really
// changed is settled by comparing texts, which a Keeper holds.
package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/reasonix/reasonix/tools/walk"
)

// DefaultMaxFiles bounds the files a snapshot lists: a workspace beyond
// it is not watched, rather than watched partly, which would report the
// files left out as deleted.
const DefaultMaxFiles = 100_000

// DefaultTimeout bounds one snapshot, so a slow disk or a huge tree
// fails cleanly instead of holding up the command.
const DefaultTimeout = 5 * time.Second

// ErrTooLarge is returned by Take when the workspace holds more files
// than allowed.
var ErrTooLarge = errors.New("too many files to watch")

// Options bound a snapshot.
type Options struct {
	// MaxFiles bounds the files listed; zero means DefaultMaxFiles
	// (DefaultMaxTracked for a Tracker).
	MaxFiles int
	// Timeout bounds the walk; zero means DefaultTimeout.
	Timeout time.Duration
	// Skip leaves paths out (walk.Options.Skip): what the agent may not
	// read is not watched.
	Skip func(path string, isDir bool) bool
	// Control, when set, reports whether a path below the root
	// (slash-separated) is a control path by its names. The snapshot
	// then lists such entries even where the ignore files leave them
	// out (a .vscode in .gitignore), as long as their directory is
	// listed, and keeps apart the control files and the repositories
	// (.git directories) it finds: see Control.
	Control func(rel string) bool
}

// stat is what a snapshot knows of one file.
type stat struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

// A Snapshot is the files of a tree at one moment, by absolute path.
type Snapshot struct {
	Root  string
	files map[string]stat
	// control holds the files that are control paths (Options.Control);
	// repos the .git directories.
	control []string
	repos   map[string]bool
}

// Control returns the control paths the snapshot found, when it was
// taken with Options.Control: the files that are control paths by their
// names, and the repositories' .git directories, the root's included.
func (s *Snapshot) Control() []string {
	out := slices.Concat(s.control, slices.Collect(maps.Keys(s.repos)))
	slices.Sort(out)
	return out
}

// NewRepos returns the .git directories after holds that before did
// not: repositories made in between.
func NewRepos(before, after *Snapshot) []string {
	var out []string
	for r := range after.repos {
		if !before.repos[r] {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// Len returns the number of files listed.
func (s *Snapshot) Len() int { return len(s.files) }

// Take lists the files below root with their metadata.
func Take(ctx context.Context, root string, opts Options) (*Snapshot, error) {
	maxFiles := opts.MaxFiles
	if maxFiles <= 0 {
		maxFiles = DefaultMaxFiles
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := &Snapshot{Root: root, files: map[string]stat{}, repos: map[string]bool{}}
	var mu sync.Mutex // guards s.files, s.control and s.repos
	var over bool
	wopts := walk.Options{Skip: opts.Skip}
	if opts.Control != nil {
		wopts.Keep = func(name string, _ bool) bool { return opts.Control(name) }
		wopts.Repo = func(path string) {
			mu.Lock()
			defer mu.Unlock()
			s.repos[path] = true
		}
	}
	err := walk.Walk(ctx, root, wopts, func(e walk.Entry) error {
		info, err := e.Info()
		if err != nil {
			return nil // gone meanwhile
		}
		control := opts.Control != nil && opts.Control(e.Rel())
		mu.Lock()
		defer mu.Unlock()
		if len(s.files) >= maxFiles {
			over = true
			return walk.SkipAll
		}
		s.files[e.Path] = stat{size: info.Size(), mtime: info.ModTime(), mode: info.Mode().Type()}
		if control {
			s.control = append(s.control, e.Path)
		}
		return nil
	})
	switch {
	case over:
		return nil, fmt.Errorf("%w: more than %d", ErrTooLarge, maxFiles)
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("listing the workspace took longer than %s", timeout)
	case err != nil:
		return nil, err
	}
	return s, nil
}

// A Difference is a file that differs between two snapshots.
type Difference struct {
	Path string
	// Created: the file is only in the later snapshot; Deleted: only in
	// the earlier one; neither: its metadata changed.
	Created, Deleted bool
}

// Diff lists the files that differ from before to after, in no
// particular order.
func Diff(before, after *Snapshot) []Difference {
	var out []Difference
	for p, b := range before.files {
		a, ok := after.files[p]
		switch {
		case !ok:
			out = append(out, Difference{Path: p, Deleted: true})
		case a.size != b.size || !a.mtime.Equal(b.mtime) || a.mode != b.mode:
			out = append(out, Difference{Path: p})
		}
	}
	for p := range after.files {
		if _, ok := before.files[p]; !ok {
			out = append(out, Difference{Path: p, Created: true})
		}
	}
	return out
}
