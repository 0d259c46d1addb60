package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/reasonix/reasonix/agent/store"
	"github.com/reasonix/reasonix/tools"
)

// Checkpoints. When a turn of a session ends, however it ends, what it
// changed is recorded: for each file its turn's change log holds (edits,
// shell commands, its tasks' tools), the text before the turn and the
// text when it ended, as content-addressed blobs, and a line naming them.
// Every turn gets a line, also one that changed no file, since a rewind
// (rewind.go) puts the conversation back too. A session in the store
// keeps them in <id>.checkpoints beside its file; one that is not stored
// keeps them in memory for its life.

// A Checkpoint is what one turn of a session changed, recorded when the turn ends.
type Checkpoint struct {
	Turn   int              `json:"turn"`
	Prompt string           `json:"prompt"` // the first line of the turn's prompt, as typed
	Time   time.Time        `json:"time"`
	Files  []CheckpointFile `json:"files"`
}

// CheckpointFile is one file a turn changed (by an edit tool, a shell command, a task's tools).
type CheckpointFile struct {
	Path    string       `json:"path"`    // absolute
	Existed bool         `json:"existed"` // before the turn
	Known   bool         `json:"known"`   // its text before was kept (always true when !Existed)
	Exists  bool         `json:"exists"`  // when the turn ended
	Source  ChangeSource `json:"source"`
	// BeforeBlob and AfterBlob name the texts before and after in the
	// checkpoint store: empty when the file was not there, or its text
	// was not kept (before) or could not be read (after).
	BeforeBlob string `json:"beforeBlob,omitempty"`
	AfterBlob  string `json:"afterBlob,omitempty"`
}

// checkpointLine is one line of a session's turns.jsonl: a turn's
// checkpoint, or a rewind, which voids the turns Turn…Upto.
type checkpointLine struct {
	Type string `json:"type"` // "turn" or "rewind"
	Checkpoint
	// Upto is, on a rewind, the latest turn the session had counted;
	// Seq the number of its latest message then (never reused).
	Upto int `json:"upto,omitempty"`
	Seq  int `json:"seq,omitempty"`
}

// checkpointStore keeps a session's blobs and lines.
type checkpointStore interface {
	putBlob(data []byte) (id string, written int, err error)
	blob(id string) ([]byte, error)
	appendLine(line []byte) error
	lines() ([][]byte, error)
	// conflictDir is where a rewind to before turn keeps the texts it
	// could not put back.
	conflictDir(turn int) (string, error)
}

// diskCheckpoints is the store of a stored session.
type diskCheckpoints struct{ c *store.Checkpoints }

func (d diskCheckpoints) putBlob(data []byte) (string, int, error) { return d.c.PutBlob(data) }
func (d diskCheckpoints) blob(id string) ([]byte, error)           { return d.c.Blob(id) }
func (d diskCheckpoints) appendLine(line []byte) error             { return d.c.Append(line) }
func (d diskCheckpoints) lines() ([][]byte, error)                 { return d.c.Lines() }
func (d diskCheckpoints) conflictDir(turn int) (string, error)     { return d.c.ConflictDir(turn), nil }

// memCheckpoints is the store of a session that is not stored.
type memCheckpoints struct {
	mu    sync.Mutex // guards the fields below
	blobs map[string][]byte
	ls    [][]byte
	// temp is the directory holding conflicts' texts, made on first use.
	temp string
}

func (m *memCheckpoints) putBlob(data []byte) (string, int, error) {
	id := store.BlobID(data)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.blobs[id]; ok {
		return id, 0, nil
	}
	if m.blobs == nil {
		m.blobs = map[string][]byte{}
	}
	m.blobs[id] = append([]byte(nil), data...)
	return id, len(data), nil
}

func (m *memCheckpoints) blob(id string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[id]
	if !ok {
		return nil, fmt.Errorf("checkpoint: no blob %s", id)
	}
	return b, nil
}

func (m *memCheckpoints) appendLine(line []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ls = append(m.ls, line)
	return nil
}

func (m *memCheckpoints) lines() ([][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.ls...), nil
}

func (m *memCheckpoints) conflictDir(turn int) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.temp == "" {
		d, err := os.MkdirTemp("", "reasonix-rewind-")
		if err != nil {
			return "", fmt.Errorf("checkpoint: %w", err)
		}
		m.temp = d
	}
	return filepath.Join(m.temp, fmt.Sprint(turn)), nil
}

