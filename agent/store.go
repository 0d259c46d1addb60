package agent

import (
	"bufio"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
type Store struct {
	Dir string
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
}

// record is one line of a session file.
type record struct {
	Type    string            `json:"type"` // "meta", "message", "usage"
	Meta    *Meta             `json:"meta,omitempty"`
	Message *provider.Message `json:"message,omitempty"`
	Turn    int               `json:"turn,omitempty"`
	Model   string            `json:"model,omitempty"`
	Usage   *provider.Usage   `json:"usage,omitempty"`
	Cost    float64           `json:"cost,omitempty"`
	Time    *time.Time        `json:"time,omitempty"`
}

// sessionFile appends records to one session's file.
type sessionFile struct {
	mu   sync.Mutex // guards f and kept
	f    *os.File
	path string
	// fresh is set when this process created the file. A fresh file is
	// removed on close unless it was kept: a run that failed before the
	// model answered once leaves no empty session to list or resume.
	fresh bool
	// kept is set once the session holds something worth resuming: a
	// model response (its usage record) or a turn the user interrupted.
	kept bool
}

// newID returns a sortable, unique session id: creation time plus
// randomness.
func newID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (st *Store) path(id string) string { return filepath.Join(st.Dir, id+".jsonl") }

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
	sf := &sessionFile{f: f, path: p, fresh: true}
	if err := sf.append(record{Type: "meta", Meta: &m}); err != nil {
		f.Close()
		return nil, err
	}
	return sf, nil
}

// reopen opens an existing session file for appending.
func (st *Store) reopen(id string) (*sessionFile, error) {
	p := st.path(id)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	return &sessionFile{f: f, path: p}, nil
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
	}
	return err
}

// Loaded is a session read back from its file.
type Loaded struct {
	Meta     Meta
	Messages []provider.Message
	Usage    provider.Usage
	Cost     float64
	Turns    int
	Updated  time.Time
}

// Resolve finds the id of a session by its full id or a unique prefix.
func (st *Store) Resolve(idOrPrefix string) (string, error) {
	if idOrPrefix == "" {
		return "", errors.New("empty session id")
	}
	if _, err := os.Stat(st.path(idOrPrefix)); err == nil {
		return idOrPrefix, nil
	}
	entries, err := os.ReadDir(st.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var hits []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
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
	f, err := os.Open(st.path(id))
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	defer f.Close()
	l := &Loaded{}
	if fi, err := f.Stat(); err == nil {
		l.Updated = fi.ModTime()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	first := true
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
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
		case "usage":
			if r.Usage != nil {
				l.Usage.Add(*r.Usage)
				l.Cost += r.Cost
			}
			l.Turns = max(l.Turns, r.Turn)
		}
		first = false
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
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

// Summary is one row of a session listing.
type Summary struct {
	ID       string    `json:"id"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Root     string    `json:"root"`
	Model    string    `json:"model"`
	Title    string    `json:"title"`
	Turns    int       `json:"turns"`
	Messages int       `json:"messages"`
	Cost     float64   `json:"cost"`
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
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok {
			continue
		}
		l, err := st.Load(id)
		if err != nil {
			continue
		}
		s := Summary{ID: id, Created: l.Meta.Created, Updated: l.Updated, Root: l.Meta.Root,
			Model: l.Meta.Model, Turns: l.Turns, Messages: len(l.Messages), Cost: l.Cost}
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

// title shortens a prompt to one line for listings.
func title(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 72 {
		s = string(r[:71]) + "…"
	}
	return s
}
