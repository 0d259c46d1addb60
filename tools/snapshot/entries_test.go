package snapshot

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// entriesOf gathers m, in a fixed order that is not the names'.
func entriesOf(m map[string]int) entries[int] {
	var g gathering[int]
	names := slices.Sorted(maps.Keys(m))
	slices.Reverse(names)
	for _, name := range names {
		g.add(name, m[name])
	}
	return g.entries()
}

// checkEntries fails unless s holds exactly want, in order, and finds
// each name and no other.
func checkEntries(t *testing.T, s *entries[int], want map[string]int) {
	t.Helper()
	got := map[string]int{}
	var order []string
	for name, v := range s.all() {
		got[name] = v
		order = append(order, name)
	}
	if !maps.Equal(got, want) || !slices.IsSorted(order) || len(order) != s.len() {
		t.Errorf("holds %v in order %q, want %v", got, order, want)
	}
	for name, v := range want {
		if g, ok := s.get(name); !ok || g != v {
			t.Errorf("get(%q) = %v, %v; want %v", name, g, ok, v)
		}
	}
	for _, name := range []string{"", "0", "zz", "a\x00"} {
		if _, ok := want[name]; !ok && s.has(name) {
			t.Errorf("has(%q) of a name not there", name)
		}
	}
}

func TestEntriesEdit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start map[string]int
		edits []edit[int]
		want  map[string]int
	}{
		{"empty", nil, nil, map[string]int{}},
		{"create in empty", nil, []edit[int]{{name: "a", v: 1}}, map[string]int{"a": 1}},
		{"set in place", map[string]int{"a": 1, "b": 2}, []edit[int]{{name: "b", v: 3}}, map[string]int{"a": 1, "b": 3}},
		{"delete first and last", map[string]int{"a": 1, "b": 2, "c": 3}, []edit[int]{{name: "c", del: true}, {name: "a", del: true}}, map[string]int{"b": 2}},
		{"delete all", map[string]int{"a": 1}, []edit[int]{{name: "a", del: true}}, map[string]int{}},
		{"delete a name not there", map[string]int{"a": 1}, []edit[int]{{name: "b", del: true}}, map[string]int{"a": 1}},
		{"create around", map[string]int{"m": 1}, []edit[int]{{name: "z", v: 3}, {name: "a", v: 2}}, map[string]int{"a": 2, "m": 1, "z": 3}},
		{"prefixes", map[string]int{"ab": 1, "abc": 2}, []edit[int]{{name: "a", v: 3}, {name: "abcd", v: 4}, {name: "ab", del: true}}, map[string]int{"a": 3, "abc": 2, "abcd": 4}},
		{"everything at once", map[string]int{"b": 1, "d": 2, "f": 3}, []edit[int]{{name: "d", v: 5}, {name: "a", v: 6}, {name: "f", del: true}, {name: "e", v: 7}, {name: "b", del: true}}, map[string]int{"a": 6, "d": 5, "e": 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := entriesOf(tc.start)
			checkEntries(t, &s, tc.start)
			s.edit(tc.edits)
			checkEntries(t, &s, tc.want)
		})
	}
}

func TestEntriesSetDelete(t *testing.T) {
	var s entries[int]
	want := map[string]int{}
	for i := range 50 {
		name := fmt.Sprint(i * 7 % 50)
		s.set(name, i)
		want[name] = i
	}
	for i := range 50 {
		if i%3 == 0 {
			name := fmt.Sprint(i)
			s.delete(name)
			delete(want, name)
		}
	}
	checkEntries(t, &s, want)
}

// TestEntriesLookupAllocates nothing: a lookup is made for every entry
// a command touches, and every file a listing reads again.
func TestEntriesLookupAllocates(t *testing.T) {
	s := entriesOf(map[string]int{"a.go": 1, "b.go": 2, "c.go": 3})
	name := string([]byte("b.go")) // not the arena's
	if n := testing.AllocsPerRun(100, func() {
		if _, ok := s.get(name); !ok {
			t.Fatal("b.go not found")
		}
	}); n != 0 {
		t.Errorf("get allocates %v times", n)
	}
}

func TestGatheringTwice(t *testing.T) {
	var g gathering[int]
	for i, name := range []string{"b", "a", "b", "c", "b"} {
		g.add(name, i)
	}
	s := g.entries()
	checkEntries(t, &s, map[string]int{"a": 1, "b": 4, "c": 3})
}

func TestCompareEntries(t *testing.T) {
	a := entriesOf(map[string]int{"gone": 1, "same": 2, "changed": 3})
	b := entriesOf(map[string]int{"same": 2, "changed": 4, "new": 5})
	var got []string
	compareEntries(&a, &b, func(name string, av int, inA bool, bv int, inB bool) {
		got = append(got, fmt.Sprintf("%s:%d,%v:%d,%v", name, av, inA, bv, inB))
	})
	want := []string{"changed:3,true:4,true", "gone:1,true:0,false", "new:0,false:5,true", "same:2,true:2,true"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
