package agent

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/store"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/linediff"
)

// A rewind to before turn N puts back what the session's live turns N…
// changed, from their checkpoints (checkpoint.go), and cuts the
// conversation back to before N. Its turns are then void: they are no
// longer listed, and a later rewind ignores them. Turn numbers are never
// reused, so the next turn after it is numbered on from the latest.
//
// A file is put back only where it still holds what the turns left in it
// (or is already as it was). Where someone else changed it since, it is
// left alone and reported as a conflict, with its text from before the
// turns kept in a file outside the workspace.

// The actions of a RewindFile.
const (
	RewindRestore   = "restore"
	RewindRemove    = "remove"
	RewindRecreate  = "recreate"
	RewindMerge     = "merge"
	RewindConflict  = "conflict"
	RewindUnknown   = "unknown"
	RewindUnchanged = "unchanged"
)

// RewindPlan is what rewinding to before Turn does (or did, once Done).
type RewindPlan struct {
	SessionID string       `json:"sessionId"`
	Turn      int          `json:"turn"`
	Turns     []int        `json:"turns"` // the turns rewound: Turn and every later live one
	Files     []RewindFile `json:"files"`
	Messages  int          `json:"messages"` // messages cut from the conversation
	Done      bool         `json:"done"`
}

// RewindFile is what a rewind does to one file.
type RewindFile struct {
	Path string `json:"path"` // absolute
	// Action is "restore" (text put back), "remove" (created by the
	// turns), "recreate" (deleted by the turns), "merge" (changed since
	// by someone else; the turns' changes were taken out and theirs
	// kept), "conflict" (changed since, overlapping: left as it is),
	// "unknown" (its text before was not kept: left as it is) or
	// "unchanged" (already as it was).
	Action string `json:"action"`
	// Before is the text the rewind puts back (restore/recreate/merge),
	// and Now the text it has now, for previews: left out when larger
	// than 64 KiB or not text.
	Before *string `json:"before,omitempty"`
	Now    *string `json:"now,omitempty"`
	Saved  string  `json:"saved,omitempty"` // conflict: a file holding the text before the turns (not in the workspace)
	Note   string  `json:"note,omitempty"`  // why, for conflict/unknown
}

// errUnnumbered refuses to rewind a session recorded before its messages
// were numbered by turn, where a digest covers both those messages and
// the turns to rewind. (Its earlier turns have no checkpoints anyway.)
var errUnnumbered = errors.New("this session was recorded before messages were numbered by turn, and a compaction folded them with the turns to rewind: its conversation cannot be rebuilt without them")

// fileStep is what a rewind does to one file, with the text it puts
// back.
type fileStep struct {
	file   RewindFile
	target []byte // nil with !exists
	exists bool
}

// rewindWork is a planned rewind: the plan and what carrying it out
// takes.
type rewindWork struct {
	plan  RewindPlan
	files []fileStep
	conv  conversationCut
}

// PlanRewind says what Rewind(s, turn) would do, changing nothing (the panel's preview).
func (a *Agent) PlanRewind(ctx context.Context, s *Session, turn int) (RewindPlan, error) {
	w, err := a.planRewind(ctx, s, turn)
	return w.plan, err
}

