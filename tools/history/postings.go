package history

import (
	"encoding/binary"
	"slices"
)

// posting is one message holding a term, and how often it does.
type posting struct {
	msg int32
	tf  int32
}

// postings is one session's inverted index, packed into bytes: a session
// holds thousands of distinct terms and each appears in few of its
// messages, so fixed-width entries would cost as much memory as the store
// itself. Terms come in increasing number; everything is a varint.
//
//   - dir: per term, the gap from the previous term's number, then the
//     length in bytes of its list in data.
//   - skips: where to start decoding dir, every skipEvery terms, so a
//     lookup is a binary search and at most skipEvery short decodes.
//   - data: per term, its list: the number of messages holding it, then
//     per message in order (gap-1)<<1 | 1 when the term appears once in
//     it, else (gap-1)<<1 followed by the count, where gap is the distance
//     from the previous message of the list (from -1 for the first).
//
// Gaps are mostly small and counts mostly one, so most postings take one
// byte instead of eight.
type postings struct {
	dir   []byte
	skips []skip
	data  []byte
	last  uint32 // number of the last term added
	n     int    // terms added
}

// skip is where term number n*skipEvery starts: its number and its
// offsets in dir and data.
type skip struct{ term, dir, data uint32 }

const skipEvery = 32

// add appends term's list; terms must be added in increasing number and
// ps be in increasing message order.
func (p *postings) add(term uint32, ps []posting) {
	if p.n%skipEvery == 0 {
		p.skips = append(p.skips, skip{term, uint32(len(p.dir)), uint32(len(p.data))})
	}
	start := len(p.data)
	p.data = binary.AppendUvarint(p.data, uint64(len(ps)))
	prev := int64(-1)
	for _, q := range ps {
		v := uint64(int64(q.msg)-prev-1) << 1
		prev = int64(q.msg)
		if q.tf == 1 {
			p.data = binary.AppendUvarint(p.data, v|1)
			continue
		}
		p.data = binary.AppendUvarint(p.data, v)
		p.data = binary.AppendUvarint(p.data, uint64(q.tf))
	}
	p.dir = binary.AppendUvarint(p.dir, uint64(term-p.last))
	p.dir = binary.AppendUvarint(p.dir, uint64(len(p.data)-start))
	p.last = term
	p.n++
}

// trim copies the index to arrays of its exact size: appending left
// them up to twice that.
func (p *postings) trim() {
	p.dir = slices.Clone(p.dir)
	p.skips = slices.Clone(p.skips)
	p.data = slices.Clone(p.data)
}

// list is one term's encoded postings, as laid out in data.
type list []byte

// find returns the list of term number id; empty when no message of the
// session holds it.
func (p *postings) find(id uint32) list {
	i, found := slices.BinarySearchFunc(p.skips, id, func(s skip, id uint32) int {
		switch {
		case s.term < id:
			return -1
		case s.term > id:
			return 1
		}
		return 0
	})
	if !found {
		if i == 0 {
			return nil
		}
		i--
	}
	sk := p.skips[i]
	d, off := p.dir[sk.dir:], uint64(sk.data)
	term := sk.term
	for k := 0; len(d) > 0; k++ {
		gap, n := binary.Uvarint(d)
		if n <= 0 {
			return nil
		}
		d = d[n:]
		size, n := binary.Uvarint(d)
		if n <= 0 {
			return nil
		}
		d = d[n:]
		if k > 0 {
			term += uint32(gap)
		}
		if term == id {
			if off+size > uint64(len(p.data)) {
				return nil
			}
			return list(p.data[off : off+size])
		}
		if term > id {
			return nil
		}
		off += size
	}
	return nil
}

// count is how many messages hold the term.
func (l list) count() int {
	c, n := binary.Uvarint(l)
	if n <= 0 {
		return 0
	}
	return int(c)
}

// decode appends the postings of l to buf.
func (l list) decode(buf []posting) []posting {
	c, n := binary.Uvarint(l)
	if n <= 0 {
		return buf
	}
	l = l[n:]
	buf = slices.Grow(buf, int(min(c, uint64(len(l)))))
	msg := int64(-1)
	for range c {
		v, n := binary.Uvarint(l)
		if n <= 0 {
			return buf
		}
		l = l[n:]
		msg += int64(v>>1) + 1
		tf := uint64(1)
		if v&1 == 0 {
			if tf, n = binary.Uvarint(l); n <= 0 {
				return buf
			}
			l = l[n:]
		}
		buf = append(buf, posting{int32(msg), int32(tf)})
	}
	return buf
}
