// Package review keeps the agent's file changes as proposals the user
// accepts or rejects hunk by hunk, instead of applying them at once.
//
// A Store knows nothing of editors or of where a change came from: a tool
// call's edit, a file a shell command changed, anything that can say
// "this file should now read so". Propose records the change against the
// file's current text and splits it into hunks. The current text is always
// passed in by the caller (an editor's buffer, the disk), because the user
// may edit the file meanwhile: every hunk is found again in the text it is
// given by the lines it replaces and one unchanged line on each side, and a
// hunk whose lines are gone is stale. A stale hunk is reported, never
// applied.
package review

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/lsp/wire"
)

// A Hunk is one contiguous change a proposal makes: the whole lines Old
// become New.
type Hunk struct {
	// ID names the hunk for as long as it is pending; ids are never
	// reused within a Store.
	ID int `json:"id"`
	// Old is the text the hunk replaces (whole lines; empty for an
	// insertion), New what replaces it.
	Old string `json:"oldText"`
	New string `json:"newText"`
	// Start and End are the byte offsets of Old in the text the hunk was
	// last found in; for an insertion they are equal. They are hints
	// between two calls and exact in what Hunks returns.
	Start int `json:"-"`
	End   int `json:"-"`
	// Stale is set when Old (or the lines around it) is no longer in the
	// text: the user changed it since the proposal.
	Stale bool `json:"stale"`
	// Delete is set on the one hunk of a proposal to delete the file.
	Delete bool `json:"delete,omitempty"`
	// Applied is set on a change already made to the file (by a shell
	// command) rather than proposed: New is in the text, Old is what was
	// there before. Accepting it keeps it; rejecting it puts Old back.
	Applied bool `json:"applied,omitempty"`
	// Created is set on the one applied hunk of a file a shell command
	// created: New is the whole file, and rejecting it removes the file.
	// The one applied hunk of a file a shell command deleted has Delete
	// and Applied set: Old is the whole file, and rejecting it puts the
	// file back.
	Created bool `json:"created,omitempty"`

	// before and after are the unchanged lines around Old when it was
	// proposed ("" at the start or end of the text); atStart and atEnd
	// say Old (with its context) began or ended the text.
	before, after  string
	atStart, atEnd bool
}

// Kind says what a proposal does to its file as a whole.
type Kind string

const (
	// Edit changes an existing file.
	Edit Kind = "edit"
	// Create makes a file that does not exist.
	Create Kind = "create"
	// Delete removes the file.
	Delete Kind = "delete"
)

// A File is the proposal pending for one file.
type File struct {
	Path string `json:"path"`
	Kind Kind   `json:"kind"`
	// Session is the session whose change this is, told when the user
	// rejects a hunk; "" for a change of no session.
	Session string  `json:"session,omitempty"`
	Hunks   []*Hunk `json:"hunks"`
}

// Rejection is what the proposing session is told of a rejected hunk.
type Rejection struct {
	Session string
	Path    string
	Hunk    Hunk
}

// Store holds the pending proposals by path. It is safe for concurrent
// use.
type Store struct {
	mu     sync.Mutex // guards the fields below
	files  map[string]*File
	nextID int
	// rejected holds rejections not yet told, by session.
	rejected map[string][]Rejection
	// gen counts the changes to what is pending.
	gen int
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{files: map[string]*File{}, rejected: map[string][]Rejection{}}
}

