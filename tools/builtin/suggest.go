package builtin

import (
	"path/filepath"
	"strings"

	"github.com/reasonix/reasonix/tools"
)

// similarNames looks beside a missing path for entries the model probably
// meant (a different case, a typo, another extension) and returns them
// quoted and comma-separated, or "".
func similarNames(env *tools.Env, abs string) string {
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	real, entries, err := env.ListDir(dir)
	if err != nil {
		return ""
	}
	withheld := env.Withhold(dir)
	want := strings.ToLower(base)
	stem := strings.TrimSuffix(want, filepath.Ext(want))
	var hits []string
	for _, e := range entries {
		name := strings.ToLower(e.Name())
		if name == want || strings.TrimSuffix(name, filepath.Ext(name)) == stem || editDistance(name, want, 2) <= 2 {
			if withheld.Leave(filepath.Join(real, e.Name()), e.IsDir()) {
				continue // its name is the rules' to withhold
			}
			hits = append(hits, `"`+env.Rel(filepath.Join(dir, e.Name()))+`"`)
			if len(hits) == 3 {
				break
			}
		}
	}
	return strings.Join(hits, ", ")
}

// editDistance is the Levenshtein distance of a and b, giving up (and
// returning max+1) once it must exceed max.
func editDistance(a, b string, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > max {
			return max + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
