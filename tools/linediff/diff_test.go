package linediff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLinesMinimal checks the Myers diff against the longest common
// subsequence found by dynamic programming: the hunks must insert and delete
// exactly the lines outside it.
func TestLinesMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		a, b := randomLineSeq(r), randomLineSeq(r)
		hunks := Lines(a, b)
		changed := 0
		ai, bi := 0, 0
		for _, h := range hunks {
			if h.A0 < ai || h.B0 < bi || h.A0 > h.A1 || h.B0 > h.B1 || h.A0-ai != h.B0-bi {
				t.Fatalf("Lines(%q, %q): bad hunks %v", a, b, hunks)
			}
			if !slices.Equal(a[ai:h.A0], b[bi:h.B0]) {
				t.Fatalf("Lines(%q, %q) = %v: lines outside hunks differ", a, b, hunks)
			}
			changed += h.A1 - h.A0 + h.B1 - h.B0
			ai, bi = h.A1, h.B1
		}
		if !slices.Equal(a[ai:], b[bi:]) {
			t.Fatalf("Lines(%q, %q) = %v: lines after the hunks differ", a, b, hunks)
		}
		if want := len(a) + len(b) - 2*lcsLen(a, b); changed != want {
			t.Fatalf("Lines(%q, %q) = %v changes %d lines, want %d", a, b, hunks, changed, want)
		}
	}
}

func randomLineSeq(r *rand.Rand) []string {
	s := make([]string, r.IntN(25))
	alphabet := 1 + r.IntN(5)
	for i := range s {
		s[i] = string(rune('a' + r.IntN(alphabet)))
	}
	return s
}

func lcsLen(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestLines(t *testing.T) {
	tests := []struct {
		a, b string // one line a character
		want []Hunk
	}{
		{"", "", nil},
		{"abc", "abc", nil},
		{"", "ab", []Hunk{{0, 0, 0, 2}}},
		{"ab", "", []Hunk{{0, 2, 0, 0}}},
		{"abc", "aBc", []Hunk{{1, 2, 1, 2}}},
		{"ac", "abc", []Hunk{{1, 1, 1, 2}}},
		{"abc", "ac", []Hunk{{1, 2, 1, 1}}},
		{"abcde", "AbcdE", []Hunk{{0, 1, 0, 1}, {4, 5, 4, 5}}},
		// Touching changes come as one hunk.
		{"abcd", "aXYd", []Hunk{{1, 3, 1, 3}}},
		{"abc", "aXbc", []Hunk{{1, 1, 1, 2}}},
		{"xxx", "xxxx", []Hunk{{3, 3, 3, 4}}},
	}
	for _, tt := range tests {
		a, b := chars(tt.a), chars(tt.b)
		if got := Lines(a, b); !slices.Equal(got, tt.want) {
			t.Errorf("Lines(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func chars(s string) []string {
	var lines []string
	for _, r := range s {
		lines = append(lines, string(r))
	}
	return lines
}

// TestLinesBounds checks that past the bounds on the diff the result is one
// hunk of everything, and that within them it is not.
func TestLinesBounds(t *testing.T) {
	numbered := func(n int, prefix string, every int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprint("line ", i)
			if every > 0 && i%every == 0 {
				s[i] = fmt.Sprint(prefix, i)
			}
		}
		return s
	}
	a := numbered(6000, "", 0)
	tests := []struct {
		name string
		b    []string
		want int // hunks
	}{
		{"every third line changed", numbered(6000, "changed ", 3), 1},
		{"every hundredth line changed", numbered(6000, "changed ", 100), 60},
		{"far longer", numbered(6000+maxDiffLines+1, "", 0), 1},
	}
	for _, tt := range tests {
		got := Lines(a, tt.b)
		if len(got) != tt.want {
			t.Errorf("%s: %d hunks, want %d", tt.name, len(got), tt.want)
		}
		if tt.want == 1 && got[0] != (Hunk{0, len(a), 0, len(tt.b)}) {
			t.Errorf("%s: %v, want the whole of both", tt.name, got)
		}
	}
}
