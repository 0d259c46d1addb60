package snapshot

import (
	"bytes"
	"cmp"
	"iter"
	"slices"
	"strings"
)

// An entries holds the entries of one kind (files, or subdirectories)
// of one listed directory, each with a value, in little memory: a
// Tracker keeps them for every directory for an agent's life, and at a
// million files a map of names per directory would be most of its heap
// (a map's slots, and a string allocated per name).
//
// The names are concatenated in one string, in order; ends holds where
// each ends in it, and vals the values, in the same order: a file
// costs its name's bytes and 20 bytes (a fileStat's 16 and an end's
// 4). A name is a substring of names,
// so neither looking one up nor yielding one allocates. Setting the
// value of a name there is done in place; names that come or go build
// both again, at a cost in the size of the directory, paid only for a
// directory a command touched (one with many events is listed again
// whole anyway), once for all that one Sync finds there (edit).
type entries[V any] struct {
	names string
	ends  []uint32
	vals  []V
}

func (s *entries[V]) len() int { return len(s.vals) }

func (s *entries[V]) name(i int) string {
	start := uint32(0)
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.names[start:s.ends[i]]
}

// find returns where name is in the list, or would be, and whether it
// is there.
func (s *entries[V]) find(name string) (int, bool) {
	lo, hi := 0, len(s.vals)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.name(m) < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s.vals) && s.name(lo) == name
}

// get returns the value of name, and whether it is there.
func (s *entries[V]) get(name string) (V, bool) {
	if i, ok := s.find(name); ok {
		return s.vals[i], true
	}
	var zero V
	return zero, false
}

func (s *entries[V]) has(name string) bool {
	_, ok := s.find(name)
	return ok
}

func (s *entries[V]) set(name string, v V) { s.edit([]edit[V]{{name: name, v: v}}) }

func (s *entries[V]) delete(name string) { s.edit([]edit[V]{{name: name, del: true}}) }

// all yields every name, in order, with its value.
func (s *entries[V]) all() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		for i, v := range s.vals {
			if !yield(s.name(i), v) {
				return
			}
		}
	}
}

// An edit sets the value of a name, or deletes it.
type edit[V any] struct {
	name string
	v    V
	del  bool
}

// edit applies edits, each of a different name: values of names there
// are set in place, and when names come or go, names and list are
// built again, once.
func (s *entries[V]) edit(edits []edit[V]) {
	var moved []edit[V] // the names that come or go
	size := len(s.names)
	for _, e := range edits {
		i, there := s.find(e.name)
		switch {
		case there && !e.del:
			s.vals[i] = e.v
		case there:
			moved = append(moved, e)
		case !e.del:
			moved = append(moved, e)
			size += len(e.name)
		}
	}
	if len(moved) == 0 {
		return
	}
	slices.SortFunc(moved, func(a, b edit[V]) int { return strings.Compare(a.name, b.name) })
	var b entriesBuilder[V]
	b.grow(size, len(s.vals)+len(moved))
	i := 0
	for _, m := range moved {
		for ; i < len(s.vals) && s.name(i) < m.name; i++ {
			b.add(s.name(i), s.vals[i])
		}
		if m.del {
			i++ // it is there: find said so
		} else {
			b.add(m.name, m.v)
		}
	}
	for ; i < len(s.vals); i++ {
		b.add(s.name(i), s.vals[i])
	}
	*s = b.entries()
}

// An entriesBuilder makes entries from names added in order.
type entriesBuilder[V any] struct {
	names strings.Builder
	ends  []uint32
	vals  []V
}

// grow makes room for n entries of size bytes of names in all, so that
// what is built takes no more memory than it needs.
func (b *entriesBuilder[V]) grow(size, n int) {
	b.names.Grow(size)
	b.ends = make([]uint32, 0, n)
	b.vals = make([]V, 0, n)
}

func (b *entriesBuilder[V]) add(name string, v V) {
	b.names.WriteString(name)
	b.ends = append(b.ends, uint32(b.names.Len()))
	b.vals = append(b.vals, v)
}

func (b *entriesBuilder[V]) entries() entries[V] {
	if len(b.vals) == 0 {
		return entries[V]{}
	}
	return entries[V]{names: b.names.String(), ends: b.ends, vals: b.vals}
}

// A gathering collects names with values in any order, as a walk finds
// them, and makes entries of them: the names are appended to one buffer
// rather than kept as strings, since a deep listing holds every
// directory's at once.
type gathering[V any] struct {
	names []byte
	list  []gathered[V]
}

// A gathered is where a name lies in its gathering's names, and its
// value.
type gathered[V any] struct {
	off, n uint32
	v      V
}

func (g *gathering[V]) add(name string, v V) {
	g.list = append(g.list, gathered[V]{off: uint32(len(g.names)), n: uint32(len(name)), v: v})
	g.names = append(g.names, name...)
}

// entries returns what was gathered as entries, sized to fit. A name
// gathered twice has the value gathered last, as in a map.
func (g *gathering[V]) entries() entries[V] {
	name := func(e gathered[V]) []byte { return g.names[e.off : e.off+e.n] }
	slices.SortFunc(g.list, func(a, b gathered[V]) int {
		if c := bytes.Compare(name(a), name(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.off, b.off) // the one gathered last, last
	})
	var b entriesBuilder[V]
	b.grow(len(g.names), len(g.list))
	for i, e := range g.list {
		if i+1 < len(g.list) && bytes.Equal(name(e), name(g.list[i+1])) {
			continue
		}
		b.names.Write(name(e))
		b.ends = append(b.ends, uint32(b.names.Len()))
		b.vals = append(b.vals, e.v)
	}
	return b.entries()
}

// compareEntries calls f for every name in a or b, in order, with its
// value in each and whether it is there.
func compareEntries[V any](a, b *entries[V], f func(name string, av V, inA bool, bv V, inB bool)) {
	var zero V
	i, j := 0, 0
	for i < len(a.vals) || j < len(b.vals) {
		switch {
		case j == len(b.vals) || i < len(a.vals) && a.name(i) < b.name(j):
			f(a.name(i), a.vals[i], true, zero, false)
			i++
		case i == len(a.vals) || b.name(j) < a.name(i):
			f(b.name(j), zero, false, b.vals[j], true)
			j++
		default:
			f(a.name(i), a.vals[i], true, b.vals[j], true)
			i++
			j++
		}
	}
}
