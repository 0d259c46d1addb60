package memory

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// A Hit is a note that matches a search.
type Hit struct {
	Entry
	// Line is the first line of the note that holds a term, trimmed;
	// empty when only the name or the description matched.
	Line string
	// terms is how many of the query's terms the note holds; score
	// weighs their occurrences, the name and the description counting
	// thrice.
	terms, score int
}

// Search finds the active notes that hold the query's words, best first:
// those holding more of the words, then those holding them more often (in
// the name and description above all). At most limit hits.
func (s *Store) Search(query string, limit int) ([]Hit, error) {
	terms := words(query)
	if len(terms) == 0 {
		return nil, nil
	}
	all, err := s.List(false)
	var hits []Hit
	for _, e := range all {
		head := words(e.Name + " " + e.Description)
		body := words(e.Content)
		h := Hit{Entry: e}
		for _, t := range terms {
			n := 3*count(head, t) + count(body, t)
			if n > 0 {
				h.terms++
				h.score += n
			}
		}
		if h.terms == 0 {
			continue
		}
		h.Line = firstLineWith(e.Content, terms)
		hits = append(hits, h)
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.terms, a.terms), cmp.Compare(b.score, a.score))
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, err
}

// words splits text into lower-case words of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// count counts the words that start with term, so "test" finds "tests".
func count(ws []string, term string) int {
	n := 0
	for _, w := range ws {
		if strings.HasPrefix(w, term) {
			n++
		}
	}
	return n
}

func firstLineWith(content string, terms []string) string {
	for _, line := range strings.Split(content, "\n") {
		ws := words(line)
		for _, t := range terms {
			if count(ws, t) > 0 {
				return clipRunes(strings.TrimSpace(line), 160)
			}
		}
	}
	return ""
}

// maxIndexEntries bounds the index in the system prompt; the memory tool
// lists the rest.
const maxIndexEntries = 100

// Index is the memory as the system prompt shows it at the start of a
// session: each active note's scope, name and description, no content.
// Empty when there are no notes. It is taken once per session, so the
// cached prompt prefix holds; notes saved or forgotten later are seen
// through the memory tool.
func (s *Store) Index() string {
	notes, _ := s.List(false)
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Memory\nNotes saved in earlier sessions, as they stood when this session started. Read a note with the memory tool (action read) before relying on it; search and list find notes saved since.\n")
	for i, e := range notes {
		if i == maxIndexEntries {
			fmt.Fprintf(&b, "- … and %d more (memory action list)\n", len(notes)-i)
			break
		}
		fmt.Fprintf(&b, "- %s: %s\n", e.ID(), oneLine(e.Description))
	}
	return b.String()
}

// oneLine keeps a description on its line of the index, whatever a file
// written by hand holds.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
