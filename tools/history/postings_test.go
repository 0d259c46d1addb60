package history

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPostingsRoundTrip packs lists for terms spread over many skip
// blocks and reads every one back, with the terms between them absent.
func TestPostingsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	want := map[uint32][]posting{}
	var p postings
	term := uint32(0)
	for range 10 * skipEvery {
		term += 1 + uint32(r.IntN(40)) // leaves gaps of absent terms
		var ps []posting
		msg := int32(-1)
		for range 1 + r.IntN(30) {
			msg += 1 + int32(r.IntN(200))
			tf := int32(1)
			if r.IntN(3) == 0 {
				tf = 2 + int32(r.IntN(300))
			}
			ps = append(ps, posting{msg, tf})
		}
		want[term] = ps
		p.add(term, ps)
	}
	p.trim()
	for id := range term + 50 {
		l := p.find(id)
		ps, ok := want[id]
		if !ok {
			if len(l) != 0 {
				t.Fatalf("term %d was never added, found %v", id, l.decode(nil))
			}
			continue
		}
		if l.count() != len(ps) {
			t.Fatalf("term %d: count %d, want %d", id, l.count(), len(ps))
		}
		if got := l.decode(nil); !slices.Equal(got, ps) {
			t.Fatalf("term %d: got %v, want %v", id, got, ps)
		}
	}
}

// TestPostingsExtremes covers what does not fit a byte: gaps of millions
// of messages, counts up to the largest int32, term numbers far apart,
// the first message at 0 and at the largest position.
func TestPostingsExtremes(t *testing.T) {
	lists := []struct {
		term uint32
		ps   []posting
	}{
		{0, []posting{{0, 1}}},
		{1, []posting{{0, math.MaxInt32}, {1, 1}, {5_000_000, 2}, {math.MaxInt32 - 1, 1}, {math.MaxInt32, 70000}}},
		{70000, []posting{{math.MaxInt32, 1}}},
		{math.MaxUint32, []posting{{3, 128}, {131, 1}, {16515, 1}}},
	}
	var p postings
	for _, l := range lists {
		p.add(l.term, l.ps)
	}
	for _, l := range lists {
		got := p.find(l.term).decode(nil)
		if !slices.Equal(got, l.ps) {
			t.Errorf("term %d: got %v, want %v", l.term, got, l.ps)
		}
	}
	if l := p.find(2); len(l) != 0 {
		t.Errorf("absent term 2 found: %v", l.decode(nil))
	}
	var empty postings
	if l := empty.find(0); len(l) != 0 || l.count() != 0 || len(l.decode(nil)) != 0 {
		t.Errorf("an empty index finds %v", l)
	}
}

// TestPostingsSmall checks that the common case, a term once in a nearby
// message, takes one byte.
func TestPostingsSmall(t *testing.T) {
	var p postings
	ps := []posting{{0, 1}, {1, 1}, {3, 1}, {64, 1}}
	p.add(7, ps)
	// One byte of count, one per posting.
	if got := len(p.find(7)); got != 1+len(ps) {
		t.Errorf("list takes %d bytes, want %d", got, 1+len(ps))
	}
}