// checkpointLog is a session's checkpoints, read from its store on first
// use.
type checkpointLog struct {
	st checkpointStore

	mu     sync.Mutex // guards the fields below
	loaded bool
	// turns are the recorded turns, oldest first, rewound ones included;
	// rewinds the rewind lines.
	turns   []Checkpoint
	rewinds []checkpointLine
}

func (a *Agent) newCheckpointLog(id string) *checkpointLog {
	if a.Store != nil {
		return &checkpointLog{st: diskCheckpoints{a.Store.Checkpoints(id)}}
	}
	return &checkpointLog{st: &memCheckpoints{}}
}

// checkpointsOf returns s's checkpoints, made in memory for a session
// made without them.
func (s *Session) checkpointsOf() *checkpointLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checkpoints == nil {
		s.checkpoints = &checkpointLog{st: &memCheckpoints{}}
	}
	return s.checkpoints
}

// loadLocked reads the lines back once; l.mu is held.
func (l *checkpointLog) loadLocked() error {
	if l.loaded {
		return nil
	}
	lines, err := l.st.lines()
	if err != nil {
		return err
	}
	for _, b := range lines {
		var c checkpointLine
		if json.Unmarshal(b, &c) != nil {
			continue // torn by a killed process
		}
		l.addLocked(c)
	}
	l.loaded = true
	return nil
}

func (l *checkpointLog) addLocked(c checkpointLine) {
	switch c.Type {
	case "turn":
		l.turns = append(l.turns, c.Checkpoint)
	case "rewind":
		l.rewinds = append(l.rewinds, c)
	}
}

// voidedLocked reports whether a rewind voided turn n.
func (l *checkpointLog) voidedLocked(n int) bool {
	for _, r := range l.rewinds {
		if n >= r.Turn && n <= r.Upto {
			return true
		}
	}
	return false
}

// live returns the turns not rewound, oldest first.
func (l *checkpointLog) live() ([]Checkpoint, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.loadLocked(); err != nil {
		return nil, err
	}
	var out []Checkpoint
	for _, c := range l.turns {
		if !l.voidedLocked(c.Turn) {
			out = append(out, c)
		}
	}
	return out, nil
}

// voided reports whether a rewind voided turn n.
func (l *checkpointLog) voided(n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.voidedLocked(n)
}

// highest returns the latest turn and message number the checkpoints
// know, which a resumed session counts on from.
func (l *checkpointLog) highest() (turn, seq int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.loadLocked(); err != nil {
		return 0, 0, err
	}
	for _, c := range l.turns {
		turn = max(turn, c.Turn)
	}
	for _, r := range l.rewinds {
		turn, seq = max(turn, r.Upto), max(seq, r.Seq)
	}
	return turn, seq, nil
}

// add appends a line to the store and the log.
func (l *checkpointLog) add(c checkpointLine) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.loadLocked(); err != nil {
		return err
	}
	if err := l.st.appendLine(b); err != nil {
		return err
	}
	l.addLocked(c)
	return nil
}

// Checkpoints returns the session's turns that can be rewound to, oldest first
// (rewound turns are left out). Every turn is listed, also those that changed no file.
func (a *Agent) Checkpoints(s *Session) ([]Checkpoint, error) {
	return s.checkpointsOf().live()
}

// recordCheckpoint writes the checkpoint of turn n of s, whose prompt
// is typed and whose changes log holds, and returns the bytes of blobs
// it wrote. A file a shell command changed last is read from the disk,
// where the command left it, as turn.changes does.
func (a *Agent) recordCheckpoint(s *Session, n int, typed string, log *changeLog) (int, error) {
	l := s.checkpointsOf()
	c := Checkpoint{Turn: n, Prompt: firstLine(typed, 200), Time: time.Now().UTC(), Files: []CheckpointFile{}}
	written := 0
	put := func(data []byte) (string, error) {
		id, w, err := l.st.putBlob(data)
		written += w
		return id, err
	}
	for _, p := range log.paths() {
		o, _ := log.get(p)
		f := CheckpointFile{Path: p, Existed: o.existed, Known: o.known || !o.existed, Source: o.source}
		if o.existed && o.known {
			id, err := put(o.text)
			if err != nil {
				return written, err
			}
			f.BeforeBlob = id
		}
		var view tools.FS = tools.DiskFS{}
		if o.last != SourceShell && a.Env != nil && a.Env.FS != nil {
			view = a.Env.FS
		}
		now, exists, err := readView(view, p)
		f.Exists = exists
		if exists && err == nil {
			id, err := put(now)
			if err != nil {
				return written, err
			}
			f.AfterBlob = id
		}
		c.Files = append(c.Files, f)
	}
	return written, l.add(checkpointLine{Type: "turn", Checkpoint: c})
}