// Rewind puts the files the session's turns turn… changed back as they were before turn
// (one Env.FS.Apply: in an editor, one workspace/applyEdit), leaves conflicts alone, and cuts the
// conversation back to before turn (the cut messages go to the session's archive). It emits
// EventRewind with the plan (Event.Rewind), which front ends use to drop pending proposals of
// the rewound turns and refresh their views. ErrBusy while the session runs a turn.
func (a *Agent) Rewind(ctx context.Context, s *Session, turn int) (RewindPlan, error) {
	_, end, err := a.begin(s, false)
	if err != nil {
		return RewindPlan{}, err
	}
	defer end()
	w, err := a.planRewind(ctx, s, turn)
	if err != nil {
		return w.plan, err
	}
	l := s.checkpointsOf()
	var changes []tools.Change
	for i := range w.files {
		f := &w.files[i]
		switch f.file.Action {
		case RewindRestore, RewindRecreate, RewindMerge:
			changes = append(changes, tools.Change{Kind: tools.Write, Path: f.file.Path, Content: f.target})
		case RewindRemove:
			changes = append(changes, tools.Change{Kind: tools.Delete, Path: f.file.Path})
		case RewindConflict:
			if !f.exists {
				continue // nothing to keep: it was not there
			}
			dir, err := l.st.conflictDir(turn)
			if err != nil {
				return w.plan, err
			}
			f.file.Saved, err = saveConflict(dir, a.Env.Rel(f.file.Path), f.target)
			if err != nil {
				return w.plan, err
			}
		}
	}
	if len(changes) > 0 {
		if err := a.Env.FS.Apply(a.rewindCall(ctx, s, changes), changes); err != nil {
			return w.plan, fmt.Errorf("rewind: %w", err)
		}
	}
	if err := s.cut(a, w.conv); err != nil {
		return w.plan, fmt.Errorf("rewind: the files are back, but the conversation could not be cut: %w", err)
	}
	s.mu.Lock()
	upto, seq := s.turns, s.seq
	s.mu.Unlock()
	rec := checkpointLine{Type: "rewind", Checkpoint: Checkpoint{Turn: turn, Time: time.Now().UTC()}, Upto: upto, Seq: seq}
	if err := l.add(rec); err != nil {
		return w.plan, fmt.Errorf("rewind: %w", err)
	}
	w.plan.Files = w.plan.Files[:0]
	for _, f := range w.files {
		w.plan.Files = append(w.plan.Files, f.file)
	}
	w.plan.Done = true
	a.emit(Event{Kind: EventRewind, SessionID: s.ID, Rewind: &w.plan})
	return w.plan, nil
}

// rewindCall is the context of the rewind's changes as the write seam
// (writeseam.go) judges them. A rewind is the user's own explicit act on
// files they have just seen listed, so it declares every path: a rule
// that asks about a path the call did not declare does not ask again.
// Deny rules, the permission mode and the sandbox still hold, and a
// control file is never among the changes (planRewind reports it as a
// conflict), which the seam would refuse anyway: no call approved it.
func (a *Agent) rewindCall(ctx context.Context, s *Session, changes []tools.Change) context.Context {
	call := &writeCall{session: s.ID}
	for _, c := range changes {
		call.declared = append(call.declared, spellings(a.Env, c.Path)...)
	}
	return withWriteCall(ctx, call)
}

// saveConflict writes text, a file's text before the rewound turns, to
// rel below dir, and returns where.
func saveConflict(dir, rel string, text []byte) (string, error) {
	p := filepath.Join(dir, filepath.Clean(string(filepath.Separator)+rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("rewind: %w", err)
	}
	if err := os.WriteFile(p, text, 0o600); err != nil {
		return "", fmt.Errorf("rewind: %w", err)
	}
	return p, nil
}

// planRewind works out a rewind to before turn n.
func (a *Agent) planRewind(ctx context.Context, s *Session, n int) (rewindWork, error) {
	w := rewindWork{plan: RewindPlan{SessionID: s.ID, Turn: n, Files: []RewindFile{}}}
	live, err := a.Checkpoints(s)
	if err != nil {
		return w, err
	}
	k := slices.IndexFunc(live, func(c Checkpoint) bool { return c.Turn == n })
	if k < 0 {
		var have []string
		for _, c := range live {
			have = append(have, fmt.Sprint(c.Turn))
		}
		if len(have) == 0 {
			return w, fmt.Errorf("no turn %d to rewind to: the session has no checkpoints", n)
		}
		return w, fmt.Errorf("no turn %d to rewind to (the turns are %s)", n, strings.Join(have, ", "))
	}
	rewound := live[k:]
	for _, c := range rewound {
		w.plan.Turns = append(w.plan.Turns, c.Turn)
	}
	l := s.checkpointsOf()
	w.conv, err = s.planCut(a, n, l.voided)
	if err != nil {
		return w, err
	}
	w.plan.Messages = w.conv.cutCount
	w.files, err = a.planFiles(ctx, l.st, n, rewound)
	if err != nil {
		return w, err
	}
	for _, f := range w.files {
		w.plan.Files = append(w.plan.Files, f.file)
	}
	return w, nil
}

// planFiles decides what becomes of each file the turns changed.
func (a *Agent) planFiles(ctx context.Context, st checkpointStore, n int, rewound []Checkpoint) ([]fileStep, error) {
	// first holds each file as the earliest of the turns found it, last
	// as the latest left it.
	first, last := map[string]CheckpointFile{}, map[string]CheckpointFile{}
	var order []string
	lastTurn := map[string]int{}
	for _, c := range rewound {
		for _, f := range c.Files {
			if _, ok := first[f.Path]; !ok {
				first[f.Path] = f
				order = append(order, f.Path)
			}
			last[f.Path], lastTurn[f.Path] = f, c.Turn
		}
	}
	var out []fileStep
	for _, p := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		step, err := a.planFile(st, n, first[p], last[p], lastTurn[p])
		if err != nil {
			return nil, err
		}
		out = append(out, step)
	}
	return out, nil
}

