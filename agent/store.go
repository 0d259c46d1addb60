package agent

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
)

// Store keeps sessions as JSONL files in one directory, one session per
// file, one record per line. Records are written with a single write call
// as they happen, so a killed process loses at most the record in flight,
// and a torn last line is skipped on load.
//
// A compaction rewrites a session's file to hold only the compacted view,
// and first appends the messages it drops to the session's archive,
// <id>.archive.jsonl beside it (see rewrite), so the file stays about as
// large as the model's context window and nothing is lost.
type Store struct {
	Dir string
}

// archiveSuffix ends the name of a session's archive; tmpSuffix the name
// of a session file being rewritten. Neither is a session.
const (
	sessionSuffix = ".jsonl"
	archiveSuffix = ".archive.jsonl"
	tmpSuffix     = ".jsonl.tmp"
)

// sessionID returns the id of the session a file name holds, or false for
// any other file (an archive, a rewrite in progress, a directory of
// outputs).
func sessionID(name string) (string, bool) {
	if strings.HasSuffix(name, archiveSuffix) {
		return "", false
	}
	return strings.CutSuffix(name, sessionSuffix)
}

// Meta describes a session; it is the first record of its file.
type Meta struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	// Root is the workspace the session ran in.
	Root  string `json:"root"`
	Model string `json:"model"`
	// PrefixHash fingerprints the cached prompt prefix (system prompt and
	// tool schemas) the session started with.
	PrefixHash string `json:"prefixHash"`
	// Compactions counts the session's compactions, and Archived the
	// messages they moved to the archive.
	Compactions int `json:"compactions,omitempty"`
	Archived    int `json:"archived,omitempty"`
}

// ArchiveBlock heads the messages one compaction moved to a session's
// archive.
type ArchiveBlock struct {
	// Seq numbers the session's compactions from 1. A block whose Seq
	// repeats an earlier one's supersedes it (and anything after it): the
	// earlier attempt was cut short before the session file was
	// rewritten, so its messages stayed in the session.
	Seq      int       `json:"seq"`
	Time     time.Time `json:"time"`
	Messages int       `json:"messages"`
	Reason   string    `json:"reason,omitempty"`
}

// record is one line of a session file or archive.
type record struct {
	// Type is "meta", "message", "usage" (one model request), "totals"
	// (the usage of the requests a rewrite left out) or, in an archive,
	// "compaction".
	Type    string            `json:"type"`
	Meta    *Meta             `json:"meta,omitempty"`
	Message *provider.Message `json:"message,omitempty"`
	Turn    int               `json:"turn,omitempty"`
	Model   string            `json:"model,omitempty"`
	Usage   *provider.Usage   `json:"usage,omitempty"`
	Cost    float64           `json:"cost,omitempty"`
	Time    *time.Time        `json:"time,omitempty"`
	// Bytes is the size of the request a usage record accounts, as
	// estimateBytes measures it: with the prompt tokens it calibrates
	// the estimates a resumed session starts from.
	Bytes int           `json:"bytes,omitempty"`
	Block *ArchiveBlock `json:"compaction,omitempty"`
}