// Propose records that path should read want (nil: the file should not
// exist) instead of current, its text now (exists false: there is no such
// file). It replaces whatever was pending for path: the caller computed
// want from the text with the earlier proposal applied, so want already
// holds what of it still stands. A want equal to current leaves nothing
// pending.
func (s *Store) Propose(session, path, current string, exists bool, want *string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	// Changes already made stay to be reviewed, unless the proposal
	// rewrites their lines: then its old text holds them.
	var applied []*Hunk
	session0 := session
	if old, ok := s.files[path]; ok && exists && want != nil {
		old.relocate(current)
		for _, h := range old.Hunks {
			if h.Applied && !h.Stale {
				applied = append(applied, h)
			}
		}
		if len(applied) > 0 && old.Session != "" {
			session0 = old.Session
		}
	}
	delete(s.files, path)
	switch {
	case want == nil && !exists:
		return
	case want == nil:
		s.files[path] = &File{Path: path, Kind: Delete, Session: session, Hunks: []*Hunk{
			{ID: s.id(), Old: current, End: len(current), Delete: true, atStart: true, atEnd: true},
		}}
		return
	case exists && *want == current:
		if len(applied) > 0 {
			s.files[path] = &File{Path: path, Kind: Edit, Session: session0, Hunks: applied}
		}
		return
	}
	f := &File{Path: path, Kind: Edit, Session: session}
	if !exists {
		f.Kind = Create
		current = ""
	}
	f.Hunks = split(current, *want)
	for _, h := range f.Hunks {
		h.ID = s.id()
	}
	f.Hunks = append(f.Hunks, apart(applied, f.Hunks)...)
	if len(f.Hunks) > 0 || f.Kind == Create {
		if len(f.Hunks) == 0 { // an empty new file
			f.Hunks = []*Hunk{{ID: s.id(), atStart: true, atEnd: true}}
		}
		s.files[path] = f
	}
}

// Record keeps a change already made to the existing file path, from
// before to current (its text now), as applied hunks: the user accepts
// them (they stay) or rejects them (they are reverted, see Revert). Applied
// hunks recorded earlier that the change rewrote, or whose text is gone,
// give way to the new ones; proposals pending for path stay.
func (s *Store) Record(session, path, before, current string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// No change to the generation: what the agent sees and the disk lacks
	// is the same.
	// Split from the text now, so that each hunk is anchored in it, then
	// turned round: New is what the file has.
	hs := split(current, before)
	for _, h := range hs {
		h.Old, h.New = h.New, h.Old
		h.Applied = true
		h.ID = s.id()
	}
	f, ok := s.files[path]
	if !ok {
		if len(hs) == 0 {
			return
		}
		s.files[path] = &File{Path: path, Kind: Edit, Session: session, Hunks: hs}
		return
	}
	f.relocate(current)
	var kept []*Hunk
	for _, h := range f.Hunks {
		if h.Applied && (h.Stale || len(apart([]*Hunk{h}, hs)) == 0) {
			continue
		}
		kept = append(kept, h)
	}
	f.Hunks = append(kept, hs...)
	if f.Kind != Edit && !slices.ContainsFunc(kept, func(h *Hunk) bool { return h.Applied && (h.Delete || h.Created) }) &&
		!slices.ContainsFunc(kept, func(h *Hunk) bool { return !h.Applied }) {
		// The file the command created or deleted was changed again: what
		// is left to review is an edit of it.
		f.Kind = Edit
	}
	if f.Session == "" {
		f.Session = session
	}
	if len(f.Hunks) == 0 {
		delete(s.files, path)
	}
}

// RecordCreated keeps a file a shell command created, whose text is now
// current, as one applied hunk of a Create: the user accepts it (the file
// stays) or rejects it (the file is removed, see Revert). It replaces
// whatever was pending for path: the file on disk is the command's.
func (s *Store) RecordCreated(session, path, current string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.files[path] = &File{Path: path, Kind: Create, Session: session, Hunks: []*Hunk{
		{ID: s.id(), New: current, End: len(current), Applied: true, Created: true, atStart: true, atEnd: true},
	}}
}

// RecordDeleted keeps a file a shell command deleted, whose text was
// before, as one applied hunk of a Delete: the user accepts it (the file
// stays deleted) or rejects it (the file is written back with before, see
// Revert). It replaces whatever was pending for path.
func (s *Store) RecordDeleted(session, path, before string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.files[path] = &File{Path: path, Kind: Delete, Session: session, Hunks: []*Hunk{
		{ID: s.id(), Old: before, Applied: true, Delete: true, atStart: true, atEnd: true},
	}}
}

// apart returns the hunks of hs that overlap none of others (both found
// in the same text).
func apart(hs, others []*Hunk) []*Hunk {
	var out []*Hunk
	for _, h := range hs {
		clear := true
		for _, o := range others {
			if h.Start < o.End && o.Start < h.End || h.Start == o.Start {
				clear = false
				break
			}
		}
		if clear {
			out = append(out, h)
		}
	}
	return out
}