// planFile decides what becomes of one file, which the earliest rewound
// turn found as first and turn lastTurn left as last.
func (a *Agent) planFile(st checkpointStore, n int, first, last CheckpointFile, lastTurn int) (fileStep, error) {
	p := first.Path
	step := fileStep{file: RewindFile{Path: p}, exists: first.Existed}
	now, nowExists, err := readView(a.Env.FS, p)
	if err != nil {
		step.file.Action, step.file.Note = RewindConflict, fmt.Sprintf("it cannot be read now: %v", err)
		return step, nil
	}
	step.file.Now = previewText(now, nowExists)
	if first.Existed && (!first.Known || first.BeforeBlob == "") {
		step.file.Action, step.file.Note = RewindUnknown, fmt.Sprintf("its text before turn %d was not kept", n)
		return step, nil
	}
	if first.Existed {
		if step.target, err = st.blob(first.BeforeBlob); err != nil {
			return step, err
		}
		step.file.Before = previewText(step.target, true)
	}
	if sameState(now, nowExists, step.target, step.exists) {
		step.file.Action = RewindUnchanged
		return step, nil
	}
	if isControlPath(a.Env, p) {
		step.file.Action, step.file.Note = RewindConflict, "one of Reasonix's control files, which a rewind never writes"
		return step, nil
	}
	if last.Exists && last.AfterBlob == "" {
		step.file.Action, step.file.Note = RewindConflict, fmt.Sprintf("its text when turn %d ended could not be read, so changes since cannot be told apart", lastTurn)
		return step, nil
	}
	// Whether it still holds what the turns left is told by the hash of
	// that text.
	if nowExists != last.Exists || (nowExists && store.BlobID(now) != last.AfterBlob) {
		// Someone else changed it since. Where their changes keep clear
		// of the turns', the turns' are taken out and theirs kept: a
		// three-way merge of the turns' last text (the base), the text
		// now and the text before the turns. It needs all three texts.
		if merged, ok := mergeBack(st, last, now, nowExists, step.target, step.exists); ok {
			step.target = merged
			step.file.Action, step.file.Before = RewindMerge, previewText(merged, true)
			step.file.Note = fmt.Sprintf("changed since turn %d ended; those changes are kept", lastTurn)
			return step, nil
		}
		step.file.Action, step.file.Note = RewindConflict, fmt.Sprintf("changed since turn %d ended", lastTurn)
		return step, nil
	}
	switch {
	case !step.exists:
		step.file.Action = RewindRemove
	case !nowExists:
		step.file.Action = RewindRecreate
	default:
		step.file.Action = RewindRestore
	}
	return step, nil
}

// sameState reports whether two states of a file, its text and whether
// it exists, are the same.
func sameState(a []byte, aExists bool, b []byte, bExists bool) bool {
	return aExists == bExists && (!aExists || bytes.Equal(a, b))
}

// isControlPath reports whether p is one of Reasonix's control files, by
// the sandbox's list or by its names.
func isControlPath(env *tools.Env, p string) bool {
	if _, ok := controlOf(env, spellings(env, p)); ok {
		return true
	}
	rel := env.Rel(p)
	return !filepath.IsAbs(rel) && isControl(filepath.ToSlash(rel))
}

