package store

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/agent/provider"
)

// A File appends the records of one session to its file, each with a
// single write as it happens.
type File struct {
	mu   sync.Mutex // guards f, meta, kept and removed
	f    *os.File
	path string
	meta Meta
	// fresh is set when this process created the file. A fresh file is
	// removed on close unless it was kept: a run that failed before the
	// model answered once leaves no empty session to list or resume.
	fresh bool
	// kept is set once the session holds something worth resuming: a
	// model response (its usage record) or a turn the user interrupted.
	kept bool
	// removed is set once close removed the file.
	removed bool
}

// Create starts the file of a new session, whose header is m.
func (st *Store) Create(m Meta) (*File, error) {
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	p := st.Path(m.ID)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	sf := &File{f: f, path: p, meta: m, fresh: true}
	if err := sf.append(record{Type: "meta", Meta: &m}); err != nil {
		f.Close()
		return nil, err
	}
	return sf, nil
}

// Reopen opens the file of a stored session, whose header is m, for
// appending.
func (st *Store) Reopen(m Meta) (*File, error) {
	p := st.Path(m.ID)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	return &File{f: f, path: p, meta: m}, nil
}

// AppendMessage records a message of the conversation.
func (sf *File) AppendMessage(m *provider.Message) error {
	return sf.append(record{Type: "message", Message: m})
}

// AppendMarked records a message of the conversation with its Mark.
func (sf *File) AppendMarked(m *provider.Message, mark Mark) error {
	return sf.append(record{Type: "message", Message: m, Turn: mark.Turn, Seq: mark.Seq})
}

// AppendUsage records one answered model request of turn: the model it
// went to, its usage and cost, and its size in bytes (see record.Bytes).
// A session with one is kept (see Close).
func (sf *File) AppendUsage(turn int, model string, u provider.Usage, cost float64, bytes int) error {
	return sf.append(record{Type: "usage", Turn: turn, Model: model, Usage: &u, Cost: cost, Bytes: bytes})
}

// Path is the session's file.
func (sf *File) Path() string { return sf.path }

// Removed reports whether Close removed the file.
func (sf *File) Removed() bool {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	return sf.removed
}

func (sf *File) append(r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.f == nil {
		return errors.New("session file is closed")
	}
	if _, err := sf.f.Write(b); err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	if r.Type == "usage" {
		sf.kept = true
	}
	return nil
}

// Keep marks the session worth keeping even without a model response.
func (sf *File) Keep() {
	sf.mu.Lock()
	sf.kept = true
	sf.mu.Unlock()
}

// Close closes the file, and removes it when it is fresh and was not kept.
func (sf *File) Close() error {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.f == nil {
		return nil
	}
	err := sf.f.Close()
	sf.f = nil
	if sf.fresh && !sf.kept {
		err = cmp.Or(os.Remove(sf.path), err)
		// A turn that failed before the model answered may have left
		// its checkpoint: it goes with the session.
		os.RemoveAll(checkpointDir(sf.path))
		sf.removed = true
	}
	return err
}

// Rewrite replaces the session's messages with view, the outcome of
// compaction number block.Seq, after moving dropped to the archive. The
// file's other records become one header and one totals record (total,
// cost and turns: the usage of every request so far).
//
// The order makes it safe to kill the process at any point: the archive
// block is appended and synced first; the new file is written beside the
// old one, synced, and renamed over it. Until the rename the old file is
// whole and the archive may hold a block that a later compaction repeats
// (ArchiveBlock.Seq says which one counts); after it, the dropped
// messages are already on disk.
func (sf *File) Rewrite(view, dropped []provider.Message, block ArchiveBlock, total provider.Usage, cost float64, turns int) error {
	return sf.RewriteMarked(view, nil, dropped, nil, block, total, cost, turns)
}

// RewriteMarked is Rewrite with the Marks of view's and dropped's
// messages (parallel to them; nil records none).
func (sf *File) RewriteMarked(view []provider.Message, viewMarks []Mark, dropped []provider.Message, droppedMarks []Mark, block ArchiveBlock, total provider.Usage, cost float64, turns int) error {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.f == nil {
		return errors.New("session file is closed")
	}
	if err := appendArchive(strings.TrimSuffix(sf.path, sessionSuffix)+archiveSuffix, block, dropped, droppedMarks); err != nil {
		return fmt.Errorf("session archive: %w", err)
	}
	meta := sf.meta
	meta.Compactions = block.Seq
	meta.Archived += len(dropped)
	var buf []byte
	add := func(r record) error {
		b, err := json.Marshal(r)
		buf = append(append(buf, b...), '\n')
		return err
	}
	if err := add(record{Type: "meta", Meta: &meta}); err != nil {
		return err
	}
	if err := add(record{Type: "totals", Turn: turns, Usage: &total, Cost: cost}); err != nil {
		return err
	}
	for i := range view {
		if err := add(messageRecord(&view[i], viewMarks, i)); err != nil {
			return err
		}
	}
	tmp := strings.TrimSuffix(sf.path, sessionSuffix) + tmpSuffix
	if err := writeSynced(tmp, os.O_TRUNC, buf); err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	// Windows cannot rename over an open file: close, rename, reopen.
	sf.f.Close()
	renameErr := os.Rename(tmp, sf.path)
	if renameErr == nil {
		syncDir(filepath.Dir(sf.path))
		sf.meta = meta
	} else {
		os.Remove(tmp)
	}
	f, err := os.OpenFile(sf.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		sf.f = nil
		return fmt.Errorf("session store: %w", cmp.Or(renameErr, err))
	}
	sf.f, sf.kept = f, true
	if renameErr != nil {
		return fmt.Errorf("session store: %w", renameErr)
	}
	return nil
}

// appendArchive appends one compaction's block to an archive and syncs it.
func appendArchive(path string, block ArchiveBlock, msgs []provider.Message, marks []Mark) error {
	var buf []byte
	b, err := json.Marshal(record{Type: "compaction", Block: &block})
	if err != nil {
		return err
	}
	buf = append(append(buf, b...), '\n')
	for i := range msgs {
		b, err := json.Marshal(messageRecord(&msgs[i], marks, i))
		if err != nil {
			return err
		}
		buf = append(append(buf, b...), '\n')
	}
	return writeSynced(path, os.O_APPEND, buf)
}

// messageRecord is the record of message m, the i'th of those marks
// (if any) are the Marks of.
func messageRecord(m *provider.Message, marks []Mark, i int) record {
	r := record{Type: "message", Message: m}
	if i < len(marks) {
		r.Turn, r.Seq = marks[i].Turn, marks[i].Seq
	}
	return r
}

// writeSynced writes data to the file at path, opened with flag besides
// write-only and create (O_APPEND or O_TRUNC), and syncs it to disk.
func writeSynced(path string, flag int, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|flag, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return cmp.Or(err, f.Close())
}

// syncDir makes a rename in dir durable, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