func (s *Store) id() int {
	s.nextID++
	return s.nextID
}

// split cuts the change from old to new into hunks of whole lines, each
// with the unchanged line before and after it as its anchor.
func split(old, new string) []*Hunk {
	var out []*Hunk
	for _, e := range wire.TextEdits(old, new, wire.UTF8) {
		start, err1 := wire.Offset(old, e.Range.Start, wire.UTF8)
		end, err2 := wire.Offset(old, e.Range.End, wire.UTF8)
		if err1 != nil || err2 != nil {
			// TextEdits' positions are within old by construction.
			continue
		}
		h := &Hunk{Old: old[start:end], New: e.NewText, Start: start, End: end}
		h.before = lineBefore(old, start)
		h.after = lineAfter(old, end)
		h.atStart = start-len(h.before) == 0
		h.atEnd = end+len(h.after) == len(old)
		out = append(out, h)
	}
	return out
}

// lineBefore returns the whole line ending at offset i (a line start).
func lineBefore(t string, i int) string {
	if i == 0 {
		return ""
	}
	j := strings.LastIndexByte(t[:i-1], '\n') + 1
	return t[j:i]
}

// lineAfter returns the whole line starting at offset i.
func lineAfter(t string, i int) string {
	if i >= len(t) {
		return ""
	}
	j := strings.IndexByte(t[i:], '\n')
	if j < 0 {
		return t[i:]
	}
	return t[i : i+j+1]
}

// inText is what of h is in the file while it is pending: the text a
// proposal replaces, or the text an applied change made.
func (h *Hunk) inText() string {
	if h.Applied {
		return h.New
	}
	return h.Old
}

// locate finds h in text, nearest to where it was last found moved by
// shift (how far the hunks before it moved), and updates Start, End and
// Stale.
func (h *Hunk) locate(text string, shift int) {
	if h.Delete {
		// A proposed deletion needs the text it deletes; a deletion made
		// already, a file that is still gone.
		want := h.Old
		if h.Applied {
			want = ""
		}
		h.Stale = text != want
		h.Start, h.End = 0, len(text)
		return
	}
	pat := h.before + h.inText() + h.after
	hint := h.Start - len(h.before) + shift
	accept := func(i int) bool {
		return (!h.atStart || i == 0) && (!h.atEnd || i+len(pat) == len(text))
	}
	var best int
	var found bool
	if hint >= 0 && hint+len(pat) <= len(text) && text[hint:hint+len(pat)] == pat &&
		(hint == 0 || text[hint-1] == '\n') && accept(hint) {
		// Where it was expected: no occurrence is nearer. The usual case,
		// an edit elsewhere, costs no search.
		best, found = hint, true
	} else {
		best, found = nearest(text, pat, hint, accept)
	}
	if !found {
		// Stale: keep it where its context says, for showing it.
		h.Stale = true
		if h.atStart {
			h.Start, h.End = 0, 0
		} else if i, ok := nearest(text, h.before, hint, nil); ok {
			h.Start = i + len(h.before)
			h.End = h.Start
		}
		h.Start = min(h.Start, len(text))
		h.End = h.Start
		return
	}
	h.Stale = false
	h.Start = best + len(h.before)
	h.End = h.Start + len(h.inText())
}

