// Package store keeps an agent's sessions on disk, in one directory: a
// session's JSONL file, the archive of what its compactions dropped, its
// step records and the directory of its large tool outputs. The agent
// writes a session through a File as it runs; the commands that list,
// resume, trace and total sessions read them back through a Store.
package store

import (
	"bufio"
	"bytes"
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
// <id>.archive.jsonl beside it (see File.Rewrite), so the file stays about as
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
	// Seq numbers a message within its session, from 1, never reused:
	// with Turn, the turn it belongs to, it places a message of the
	// session file or the archive in the whole conversation (a rewind
	// rebuilds a compacted conversation from them). Zero in sessions
	// recorded before messages were numbered.
	Seq   int             `json:"seq,omitempty"`
	Model string          `json:"model,omitempty"`
	Usage *provider.Usage `json:"usage,omitempty"`
	Cost  float64         `json:"cost,omitempty"`
	Time  *time.Time      `json:"time,omitempty"`
	// Bytes is the size of the request a usage record accounts, as the
	// agent estimates it: with the prompt tokens it calibrates the
	// estimates a resumed session starts from.
	Bytes int           `json:"bytes,omitempty"`
	Block *ArchiveBlock `json:"compaction,omitempty"`
}

// NewID returns a sortable, unique session id: creation time plus
// randomness.
func NewID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Path is the file of session id.
func (st *Store) Path(id string) string { return filepath.Join(st.Dir, id+sessionSuffix) }

// ArchivePath is the file holding what compactions dropped from session id.
func (st *Store) ArchivePath(id string) string { return filepath.Join(st.Dir, id+archiveSuffix) }

// OutputDir is the directory holding session id's tool outputs that were
// too large for the conversation (see tools.MaxResultBytes).
func (st *Store) OutputDir(id string) string { return filepath.Join(st.Dir, id+".outputs") }

// Loaded is a session read back from its file.
type Loaded struct {
	Meta     Meta
	Messages []provider.Message
	// Marks holds each message's turn and number, parallel to Messages.
	Marks   []Mark
	Usage   provider.Usage
	Cost    float64
	Turns   int
	Updated time.Time
	// TokensPerByte is what the last model request's prompt tokens were
	// per byte of it; zero when no request recorded its size.
	TokensPerByte float64
	// PromptTokens is the prompt tokens the provider reported for that
	// request.
	PromptTokens int
}

// Resolve finds the id of a session by its full id or a unique prefix.
func (st *Store) Resolve(idOrPrefix string) (string, error) {
	if idOrPrefix == "" {
		return "", errors.New("empty session id")
	}
	if _, ok := sessionID(idOrPrefix + sessionSuffix); ok {
		if _, err := os.Stat(st.Path(idOrPrefix)); err == nil {
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
	data, err := os.ReadFile(st.Path(id))
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	l := &Loaded{}
	if fi, err := os.Stat(st.Path(id)); err == nil {
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
				l.Marks = append(l.Marks, Mark{Turn: r.Turn, Seq: r.Seq})
				l.Turns = max(l.Turns, r.Turn)
			}
		case "usage", "totals":
			if r.Usage != nil {
				l.Usage.Add(*r.Usage)
				l.Cost += r.Cost
				if r.Bytes > 0 {
					l.TokensPerByte = float64(r.Usage.PromptTokens) / float64(r.Bytes)
					l.PromptTokens = r.Usage.PromptTokens
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

// Mark is what places a message in its session: the turn it belongs
// to (0 for the system message) and its number (record.Seq).
type Mark struct {
	Turn int `json:"turn"`
	Seq  int `json:"seq"`
}

// Archive reads back what the compactions of session id dropped, oldest
// first. A session never compacted has no archive: nil, no error.
func (st *Store) Archive(id string) ([]provider.Message, error) {
	msgs, _, err := st.ArchiveMarked(id)
	return msgs, err
}

// ArchiveMarked is Archive with each message's Mark.
func (st *Store) ArchiveMarked(id string) ([]provider.Message, []Mark, error) {
	f, err := os.Open(st.ArchivePath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("session %s: %w", id, err)
	}
	defer f.Close()
	// starts[k] is where block k+1's messages begin in msgs.
	var msgs []provider.Message
	var marks []Mark
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
				msgs, marks, starts = msgs[:starts[k]], marks[:starts[k]], starts[:k]
			}
			starts = append(starts, len(msgs))
		case r.Type == "message" && r.Message != nil:
			msgs = append(msgs, *r.Message)
			marks = append(marks, Mark{Turn: r.Turn, Seq: r.Seq})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("session %s: %w", id, err)
	}
	return msgs, marks, nil
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
