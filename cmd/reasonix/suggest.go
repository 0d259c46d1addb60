package main

import (
	"fmt"
	"strings"
)

// A mistyped word on the command line — a command, a flag, a model — is
// answered with the nearest word the command knows, when one is near
// enough to be what was meant. Nearness is the edit distance below;
// "near enough" grows with the word's length, so that a short word is not
// matched to an unrelated one ("rn" is not "run" with a letter missing,
// but "sesions" is "sessions").

// editDistance is the optimal string alignment distance between a and b
// (Damerau–Levenshtein restricted to one edit per substring): the fewest
// insertions, deletions, substitutions of one letter and swaps of two
// adjacent letters that turn a into b. Typing slips are mostly one of
// these, and the swap ("stast" for "stats") counts as one slip, not two.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}

// maxSlips is how many edits a word of n letters may be from the word it
// is taken to mean: one for a short word, two from seven letters on.
func maxSlips(n int) int {
	switch {
	case n < 3:
		return 0
	case n < 7:
		return 1
	}
	return 2
}

// nearest returns the candidate nearest to word, case aside, if it is
// near enough (maxSlips) and nearer than any other; the first of equals
// wins, so candidates come in the order to prefer.
func nearest(word string, candidates []string) (string, bool) {
	w := strings.ToLower(word)
	best, bestD := "", maxSlips(len([]rune(w)))+1
	for _, c := range candidates {
		if d := editDistance(w, strings.ToLower(c)); d < bestD && c != word {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// didYouMean is the suffix of an error line that names the candidate
// nearest to word, formatted with format ("%q", "--%s"), or "".
func didYouMean(word string, candidates []string, format string) string {
	if c, ok := nearest(word, candidates); ok {
		return " — did you mean " + fmt.Sprintf(format, c) + "?"
	}
	return ""
}