// nearest returns the start of the occurrence of pat at a line start in
// text nearest to hint, among those accept (nil: all) accepts.
func nearest(text, pat string, hint int, accept func(int) bool) (int, bool) {
	best, found := -1, false
	for from := 0; from <= len(text); {
		i := strings.Index(text[from:], pat)
		if i < 0 {
			break
		}
		i += from
		ok := (i == 0 || text[i-1] == '\n') && (accept == nil || accept(i))
		if ok && (!found || abs(i-hint) < abs(best-hint)) {
			best, found = i, true
		}
		from = i + 1
	}
	return best, found
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// relocate finds every hunk of f in text; a hunk that would overlap one
// found before it is stale.
func (f *File) relocate(text string) {
	last := -1
	sorted := slices.Clone(f.Hunks)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	shift := 0
	for _, h := range sorted {
		was := h.Start
		h.locate(text, shift)
		if !h.Stale {
			shift = h.Start - was
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	for _, h := range sorted {
		if h.Stale {
			continue
		}
		if h.Start < last {
			h.Stale = true
			continue
		}
		last = h.End
	}
}

// Pending returns a copy of the proposal for path, its hunks found in
// current and sorted by place, stale ones included; false when nothing is
// pending.
func (s *Store) Pending(path, current string) (File, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[path]
	if !ok {
		return File{}, false
	}
	f.relocate(current)
	return f.copy(), true
}

func (f *File) copy() File {
	c := *f
	c.Hunks = make([]*Hunk, len(f.Hunks))
	for i, h := range f.Hunks {
		hc := *h
		c.Hunks[i] = &hc
	}
	sort.SliceStable(c.Hunks, func(i, j int) bool { return c.Hunks[i].Start < c.Hunks[j].Start })
	return c
}

// Paths lists the paths with pending proposals, sorted.
func (s *Store) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.files))
}

// View returns the text path would have with every hunk that still
// applies accepted, given its current text: what the agent reads. deleted
// is set when the proposal removes the file; ok is false when nothing is
// pending for path.
func (s *Store) View(path, current string) (text string, deleted, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[path]
	if !ok {
		return "", false, false
	}
	f.relocate(current)
	if f.Kind == Delete {
		if f.Hunks[0].Stale {
			return current, false, true
		}
		return "", true, true
	}
	return apply(current, f.Hunks, nil), false, true
}

// apply returns text with the proposed hunks that are not stale and pass
// keep (nil: all) applied. The hunks are located in text. Applied hunks
// are in text already.
func apply(text string, hunks []*Hunk, keep func(*Hunk) bool) string {
	return rewrite(text, hunks, func(h *Hunk) (string, bool) {
		if h.Applied || h.Delete || (keep != nil && !keep(h)) {
			return "", false
		}
		return h.New, true
	})
}