// previewText is a file's text for a preview: nil when absent, too large
// or not text.
func previewText(data []byte, exists bool) *string {
	if !exists || len(data) > maxWireBefore || !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	s := string(data)
	return &s
}

// conversationCut is a session's conversation after a rewind.
type conversationCut struct {
	// from is the length of the history it was planned from.
	from      int
	view      []provider.Message
	viewMarks []store.Mark
	// dropped go to the archive.
	dropped      []provider.Message
	droppedMarks []store.Mark
	// cutCount counts the messages of the rewound turns in the history.
	cutCount int
}

// planCut works out the conversation after a rewind to before turn n;
// voided says which turns an earlier rewind voided.
//
// Where no digest in the history belongs to turn n or later, the history
// is cut at the first message of turn n or later, and the cached prefix
// before it stays. Otherwise a compaction folded some of those turns into
// a digest, which cannot be kept; nor may the messages of earlier turns
// it folded be lost: the history is rebuilt from the system message and
// every original message of the live turns before n, from the archive and
// the history, in their order. The next request then compacts again if it
// must.
func (s *Session) planCut(a *Agent, n int, voided func(int) bool) (conversationCut, error) {
	s.mu.Lock()
	msgs, marks := slices.Clone(s.messages), slices.Clone(s.marks)
	s.mu.Unlock()
	c := conversationCut{from: len(msgs)}
	for len(marks) < len(msgs) {
		marks = append(marks, store.Mark{})
	}
	digest := false
	cut := len(msgs)
	for i := 1; i < len(msgs); i++ {
		// A message recorded before messages were numbered (Seq 0) is
		// older than any numbered one, and belongs to no turn that has
		// a checkpoint: a cut after it keeps it, rightly.
		if marks[i].Turn >= n {
			c.cutCount++
			cut = min(cut, i)
			digest = digest || msgs[i].Digest
		}
	}
	if !digest {
		c.view, c.viewMarks = msgs[:cut], marks[:cut]
		c.dropped, c.droppedMarks = msgs[cut:], marks[cut:]
		return c, nil
	}
	archived, archivedMarks, err := s.archive(a)
	if err != nil {
		return c, err
	}
	type key struct {
		seq        int
		role, call string
	}
	seen := map[key]bool{}
	var keep []int // indices into all
	all := append(slices.Clone(archived), msgs[1:]...)
	allMarks := append(slices.Clone(archivedMarks), marks[1:]...)
	for i, m := range all {
		mk := allMarks[i]
		if mk.Seq == 0 {
			// Its turn is unknown: the rebuilt conversation cannot
			// place it.
			return c, errUnnumbered
		}
		k := key{mk.Seq, string(m.Role), m.ToolCallID}
		if m.Digest || mk.Turn < 1 || mk.Turn >= n || voided(mk.Turn) || seen[k] {
			continue
		}
		seen[k] = true
		keep = append(keep, i)
	}
	slices.SortStableFunc(keep, func(i, j int) int { return cmp.Compare(allMarks[i].Seq, allMarks[j].Seq) })
	c.view, c.viewMarks = []provider.Message{msgs[0]}, []store.Mark{marks[0]}
	for _, i := range keep {
		c.view, c.viewMarks = append(c.view, all[i]), append(c.viewMarks, allMarks[i])
	}
	for i := 1; i < len(msgs); i++ {
		if marks[i].Turn >= n || msgs[i].Digest {
			c.dropped, c.droppedMarks = append(c.dropped, msgs[i]), append(c.droppedMarks, marks[i])
		}
	}
	return c, nil
}

