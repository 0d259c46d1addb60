package history

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools"
)

var _ tools.SessionHistory = (*Index)(nil)

// BM25 parameters, the usual ones.
const (
	k1 = 1.2
	b  = 0.75
)

// floor drops hits scoring below this fraction of the best: they match
// only the query's commonest words and bury the hits that matter.
const floor = 0.35

// Hit is one ranked message.
type Hit struct {
	Session string
	Index   int
	Score   float64
	s       *indexed
}

// Rank returns the messages matching q, best first, at most q.Limit
// (default 8), without those scoring below floor times the best.
func (x *Index) Rank(ctx context.Context, q tools.HistoryQuery) ([]Hit, error) {
	var inScope func(root string) bool
	if !q.Global {
		inScope = func(root string) bool { return root == q.Root }
	}
	all, err := x.sessions(inScope)
	if err != nil {
		return nil, err
	}
	var qterms []string
	terms(q.Query, func(t string) {
		if !slices.Contains(qterms, t) {
			qterms = append(qterms, t)
		}
	})
	if len(qterms) == 0 {
		return nil, nil
	}
	var scope []*indexed
	var docs, total float64
	for _, s := range all {
		if s.ready && (q.Global || s.root == q.Root) {
			scope = append(scope, s)
			docs += float64(len(s.msgs))
			for _, m := range s.msgs {
				total += float64(m.length)
			}
		}
	}
	if docs == 0 {
		return nil, nil
	}
	avg := total / docs
	// Terms no session holds match nothing.
	var ids []uint32
	for _, t := range qterms {
		if id, ok := x.lookup(t); ok {
			ids = append(ids, id)
		}
	}
	idf := make([]float64, len(ids))
	for i, t := range ids {
		df := 0
		for _, s := range scope {
			df += s.index.find(t).count()
		}
		idf[i] = math.Log(1 + (docs-float64(df)+0.5)/(float64(df)+0.5))
	}
	var hits []Hit
	var (
		scores  []float64 // by message of the session scored
		seen    []bool    // whether a message has a score
		touched []int32   // the messages scored, in the order first met
		buf     []posting
	)
	for _, s := range scope {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if cap(scores) < len(s.msgs) {
			scores, seen = make([]float64, len(s.msgs)), make([]bool, len(s.msgs))
		}
		scores, seen = scores[:len(s.msgs)], seen[:len(s.msgs)]
		touched = touched[:0]
		for i, t := range ids {
			buf = s.index.find(t).decode(buf[:0])
			for _, p := range buf {
				if int(p.msg) >= len(s.msgs) {
					continue
				}
				if !seen[p.msg] {
					seen[p.msg] = true
					touched = append(touched, p.msg)
				}
				dl := float64(s.msgs[p.msg].length)
				tf := float64(p.tf)
				scores[p.msg] += idf[i] * tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avg))
			}
		}
		for _, m := range touched {
			sc := scores[m]
			scores[m], seen[m] = 0, false
			// The asking session's last turn is in the model's
			// context already.
			if s.id == q.Current && s.lastUser >= 0 && int(m) >= s.lastUser {
				continue
			}
			hits = append(hits, Hit{Session: s.id, Index: int(m), Score: sc, s: s})
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		// Newer sessions first (ids sort by time), then in order.
		if c := strings.Compare(b.Session, a.Session); c != 0 {
			return c
		}
		return a.Index - b.Index
	})
	if len(hits) > 0 {
		cut := hits[0].Score * floor
		hits = slices.DeleteFunc(hits, func(h Hit) bool { return h.Score < cut })
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 8
	}
	return hits[:min(limit, len(hits))], nil
}

// Search ranks the saved messages and renders the hits for the model.
func (x *Index) Search(ctx context.Context, q tools.HistoryQuery) (string, error) {
	hits, err := x.Rank(ctx, q)
	if err != nil {
		return "", err
	}
	where := "this workspace's saved sessions"
	if q.Global {
		where = "the saved sessions of every workspace"
	}
	if len(hits) == 0 {
		retry := "Try fewer or other words: a name, a file, an error message."
		if !q.Global {
			retry += ` Or search with scope "global" to include sessions of other workspaces.`
		}
		return fmt.Sprintf("No message in %s matches %q. %s", where, q.Query, retry), nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d messages in %s match %q, best first. Read the conversation around one with operation \"around\", its session and index.\n", len(hits), where, q.Query)
	for i, h := range hits {
		m, err := x.message(h.s, h.Index)
		if err != nil {
			continue
		}
		fmt.Fprintf(&sb, "\n%d. session %s index %d (%s, %s, score %.1f", i+1, h.Session, h.Index, m.Role, h.s.created.Format("2006-01-02"), h.Score)
		if q.Global {
			fmt.Fprintf(&sb, ", in %s", h.s.root)
		}
		sb.WriteString(")\n")
		sb.WriteString(snippet(m.text(), q.Query, 400))
		sb.WriteByte('\n')
	}
	return sb.String(), nil
}

// message reads back message i of session s.
func (x *Index) message(s *indexed, i int) (*savedMessage, error) {
	m := s.msgs[i]
	suffix := sessionSuffix
	if m.archive {
		suffix = archiveSuffix
	}
	return readAt(filepath.Join(x.Dir, s.id+suffix), m.offset)
}

// Around renders the messages of session from index-radius to
// index+radius; radius is capped at 10.
func (x *Index) Around(ctx context.Context, session string, index, radius int) (string, error) {
	if x.Check != nil {
		if err := x.Check(x.Dir); err != nil {
			return "", err
		}
	}
	if session == "" || strings.ContainsAny(session, `/\.`) {
		return "", fmt.Errorf("no saved session %q: use a session id from a search result", session)
	}
	if radius <= 0 {
		radius = 3
	}
	radius = min(radius, 10)
	x.mu.Lock()
	prev := x.files[session]
	x.mu.Unlock()
	s := x.session(session, prev, nil)
	if s == nil {
		return "", fmt.Errorf("no saved session %q: use a session id from a search result", session)
	}
	if index < 0 || index >= len(s.msgs) {
		return "", fmt.Errorf("session %s has messages 0 to %d; index %d is outside", session, len(s.msgs)-1, index)
	}
	lo, hi := max(0, index-radius), min(len(s.msgs)-1, index+radius)
	var sb strings.Builder
	fmt.Fprintf(&sb, "Session %s (%s, in %s), messages %d to %d of %d:\n", session, s.created.Format("2006-01-02"), s.root, lo, hi, len(s.msgs))
	for i := lo; i <= hi; i++ {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		m, err := x.message(s, i)
		if err != nil {
			continue
		}
		mark := ""
		if i == index {
			mark = " <- the hit"
		}
		role := m.Role
		if m.Name != "" {
			role += " " + m.Name
		}
		fmt.Fprintf(&sb, "\n[%d %s]%s\n%s\n", i, role, mark, clip(m.text(), 2000))
	}
	return sb.String(), nil
}

// snippet returns up to n bytes of text around the first query term it
// holds, on one line.
func snippet(text, query string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= n {
		return text
	}
	lower := strings.ToLower(text)
	at := -1
	terms(query, func(t string) {
		if i := strings.Index(lower, t); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	})
	start := max(0, at-n/4)
	for start > 0 && start < len(text) && !utf8Start(text[start]) {
		start--
	}
	out := clip(text[start:], n)
	if start > 0 {
		out = "…" + out
	}
	return out
}

// clip cuts s to at most n bytes on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(c byte) bool { return c&0xC0 != 0x80 }