// sessionFile appends records to one session's file.
type sessionFile struct {
	mu   sync.Mutex // guards f, meta and kept
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

// newID returns a sortable, unique session id: creation time plus
// randomness.
func newID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (st *Store) path(id string) string { return filepath.Join(st.Dir, id+sessionSuffix) }

// ArchivePath is the file holding what compactions dropped from session id.
func (st *Store) ArchivePath(id string) string { return filepath.Join(st.Dir, id+archiveSuffix) }

// OutputDir is the directory holding session id's tool outputs that were
// too large for the conversation (see tools.MaxResultBytes).
func (st *Store) OutputDir(id string) string { return filepath.Join(st.Dir, id+".outputs") }

// create starts a new session file.
func (st *Store) create(m Meta) (*sessionFile, error) {
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	p := st.path(m.ID)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	sf := &sessionFile{f: f, path: p, meta: m, fresh: true}
	if err := sf.append(record{Type: "meta", Meta: &m}); err != nil {
		f.Close()
		return nil, err
	}
	return sf, nil
}

// reopen opens an existing session file, whose header is m, for
// appending.
func (st *Store) reopen(m Meta) (*sessionFile, error) {
	p := st.path(m.ID)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	return &sessionFile{f: f, path: p, meta: m}, nil
}

func (sf *sessionFile) append(r record) error {
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

// keep marks the session worth keeping even without a model response.
func (sf *sessionFile) keep() {
	sf.mu.Lock()
	sf.kept = true
	sf.mu.Unlock()
}

// close closes the file, and removes it when it is fresh and was not kept.
func (sf *sessionFile) close() error {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.f == nil {
		return nil
	}
	err := sf.f.Close()
	sf.f = nil
	if sf.fresh && !sf.kept {
		err = cmp.Or(os.Remove(sf.path), err)
		sf.removed = true
	}
	return err
}

// rewrite replaces the session's messages with view, the outcome of
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
func (sf *sessionFile) rewrite(view, dropped []provider.Message, block ArchiveBlock, total provider.Usage, cost float64, turns int) error {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.f == nil {
		return errors.New("session file is closed")
	}
	if err := appendArchive(strings.TrimSuffix(sf.path, sessionSuffix)+archiveSuffix, block, dropped); err != nil {
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
		if err := add(record{Type: "message", Message: &view[i]}); err != nil {
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
func appendArchive(path string, block ArchiveBlock, msgs []provider.Message) error {
	var buf []byte
	b, err := json.Marshal(record{Type: "compaction", Block: &block})
	if err != nil {
		return err
	}
	buf = append(append(buf, b...), '\n')
	for i := range msgs {
		b, err := json.Marshal(record{Type: "message", Message: &msgs[i]})
		if err != nil {
			return err
		}
		buf = append(append(buf, b...), '\n')
	}
	return writeSynced(path, os.O_APPEND, buf)
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

// Loaded is a session read back from its file.
type Loaded struct {
	Meta     Meta
	Messages []provider.Message
	Usage    provider.Usage
	Cost     float64
	Turns    int
	Updated  time.Time
	// TokensPerByte is what the last model request's prompt tokens were
	// per byte of it; zero when no request recorded its size.
	TokensPerByte float64
}

// Resolve finds the id of a session by its full id or a unique prefix.
func (st *Store) Resolve(idOrPrefix string) (string, error) {
	if idOrPrefix == "" {
		return "", errors.New("empty session id")
	}
	if _, ok := sessionID(idOrPrefix + sessionSuffix); ok {
		if _, err := os.Stat(st.path(idOrPrefix)); err == nil {
			return idOrPrefix, nil
		}
	}
	entries, err := os.ReadDir(st.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var hits []string
	for _, e := range entries {
		id, ok := sessionID(e.Name())
		if ok && strings.HasPrefix(id, idOrPrefix) {
			hits = append(hits, id)
		}
	}
	switch len(hits) {
	case 0:
		return "", fmt.Errorf("no session %q in %s", idOrPrefix, st.Dir)
	case 1:
		return hits[0], nil
	}
	return "", fmt.Errorf("session id %q is ambiguous: %s", idOrPrefix, strings.Join(hits, ", "))
}

// Load reads a session back.
func (st *Store) Load(id string) (*Loaded, error) {
	data, err := os.ReadFile(st.path(id))
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	l := &Loaded{}
	if fi, err := os.Stat(st.path(id)); err == nil {
		l.Updated = fi.ModTime()
	}
	recs := decodeRecords(data)
	first := true
	for _, r := range recs {
		if r == nil {
			// A torn last line from a killed process; anything
			// else corrupt is skipped the same way.
			continue
		}
		switch r.Type {
		case "meta":
			if r.Meta != nil && first {
				l.Meta = *r.Meta
			}
		case "message":
			if r.Message != nil {
				l.Messages = append(l.Messages, *r.Message)
			}
		case "usage", "totals":
			if r.Usage != nil {
				l.Usage.Add(*r.Usage)
				l.Cost += r.Cost
				if r.Bytes > 0 {
					l.TokensPerByte = float64(r.Usage.PromptTokens) / float64(r.Bytes)
				}
			}
			l.Turns = max(l.Turns, r.Turn)
		}
		first = false
	}
	if l.Meta.ID == "" {
		return nil, fmt.Errorf("session %s: no header record", id)
	}
	// The file system stamps a write with a coarse clock, which can read
	// a few milliseconds earlier than the one that dated the header.
	if l.Updated.Before(l.Meta.Created) {
		l.Updated = l.Meta.Created
	}
	return l, nil
}

// decodeRecords decodes the lines of a session file, nil for a line that
// is not a record. A long file — one never compacted — is decoded on
// several cores: JSON decoding is most of what resuming it costs.
func decodeRecords(data []byte) []*record {
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	recs := make([]*record, len(lines))
	decode := func(from, to int) {
		for i := from; i < to; i++ {
			var r record
			if json.Unmarshal(lines[i], &r) == nil {
				recs[i] = &r
			}
		}
	}
	const perWorker = 1024 // lines below which one core does it all
	workers := min(runtime.GOMAXPROCS(0), 8, 1+len(lines)/perWorker)
	var wg sync.WaitGroup
	for w := range workers {
		from, to := w*len(lines)/workers, (w+1)*len(lines)/workers
		wg.Go(func() { decode(from, to) })
	}
	wg.Wait()
	return recs
}

// Summary is one row of a session listing.
type Summary struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Root    string    `json:"root"`
	Model   string    `json:"model"`
	Title   string    `json:"title"`
	Turns   int       `json:"turns"`
	// Messages counts the messages the session holds; Archived those
	// its compactions moved to the archive.
	Messages int     `json:"messages"`
	Archived int     `json:"archived,omitempty"`
	Cost     float64 `json:"cost"`
}

// List summarises every session, most recently updated first.
func (st *Store) List() ([]Summary, error) {
	entries, err := os.ReadDir(st.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, e := range entries {
		id, ok := sessionID(e.Name())
		if !ok {
			continue
		}
		l, err := st.Load(id)
		if err != nil {
			continue
		}
		s := Summary{ID: id, Created: l.Meta.Created, Updated: l.Updated, Root: l.Meta.Root,
			Model: l.Meta.Model, Turns: l.Turns, Messages: len(l.Messages), Archived: l.Meta.Archived, Cost: l.Cost}
		for _, m := range l.Messages {
			if m.Role == provider.RoleUser {
				s.Title = title(m.Content)
				break
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// Archive reads back what the compactions of session id dropped, oldest
// first. A session never compacted has no archive: nil, no error.
func (st *Store) Archive(id string) ([]provider.Message, error) {
	f, err := os.Open(st.ArchivePath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	defer f.Close()
	// starts[k] is where block k+1's messages begin in msgs.
	var msgs []provider.Message
	var starts []int
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue // torn by a killed process
		}
		switch {
		case r.Type == "compaction" && r.Block != nil && r.Block.Seq >= 1:
			// A repeated number supersedes the earlier block.
			if k := r.Block.Seq - 1; k < len(starts) {
				msgs, starts = msgs[:starts[k]], starts[:k]
			}
			starts = append(starts, len(msgs))
		case r.Type == "message" && r.Message != nil:
			msgs = append(msgs, *r.Message)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	return msgs, nil
}

// title shortens a prompt to one line for listings. Only its first
// paragraph counts: what follows a blank line is what was attached to it
// (a file, a listing, the editor's selection, the planner's plan), which
// says nothing the prompt did not.
func title(s string) string {
	s = strings.TrimSpace(s)
	// A skill's turn starts with its instructions (skills.Render): the
	// title is the command typed, /name and what followed it.
	if rest, ok := strings.CutPrefix(s, `<skill name="`); ok {
		if name, _, ok := strings.Cut(rest, `"`); ok {
			typed := "/" + name
			if i := strings.LastIndex(s, "\n\nARGUMENTS: "); i >= 0 {
				args, _, _ := strings.Cut(s[i+len("\n\nARGUMENTS: "):], "\n")
				typed += " " + args
			}
			s = typed
		}
	}
	s, _, _ = strings.Cut(s, "\n\n")
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 72 {
		s = string(r[:71]) + "…"
	}
	return s
}
