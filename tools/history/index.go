// Package history searches the sessions Reasonix saved before: every
// session file of the store and the archives of what compactions dropped
// from them. Each session is indexed on the first search that needs it:
// a project-scope search reads only the first line of another
// workspace's session, its meta record, and leaves the rest to the first
// global search. An index is kept until the file's size or modification
// time changes, so repeated searches only stat the directory.
//
// The index stays in memory for the life of the process, so it is kept
// small: per message only where its line is and how many terms it has,
// and per session its postings packed as varints (see postings), found
// by term number in a dictionary the whole index shares. On the
// generated 100 MB store of BenchmarkHistorySearch it holds about 24 MB.
package history

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// File names in the store: a session is <id>.jsonl, the messages its
// compactions dropped are in <id>.archive.jsonl.
const (
	sessionSuffix = ".jsonl"
	archiveSuffix = ".archive.jsonl"
)

// Index searches the session store in Dir. It is safe for concurrent use.
type Index struct {
	Dir string
	// Check, when set, decides whether a path may be read; the store's
	// directory is checked before every search.
	Check func(path string) error

	mu    sync.Mutex // guards files
	files map[string]*indexed

	dictMu sync.Mutex // guards dict
	// dict numbers the terms of every session indexed, so a session's
	// index holds numbers, not its own copy of each word.
	dict map[string]uint32
}

// intern returns the numbers of terms, numbering the new ones.
func (x *Index) intern(terms []string) []uint32 {
	x.dictMu.Lock()
	defer x.dictMu.Unlock()
	if x.dict == nil {
		x.dict = map[string]uint32{}
	}
	ids := make([]uint32, len(terms))
	for i, t := range terms {
		id, ok := x.dict[t]
		if !ok {
			id = uint32(len(x.dict))
			// A term may share the memory of the message it came
			// from; the dictionary keeps only the term.
			x.dict[strings.Clone(t)] = id
		}
		ids[i] = id
	}
	return ids
}

// lookup returns the number of term t; ok is false for a term no session
// has held.
func (x *Index) lookup(t string) (id uint32, ok bool) {
	x.dictMu.Lock()
	defer x.dictMu.Unlock()
	id, ok = x.dict[t]
	return id, ok
}

// New returns an index over the session store in dir.
func New(dir string, check func(string) error) *Index {
	return &Index{Dir: dir, Check: check}
}

// indexed is one session (its file and its archive) as last indexed.
type indexed struct {
	id      string
	root    string
	created time.Time
	stamp   [2]fileStamp // session file, archive
	// ready is false for a session of another workspace of which only
	// the meta line was read: a project-scope search needs nothing more,
	// and the first global one indexes it.
	ready bool
	msgs  []message
	// lastUser is the position of the session's last user message: from
	// there on is the turn in flight when the session is the one asking.
	lastUser int
	// index holds each term's postings (the messages holding it, in
	// order, and how often), packed; see postings.
	index postings
	// post gathers the postings while the session is read; freeze
	// packs them into index.
	post *gather
	// blockStart is where each compaction block of the archive began,
	// while the archive is read.
	blockStart map[int]int
}

type fileStamp struct {
	size  int64
	mtime time.Time
}

// message is one saved message: where its text is, not the text, so an
// index of a large store stays a fraction of its size.
type message struct {
	offset  int64 // of its line in the session file or the archive
	length  int32 // in terms
	archive bool
}

// record is the part of a session or archive line the index reads; the
// agent's Store writes them.
type record struct {
	Type string `json:"type"`
	Meta *struct {
		ID      string    `json:"id"`
		Root    string    `json:"root"`
		Created time.Time `json:"created"`
	} `json:"meta,omitempty"`
	Message *savedMessage `json:"message,omitempty"`
	Block   *struct {
		Seq int `json:"seq"`
	} `json:"compaction,omitempty"`
}