// archive returns what the session's compactions and rewinds dropped,
// with their marks.
func (s *Session) archive(a *Agent) ([]provider.Message, []store.Mark, error) {
	if s.file != nil && a.Store != nil {
		return a.Store.ArchiveMarked(s.ID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.archived), slices.Clone(s.archivedMarks), nil
}

// cut makes c the session's conversation, the dropped messages going to
// the archive in a block of their own.
func (s *Session) cut(a *Agent, c conversationCut) error {
	if len(c.dropped) == 0 && len(c.view) == c.from {
		return nil
	}
	if err := s.replace(c.view, c.viewMarks, c.dropped, c.droppedMarks, c.from, "rewind"); err != nil {
		return err
	}
	s.mu.Lock()
	s.foldBlocked = 0
	s.mu.Unlock()
	if a.Env != nil {
		s.nested.rebase(a.Env, c.view)
	}
	return nil
}

// rewindList is /rewind's answer: the turns that can be rewound to.
func (a *Agent) rewindList(s *Session) (string, error) {
	live, err := a.Checkpoints(s)
	if err != nil {
		return "", fmt.Errorf("/rewind: %w", err)
	}
	if len(live) == 0 {
		return "No turn to rewind to yet.", nil
	}
	var b strings.Builder
	b.WriteString("Turns (/rewind N puts the files and the conversation back to before turn N):")
	for _, c := range live {
		fmt.Fprintf(&b, "\n  %d  %s  (%s)", c.Turn, c.Prompt, a.filesNamed(c.Files))
	}
	return b.String(), nil
}

// filesNamed says which files a turn changed: their count, and the
// first few by their paths in the workspace.
func (a *Agent) filesNamed(files []CheckpointFile) string {
	const shown = 3
	if len(files) == 0 {
		return "no files"
	}
	var names []string
	for i, f := range files {
		if i == shown {
			names = append(names, fmt.Sprintf("+%d more", len(files)-shown))
			break
		}
		names = append(names, a.Env.Rel(f.Path))
	}
	return countOf(len(files), "file") + ": " + strings.Join(names, ", ")
}

// RewindSummary is a rewind in one line, as front ends show it: "Rewound
// to before turn 2: 3 files restored, 1 conflict (src/a.go: changed
// since turn 3 ended; its earlier text is in …)".
func (a *Agent) RewindSummary(p RewindPlan) string {
	counts := map[string]int{}
	var notes []string
	for _, f := range p.Files {
		counts[f.Action]++
		if f.Action == RewindConflict || f.Action == RewindUnknown {
			note := a.Env.Rel(f.Path) + ": " + f.Note
			if f.Saved != "" {
				note += "; its earlier text is in " + f.Saved
			}
			notes = append(notes, note)
		}
	}
	verb := "Rewinding"
	if p.Done {
		verb = "Rewound"
	}
	var parts []string
	for _, x := range []struct{ action, word, done string }{
		{RewindRestore, "file", "restored"}, {RewindRemove, "file", "removed"}, {RewindRecreate, "file", "recreated"},
		{RewindMerge, "file", "merged"}, {RewindUnchanged, "file", "already as it was"},
		{RewindConflict, "conflict", ""}, {RewindUnknown, "file", "not kept"},
	} {
		if k := counts[x.action]; k > 0 {
			parts = append(parts, strings.TrimSpace(countOf(k, x.word)+" "+x.done))
		}
	}
	parts = append(parts, countOf(p.Messages, "message")+" cut")
	line := fmt.Sprintf("%s to before turn %d: %s", verb, p.Turn, strings.Join(parts, ", "))
	if len(notes) > 0 {
		line += " (" + strings.Join(notes, "; ") + ")"
	}
	return line
}

// mergeBack takes the changes of the rewound turns out of a file someone
// else changed since, keeping theirs: the text now with the changes from
// the turns' last text to the text before them applied. ok is false when
// the changes overlap or touch, or when a text is missing (the file did
// not exist at one of the three points, or its last text was too large to
// keep).
func mergeBack(st checkpointStore, last CheckpointFile, now []byte, nowExists bool, target []byte, targetExists bool) ([]byte, bool) {
	if !nowExists || !targetExists || !last.Exists || last.AfterBlob == "" {
		return nil, false
	}
	base, err := st.blob(last.AfterBlob)
	if err != nil {
		return nil, false
	}
	merged, ok := linediff.Merge(string(base), string(now), string(target))
	if !ok {
		return nil, false
	}
	return []byte(merged), true
}