// rewrite returns text with each hunk that is not stale and that with
// gives a replacement for replaced by it. The hunks are located in text.
func rewrite(text string, hunks []*Hunk, with func(*Hunk) (string, bool)) string {
	sorted := slices.Clone(hunks)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	var b strings.Builder
	last := 0
	for _, h := range sorted {
		if h.Stale {
			continue
		}
		r, ok := with(h)
		if !ok {
			continue
		}
		b.WriteString(text[last:h.Start])
		b.WriteString(r)
		last = h.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// Errors of Take.
var (
	// ErrNoProposal: nothing is pending for the file, or not that hunk.
	ErrNoProposal = errors.New("no such pending change")
	// ErrStale: the text the hunk replaces has changed since it was
	// proposed.
	ErrStale = errors.New("the text this change replaces has been edited since it was proposed")
)

// A Taken is hunks removed from the store to be applied: Text is the
// file's text with them applied (Delete set: the file is to be removed).
// The caller applies it, then calls Done, or Restore if it could not.
type Taken struct {
	Path   string
	Text   string
	Delete bool
	// Create is set when the file does not exist yet.
	Create  bool
	Hunks   []Hunk
	s       *Store
	file    *File
	kind    Kind
	ids     []int
	session string
}

// Changes reports whether applying t changes the file: false when it
// holds only applied hunks that were accepted.
func (t *Taken) Changes() bool {
	for _, h := range t.Hunks {
		if !h.Applied {
			return true
		}
	}
	return false
}

// Reverted records, once reverted hunks were written, that the user
// rejected them: the session whose change they were is told.
func (t *Taken) Reverted() {
	if t.session == "" {
		return
	}
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range t.Hunks {
		s.rejected[t.session] = append(s.rejected[t.session], Rejection{Session: t.session, Path: t.Path, Hunk: h})
	}
}

// Take removes hunk id of path's proposal (id 0: every hunk that is not
// stale) so that the caller can apply it to current. A stale hunk is never
// taken.
// Accepting an applied hunk takes it too, and changes nothing in Text.
func (s *Store) Take(path, current string, id int) (*Taken, error) {
	return s.take(path, current, id, nil, false)
}

// TakeHunks is Take of the hunks ids of path's proposal together: one
// Text with all of them applied. Any of them stale or gone takes none.
func (s *Store) TakeHunks(path, current string, ids []int) (*Taken, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w for %s", ErrNoProposal, path)
	}
	return s.take(path, current, -1, ids, false)
}

// Revert removes applied hunk id of path (id 0: every applied hunk that
// is not stale) so that the caller can undo it in current: Text is current
// with their old text put back. The caller writes it, then calls Reverted,
// or Restore if it could not.
func (s *Store) Revert(path, current string, id int) (*Taken, error) {
	return s.take(path, current, id, nil, true)
}

// ErrNotApplied: Revert was asked for a hunk that is only proposed.
var ErrNotApplied = errors.New("the change is proposed, not made: reject it instead")

// take takes hunk id (0: every one that is not stale, -1: those of ids).
func (s *Store) take(path, current string, id int, ids []int, revert bool) (*Taken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[path]
	if !ok {
		return nil, fmt.Errorf("%w for %s", ErrNoProposal, path)
	}
	f.relocate(current)
	chosen := map[int]bool{}
	for _, h := range f.Hunks {
		if id == 0 && !h.Stale && (!revert || h.Applied) || h.ID == id || slices.Contains(ids, h.ID) {
			if h.Stale {
				return nil, ErrStale
			}
			if revert && !h.Applied {
				return nil, ErrNotApplied
			}
			chosen[h.ID] = true
		}
	}
	if len(chosen) != len(ids) && id == -1 {
		return nil, fmt.Errorf("%w: %v in %s", ErrNoProposal, ids, path)
	}
	if len(chosen) == 0 {
		if id == 0 {
			return nil, fmt.Errorf("every pending change to %s is stale: %w", path, ErrStale)
		}
		return nil, fmt.Errorf("%w: %d in %s", ErrNoProposal, id, path)
	}
	s.gen++
	t := &Taken{Path: path, s: s, file: f, Create: f.Kind == Create, kind: f.Kind, session: f.Session}
	var kept []*Hunk
	for _, h := range f.Hunks {
		if chosen[h.ID] {
			t.Hunks = append(t.Hunks, *h)
			t.ids = append(t.ids, h.ID)
			t.Delete = t.Delete || h.Delete
		} else {
			kept = append(kept, h)
		}
	}
	if revert {
		t.Text = rewrite(current, f.Hunks, func(h *Hunk) (string, bool) { return h.Old, chosen[h.ID] })
		// Undoing a file a command created removes it; undoing one it
		// deleted creates it again.
		t.Create, t.Delete = false, false
		for _, h := range t.Hunks {
			t.Delete = t.Delete || h.Created
			t.Create = t.Create || h.Delete
		}
	} else {
		t.Text = apply(current, f.Hunks, func(h *Hunk) bool { return chosen[h.ID] })
	}
	f.Hunks = kept
	if len(kept) == 0 {
		delete(s.files, path)
	} else if f.Kind == Create {
		f.Kind = Edit // the accepted part creates the file
	}
	return t, nil
}

// Restore puts taken hunks back, as they were, when applying them failed.
func (t *Taken) Restore() {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	f, ok := s.files[t.Path]
	if !ok || f != t.file {
		if ok {
			// The agent proposed anew meanwhile: its proposal wins.
			return
		}
		f = t.file
		s.files[t.Path] = f
	}
	f.Kind = t.kind
	for i := range t.Hunks {
		h := t.Hunks[i]
		f.Hunks = append(f.Hunks, &h)
	}
}

// Reject drops hunk id of path's proposal (0: all of them, stale ones
// included) and keeps a Rejection for the session that proposed it; an
// applied hunk is forgotten without one (Revert undoes it).
// It returns how many hunks it dropped.
func (s *Store) Reject(path, current string, id int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[path]
	if !ok {
		return 0, fmt.Errorf("%w for %s", ErrNoProposal, path)
	}
	f.relocate(current)
	var kept []*Hunk
	n := 0
	for _, h := range f.Hunks {
		if id != 0 && h.ID != id {
			kept = append(kept, h)
			continue
		}
		n++
		// An applied hunk dropped here is only forgotten (it is stale, or
		// the caller undid it and told): the file keeps what it has.
		if f.Session != "" && !h.Applied {
			s.rejected[f.Session] = append(s.rejected[f.Session], Rejection{Session: f.Session, Path: path, Hunk: *h})
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: %d in %s", ErrNoProposal, id, path)
	}
	s.gen++
	f.Hunks = kept
	if len(kept) == 0 {
		delete(s.files, path)
	}
	return n, nil
}

// TakeRejections returns the rejections not yet told to session, and
// forgets them.
func (s *Store) TakeRejections(session string) []Rejection {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rejected[session]
	delete(s.rejected, session)
	return r
}

// ReturnRejections puts back rejections taken for session that could not
// be told (the turn asked the model nothing), before any newer ones.
func (s *Store) ReturnRejections(session string, rs []Rejection) {
	if len(rs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejected[session] = append(slices.Clone(rs), s.rejected[session]...)
}

// Withdraw drops what session has pending on paths, and its rejections
// on them not yet told, without telling anyone: the changes they were
// made against are being taken back (a rewind). Applied hunks go with the
// rest; what they changed stays in the file for the caller to put back.
// It returns the paths whose proposal was dropped, sorted.
func (s *Store) Withdraw(session string, paths []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range paths {
		if f, ok := s.files[p]; ok && f.Session == session && !slices.Contains(out, p) {
			delete(s.files, p)
			out = append(out, p)
		}
	}
	if len(out) > 0 {
		s.gen++
	}
	kept := s.rejected[session][:0]
	for _, r := range s.rejected[session] {
		if !slices.Contains(paths, r.Path) {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		delete(s.rejected, session)
	} else {
		s.rejected[session] = kept
	}
	slices.Sort(out)
	return out
}

// Line returns the 0-based line of byte offset off in text.
func Line(text string, off int) int {
	return strings.Count(text[:min(off, len(text))], "\n")
}

// Forget drops what is pending for path without telling anyone: the file
// was changed another way that already holds what the agent wanted.
func (s *Store) Forget(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	delete(s.files, path)
}

// Generation changes whenever what is proposed does: a decision about the
// pending proposals (run a command without them) holds while it is the
// same. Recording an applied change leaves it as it is.
func (s *Store) Generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// Proposes reports whether path has a pending hunk that is proposed, not
// applied: one the agent sees and the disk does not have.
func (s *Store) Proposes(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[path]
	if !ok {
		return false
	}
	for _, h := range f.Hunks {
		if !h.Applied {
			return true
		}
	}
	return false
}

// Has reports whether a proposal is pending for path.
func (s *Store) Has(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.files[path]
	return ok
}

// Unified renders a pending proposal, its hunks found in current (as
// Pending returns it), as a unified diff of the file called name. Stale
// hunks are listed in the header, not in the diff.
func Unified(name, current string, f File) string {
	var b strings.Builder
	for _, h := range f.Hunks {
		switch {
		case h.Stale:
			fmt.Fprintf(&b, "# stale (the text it replaces was edited): change %d\n", h.ID)
		case h.Applied:
			fmt.Fprintf(&b, "# made by a shell command, already on disk: change %d (line %d)\n", h.ID, Line(current, h.Start)+1)
		}
	}
	from, to := "a/"+name, "b/"+name
	switch f.Kind {
	case Create:
		from = "/dev/null"
	case Delete:
		to = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)
	shift := 0
	for _, h := range f.Hunks {
		if h.Stale {
			continue
		}
		old, new := diffLines(h.Old), diffLines(h.New)
		line := Line(current, h.Start)
		oldStart, newStart := line+1, line+1+shift
		if len(old) == 0 {
			oldStart--
		}
		if len(new) == 0 {
			newStart--
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", oldStart, len(old), newStart, len(new))
		for _, l := range old {
			b.WriteString("-" + l)
		}
		for _, l := range new {
			b.WriteString("+" + l)
		}
		shift += len(new) - len(old)
	}
	return b.String()
}

// diffLines splits text into lines for a diff, each ending in a newline
// (a last line without one is marked as diff marks it).
func diffLines(t string) []string {
	if t == "" {
		return nil
	}
	parts := strings.SplitAfter(t, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	} else {
		parts[len(parts)-1] += "\n\\ No newline at end of file\n"
	}
	return parts
}