type savedMessage struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	Name      string `json:"name"`
	ToolCalls []struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"tool_calls"`
}

// text is what a message is searched and shown by: its content, and the
// calls it makes with their arguments.
func (m *savedMessage) text() string {
	if len(m.ToolCalls) == 0 {
		return m.Content
	}
	var b strings.Builder
	b.WriteString(m.Content)
	for _, c := range m.ToolCalls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Name + " " + c.Arguments)
	}
	return b.String()
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileStamp{}, nil
	}
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi.Size(), fi.ModTime()}, nil
}

// sessions returns every session of the store, indexing those new or
// changed since the last call whose workspace is in scope, and dropping
// those gone. A nil scope is every workspace.
func (x *Index) sessions(scope func(root string) bool) ([]*indexed, error) {
	if x.Check != nil {
		if err := x.Check(x.Dir); err != nil {
			return nil, err
		}
	}
	entries, err := os.ReadDir(x.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("history: %w", err)
	}
	var ids []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, archiveSuffix) || e.IsDir() {
			continue
		}
		if id, ok := strings.CutSuffix(name, sessionSuffix); ok && !strings.Contains(id, ".") {
			ids = append(ids, id)
		}
	}
	x.mu.Lock()
	old := x.files
	x.mu.Unlock()
	out := make([]*indexed, len(ids))
	// Indexing is parsing JSON: spread a cold store over the cores.
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = x.session(ids[i], old[ids[i]], scope)
			}
		}()
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	files := make(map[string]*indexed, len(ids))
	kept := out[:0]
	for _, s := range out {
		if s != nil {
			files[s.id] = s
			kept = append(kept, s)
		}
	}
	x.mu.Lock()
	// A search running beside this one may have indexed what this one
	// only peeked at.
	for i, s := range kept {
		if cur := x.files[s.id]; !s.ready && cur != nil && cur.ready && cur.stamp == s.stamp {
			kept[i], files[s.id] = cur, cur
		}
	}
	x.files = files
	x.mu.Unlock()
	return kept, nil
}

// session returns the index of session id, reusing prev when neither of
// its files changed; nil when it cannot be read. When scope is not nil
// and the session's meta line puts it outside, only that line is read.
func (x *Index) session(id string, prev *indexed, scope func(root string) bool) *indexed {
	sp := filepath.Join(x.Dir, id+sessionSuffix)
	ap := filepath.Join(x.Dir, id+archiveSuffix)
	s1, err1 := stampOf(sp)
	s2, err2 := stampOf(ap)
	if err1 != nil || err2 != nil {
		return nil
	}
	stamp := [2]fileStamp{s1, s2}
	if prev != nil && prev.stamp == stamp && (prev.ready || scope != nil && !scope(prev.root)) {
		return prev
	}
	if scope != nil {
		if h := peek(sp); h != nil && !scope(h.root) {
			h.id, h.stamp = id, stamp
			return h
		}
	}
	s := &indexed{id: id, stamp: stamp, ready: true, post: &gather{local: map[string]int32{}}, lastUser: -1}
	if err := s.read(ap, true); err != nil {
		return nil
	}
	s.blockStart = nil
	if err := s.read(sp, false); err != nil || s.root == "" && s.created.IsZero() {
		return nil
	}
	s.freeze(x.intern)
	return s
}

// peek reads the meta line a session file begins with; nil when it does
// not begin with one that has a creation time, which only reading the
// whole file settles.
func peek(path string) *indexed {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 4096).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return nil
	}
	var r record
	if json.Unmarshal(bytes.TrimSpace(line), &r) != nil || r.Type != "meta" || r.Meta == nil || r.Meta.Created.IsZero() {
		return nil
	}
	return &indexed{root: r.Meta.Root, created: r.Meta.Created, lastUser: -1}
}

// read indexes the messages of one file. In an archive, a compaction
// block whose number repeats an earlier one supersedes it and what
// followed it: that attempt was cut short and its messages stayed in the
// session.
func (s *indexed) read(path string, archive bool) error {
	return scan(path, func(off int64, r *record) {
		switch {
		case r.Type == "meta" && r.Meta != nil && !archive && s.created.IsZero():
			s.root, s.created = r.Meta.Root, r.Meta.Created
		case r.Type == "compaction" && r.Block != nil && archive:
			s.supersede(r.Block.Seq)
		case r.Type == "message" && r.Message != nil:
			s.add(off, r.Message, archive)
		}
	})
}

func (s *indexed) supersede(seq int) {
	// Blocks arrive in order; a repeated number restarts from the
	// position the first block of that number began at.
	if s.blockStart == nil {
		s.blockStart = map[int]int{}
	}
	if at, ok := s.blockStart[seq]; ok {
		s.truncate(at)
		for k, v := range s.blockStart {
			if v > at || k > seq {
				delete(s.blockStart, k)
			}
		}
	}
	s.blockStart[seq] = len(s.msgs)
}

// gather collects a session's postings as it is read. Terms get
// numbers local to the session, so a word costs one map lookup each
// time it occurs, and the postings of all terms go in one array in
// message order, which freeze sorts by term in one pass.
type gather struct {
	local map[string]int32 // term -> local number
	words []string         // by local number
	flat  []entry
	// tf counts the terms of the message being read, by local number;
	// seen lists those counted.
	tf   []int32
	seen []int32
}

// entry is one posting of the term with local number term.
type entry struct{ term, msg, tf int32 }

// truncate forgets the messages from position n on.
func (s *indexed) truncate(n int) {
	s.msgs = s.msgs[:n]
	g := s.post
	i, _ := slices.BinarySearchFunc(g.flat, int32(n), func(e entry, n int32) int { return cmp.Compare(e.msg, n) })
	g.flat = g.flat[:i]
}

// freeze packs the postings, in the order of their terms' numbers, which
// costs far less memory than a map and a slice per term.
func (s *indexed) freeze(intern func([]string) []uint32) {
	g := s.post
	// start[t] is where term t's postings begin in ps.
	start := make([]int32, len(g.words)+1)
	for _, e := range g.flat {
		start[e.term+1]++
	}
	var words []string
	var locals []int32
	for t := range g.words {
		if start[t+1] > 0 {
			words = append(words, g.words[t])
			locals = append(locals, int32(t))
		}
		start[t+1] += start[t]
	}
	ps := make([]posting, len(g.flat))
	next := slices.Clone(start)
	for _, e := range g.flat {
		ps[next[e.term]] = posting{e.msg, e.tf}
		next[e.term]++
	}
	ids := intern(words)
	type pair struct {
		id    uint32
		local int32
	}
	order := make([]pair, len(ids))
	for i, id := range ids {
		order[i] = pair{id, locals[i]}
	}
	slices.SortFunc(order, func(a, b pair) int { return cmp.Compare(a.id, b.id) })
	for _, o := range order {
		s.index.add(o.id, ps[start[o.local]:start[o.local+1]])
	}
	s.index.trim()
	s.msgs = slices.Clone(s.msgs)
	s.post = nil
}

func (s *indexed) add(off int64, m *savedMessage, archive bool) {
	n := int32(len(s.msgs))
	g := s.post
	length := int32(0)
	terms(m.text(), func(t string) {
		id, ok := g.local[t]
		if !ok {
			id = int32(len(g.words))
			g.local[t] = id
			g.words = append(g.words, t)
			g.tf = append(g.tf, 0)
		}
		if g.tf[id] == 0 {
			g.seen = append(g.seen, id)
		}
		g.tf[id]++
		length++
	})
	for _, id := range g.seen {
		g.flat = append(g.flat, entry{id, n, g.tf[id]})
		g.tf[id] = 0
	}
	g.seen = g.seen[:0]
	if m.Role == "user" {
		s.lastUser = int(n)
	}
	s.msgs = append(s.msgs, message{offset: off, length: length, archive: archive})
}

// scan calls fn with each well-formed line of path and its offset; a
// missing file has none, and torn or corrupt lines are skipped.
func scan(path string, fn func(off int64, r *record)) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	var off int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var r record
			if json.Unmarshal(bytes.TrimSpace(line), &r) == nil {
				fn(off, &r)
			}
			off += int64(len(line))
		}
		if err != nil {
			return nil
		}
	}
}

// readAt reads back the message whose line starts at off.
func readAt(path string, off int64) (*savedMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(off, 0); err != nil {
		return nil, err
	}
	br := bufio.NewReader(f)
	line, err := br.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return nil, err
	}
	var r record
	if err := json.Unmarshal(bytes.TrimSpace(line), &r); err != nil || r.Message == nil {
		return nil, fmt.Errorf("history: no message at %s:%d", path, off)
	}
	return r.Message, nil
}

// terms calls fn with each term of text: runs of letters and digits,
// lower-cased, of two characters or more.
func terms(text string, fn func(string)) {
	start := -1
	emit := func(end int) {
		if end-start >= 2 {
			fn(strings.ToLower(text[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(text); {
		// Sessions are mostly ASCII: look those bytes up in a table.
		c, size := text[i], 1
		word := asciiWord[c&0x7f]
		if c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			word = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		if word {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			emit(i)
		}
		i += size
	}
	if start >= 0 {
		emit(len(text))
	}
}

// asciiWord tells the ASCII letters and digits.
var asciiWord = func() (t [128]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()
