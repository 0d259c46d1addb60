package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
	shellsnap "github.com/reasonix/reasonix/tools/snapshot"
)

// A turn keeps the text every file it changes had before its first
// change, whoever made it: a tool, through the write seam, or a shell
// command, found by comparing the workspace before and after it. With
// that and the text the agent sees now, a reviewer can show the turn's
// diff and put a file back, and the check of a turn's edits (check.go)
// compares the language server's diagnostics of both.

// FileStatus says what a turn did to a file.
type FileStatus string

const (
	FileCreated  FileStatus = "created"
	FileModified FileStatus = "modified"
	FileDeleted  FileStatus = "deleted"
)

// ChangeSource says what changed a file: a tool, through the FS, or a
// shell command.
type ChangeSource string

const (
	SourceTool  ChangeSource = "tool"
	SourceShell ChangeSource = "shell"
)

// maxWireBefore bounds the text before that an event or a turn's result
// carries over the wire; larger or binary texts are left out and
// BeforeOmitted is set. FileChange.BeforeData keeps them in process.
const maxWireBefore = 64 << 10

// FileChange is a file a turn changed.
type FileChange struct {
	// Path is the file as the model and the user see it: relative to
	// the workspace root when inside it.
	Path string `json:"path"`
	// Abs is the absolute path.
	Abs    string     `json:"-"`
	Status FileStatus `json:"status"`
	// Source is, in an event, what made that change; in
	// TurnResult.Changes, what changed the file first.
	Source ChangeSource `json:"source"`
	// Before is the text before the turn's first change to the file,
	// when the file existed and the text is small and not binary.
	Before *string `json:"before,omitempty"`
	// BeforeOmitted says the file existed but Before is left out: too
	// large or binary for the wire, or not kept (BeforeKnown is false).
	BeforeOmitted bool `json:"beforeOmitted,omitempty"`

	// BeforeData is the whole text before, when the file existed and
	// BeforeKnown; BeforeExisted is false for a file the turn created.
	BeforeData    []byte `json:"-"`
	BeforeExisted bool   `json:"-"`
	BeforeKnown   bool   `json:"-"`
	// After is the text as the agent sees it (through Env.FS: the
	// editor's buffers, or text held for review) when the turn ended;
	// nil for a deleted file. It is set on TurnResult.Changes only.
	After []byte `json:"-"`
}

// original is what a turn knows of a file before its first change.
type original struct {
	text    []byte
	existed bool
	known   bool
	source  ChangeSource
	// last is what changed the file last.
	last ChangeSource
}

// changeLog is the files one turn changed, with their text before.
type changeLog struct {
	mu    sync.Mutex // guards files and order
	files map[string]*original
	order []string // first changed first
}

// remember records a file's text before, unless the turn already did:
// the first change counts. It reports whether it was new.
func (l *changeLog) remember(path string, o original) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.files == nil {
		l.files = map[string]*original{}
	}
	if _, ok := l.files[path]; ok {
		return false
	}
	l.files[path] = &o
	l.order = append(l.order, path)
	return true
}

// has reports whether the turn already changed path.
func (l *changeLog) has(path string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.files[path]
	return ok
}

// get returns what the turn knows of path before it, and whether it
// changed it.
func (l *changeLog) get(path string) (original, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o, ok := l.files[path]
	if !ok {
		return original{}, false
	}
	return *o, true
}

// touched records what changed path last.
func (l *changeLog) touched(path string, source ChangeSource) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o, ok := l.files[path]; ok {
		o.last = source
	}
}

// paths lists the files changed, first changed first.
func (l *changeLog) paths() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.order)
}

// readView reads a file as the agent sees it; existed is false when it
// is not there.
func readView(fsys tools.FS, path string) (data []byte, existed bool, err error) {
	data, err = fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	return data, true, nil
}

// rememberBefore records, ahead of a tool's change to path, the text the
// file has, if this is the turn's first change to it.
func (t *turn) rememberBefore(fsys tools.FS, path string) {
	if t.log.has(path) {
		return
	}
	data, existed, err := readView(fsys, path)
	t.log.remember(path, original{text: data, existed: existed, known: err == nil, source: SourceTool})
}

// fileChanged reports a change the turn made to path, which exists
// now or not.
func (t *turn) fileChanged(path string, source ChangeSource, exists bool) {
	o, ok := t.log.get(path)
	if !ok {
		return
	}
	t.log.touched(path, source)
	c := t.a.fileChange(path, o, exists)
	c.Source = source
	t.event(Event{Kind: EventFileChanged, File: &c})
}

// fileChange describes a change to path from what was before and
// whether the file exists now.
func (a *Agent) fileChange(path string, o original, exists bool) FileChange {
	c := FileChange{Path: a.Env.Rel(path), Abs: path, Source: o.source,
		BeforeData: o.text, BeforeExisted: o.existed, BeforeKnown: o.known}
	switch {
	case !o.existed:
		c.Status = FileCreated
	case !exists:
		c.Status = FileDeleted
	default:
		c.Status = FileModified
	}
	if o.existed {
		if o.known && len(o.text) <= maxWireBefore && utf8.Valid(o.text) && bytes.IndexByte(o.text, 0) < 0 {
			s := string(o.text)
			c.Before = &s
		} else {
			c.BeforeOmitted = true
		}
	}
	return c
}

// changes returns the files the turn changed, as they are now in the
// agent's view. A file changed and changed back, or created and deleted
// again, is left out. A file a shell command changed last is read from
// the disk, where the command left it: an editor's buffer of it may not
// have caught up yet.
func (t *turn) changes() []FileChange {
	var out []FileChange
	for _, p := range t.log.paths() {
		o, _ := t.log.get(p)
		view := t.a.Env.FS
		if o.last == SourceShell {
			view = tools.DiskFS{}
		}
		now, exists, err := readView(view, p)
		if err != nil {
			continue
		}
		if exists == o.existed && (!exists || (o.known && bytes.Equal(now, o.text))) {
			continue
		}
		c := t.a.fileChange(p, o, exists)
		c.After = now
		out = append(out, c)
	}
	return out
}

// shellTracking holds the Tracker of the files shell commands change,
// kept for the agent's life: the workspace is listed once, and each
// command then costs what it changed (snapshot.Tracker). Copies of an
// agent (a task's, another model's) share it.
//
// The listing, and the Keeper base the Tracker reads once, cost as much
// as the tree is large, so an agent that will run commands starts them
// in the background when it is built (warm); its first command then
// waits only for what is not done yet. An agent that did not start
// them makes the Tracker on its first command.
type shellTracking struct {
	// maxFiles bounds the files tracked; zero is the Tracker's default.
	maxFiles int

	mu sync.Mutex // guards the fields below
	tr *shellsnap.Tracker
	// stopWarm ends the warm-up early; warmed is closed when it has
	// ended. Both are nil when no warm-up was started.
	stopWarm context.CancelFunc
	warmed   chan struct{}
}

// tracker returns the Tracker of env's workspace, making it on first use.
func (s *shellTracking) tracker(env *tools.Env) *shellsnap.Tracker {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tr == nil {
		s.tr = shellsnap.NewTracker(env.Root, shellsnap.Options{Skip: env.SkipForbidden(), Control: isControl, MaxFiles: s.maxFiles})
	}
	return s.tr
}

// warm makes the Tracker of env's workspace and, in the background,
// takes its baseline and reads its Keeper base, as the first command
// would. A command that comes first waits for them, through the
// Tracker's own locks: it never finds "nothing changed" against a
// baseline not yet taken.
func (s *shellTracking) warm(env *tools.Env) {
	tr := s.tracker(env)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.mu.Lock()
	if s.warmed != nil {
		// Shared by an agent built before (Services): warmed once.
		s.mu.Unlock()
		cancel()
		return
	}
	s.stopWarm, s.warmed = cancel, done
	s.mu.Unlock()
	go func() {
		defer close(done)
		if _, err := tr.Sync(ctx); err != nil {
			// The first command says so.
			return
		}
		tr.Keeper(ctx, shellsnap.KeepOptions{})
	}()
}

// waitWarm waits for the warm-up, if one was started, to end.
func (s *shellTracking) waitWarm() {
	s.mu.Lock()
	done := s.warmed
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Close is close, for the pool of Services.
func (s *shellTracking) Close() error { return s.close() }

// close ends the warm-up, waiting for it, and stops the Tracker's
// watch.
func (s *shellTracking) close() error {
	s.mu.Lock()
	stop, tr := s.stopWarm, s.tr
	s.stopWarm = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
		s.waitWarm()
	}
	if tr == nil {
		return nil
	}
	return tr.Close()
}

// shellWatch finds the files shell commands change in a turn
// (tools.ShellWatcher). The texts before are kept when the turn's first
// command starts; each command is a window of the agent's Tracker.
type shellWatch struct {
	t *turn
	// own is the turn's own tracking, closed when the turn ends, for an
	// agent that has none (one not made by Build).
	own *shellTracking

	mu     sync.Mutex // guards the fields below
	told   bool       // the turn was told tracking is off
	keeper *shellsnap.Keeper
}

func (w *shellWatch) tracker() *shellsnap.Tracker {
	if s := w.t.a.shells; s != nil {
		return s.tracker(w.t.a.Env)
	}
	return w.own.tracker(w.t.a.Env)
}

// isControl reports whether a path below the workspace root is a
// control path by its names.
func isControl(rel string) bool {
	_, ok := permission.ControlRoot(rel)
	return ok
}

// untracked is what the model is told when the files a command changes
// cannot be tracked.
const untracked = "%v (what shell commands change is not among the turn's changes)"

// BeforeShell opens a window of the Tracker just before a command (the
// first command lists the workspace), and returns the control paths it
// knows.
func (w *shellWatch) BeforeShell(ctx context.Context) ([]string, tools.After) {
	tr := w.tracker()
	win, c, err := tr.Begin(ctx)
	if err != nil {
		slog.Info("shell changes are not tracked", "root", w.t.a.Env.Root, "err", err)
		w.mu.Lock()
		defer w.mu.Unlock()
		notice := ""
		if !w.told {
			// Once a turn, for the user and the model.
			w.told = true
			notice = fmt.Sprintf(untracked, err)
		}
		return nil, func(_ context.Context, settle func([]tools.PathChange)) string {
			settle(nil)
			return notice
		}
	}
	w.mu.Lock()
	if w.keeper == nil {
		w.keeper = tr.Keeper(ctx, shellsnap.KeepOptions{})
	}
	w.mu.Unlock()
	return tr.Control(), func(ctx context.Context, settle func([]tools.PathChange)) string {
		return joinNotices(c.Notice, w.after(ctx, tr, win, settle))
	}
}

// after closes the command's window, hands what changed to settle, and
// then records and reports the files the command changed, as settle
// left them. It returns what the user and the model should be told
// about the tracking itself, if anything.
func (w *shellWatch) after(ctx context.Context, tr *shellsnap.Tracker, win *shellsnap.Window, settle func([]tools.PathChange)) string {
	c, err := tr.End(ctx, win)
	if err != nil {
		settle(nil)
		return joinNotices(c.Notice, fmt.Sprintf(untracked, err))
	}
	diffs := c.Diffs
	slices.SortFunc(diffs, func(a, b shellsnap.Difference) int { return strings.Compare(a.Path, b.Path) })
	var found []tools.PathChange
	for _, d := range diffs {
		found = append(found, tools.PathChange{Path: d.Path, Created: d.Created})
	}
	for _, r := range c.NewRepos {
		found = append(found, tools.PathChange{Path: r, Created: true})
	}
	settle(found)
	w.mu.Lock()
	keeper := w.keeper
	w.mu.Unlock()
	var changed []string
	for _, d := range diffs {
		_, err := os.Lstat(d.Path)
		exists := err == nil
		if !w.t.log.has(d.Path) {
			// The window knows whether the file was there before the
			// command; the Keeper what it held when the turn's first
			// command started.
			existed := !d.Created
			var text []byte
			known := !existed
			if existed {
				text, _, known = keeper.Before(ctx, d.Path)
			}
			if existed && known && exists {
				// Touched, or changed and changed back (by the
				// command or by settle): the same text is no change.
				if now, _, err := readView(tools.DiskFS{}, d.Path); err == nil && bytes.Equal(now, text) {
					continue
				}
			}
			if !existed && !exists {
				continue
			}
			w.t.log.remember(d.Path, original{text: text, existed: existed, known: known, source: SourceShell})
		}
		changed = append(changed, d.Path)
		w.t.fileChanged(d.Path, SourceShell, exists)
	}
	w.t.noteChanged(changed)
	return c.Notice
}

func joinNotices(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// shellWatcher returns the turn's watcher of shell commands, nil when
// there is no workspace to watch.
func (t *turn) shellWatcher() tools.ShellWatcher {
	if t.a.Env == nil || t.a.Env.Root == "" {
		return nil
	}
	t.changedMu.Lock()
	defer t.changedMu.Unlock()
	if t.shell == nil {
		t.shell = &shellWatch{t: t}
		if t.a.shells == nil {
			t.shell.own = &shellTracking{}
		}
	}
	return t.shell
}

// closeShell ends the turn's own tracking, if it has one.
func (t *turn) closeShell() {
	t.changedMu.Lock()
	defer t.changedMu.Unlock()
	if t.shell != nil && t.shell.own != nil {
		t.shell.own.close()
	}
}
