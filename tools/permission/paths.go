package permission

import (
	"path/filepath"
	"strings"
)

// CommandPaths returns the words of a shell command that may name files:
// every argument of every simple command (inner ones included), every
// redirection target, and the value after "=" in option words such as
// --file=x. A leading ~ or $HOME is expanded to home. The answer is a best
// effort — a path built at run time is not seen — and is meant for refusing
// commands that plainly touch protected files, before they run.
func CommandPaths(cmd, home string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = expandHome(s, home)
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	analyzeCommand(cmd).walk(func(p *part) bool {
		for i, w := range p.words {
			if p.kind == partCall && i == 0 {
				continue // the program
			}
			text := w.text
			if p.kind == partAssign {
				_, text, _ = strings.Cut(text, "=")
			}
			add(text)
			if _, v, ok := strings.Cut(text, "="); ok && strings.HasPrefix(text, "-") {
				add(v)
			}
		}
		return true
	})
	return out
}

// expandHome expands a leading ~, $HOME or ${HOME}; other words with
// expansions are dropped, since their value is not known here.
func expandHome(s, home string) string {
	for _, pre := range []string{"~", "$HOME", "${HOME}"} {
		if s == pre {
			return home
		}
		if rest, ok := strings.CutPrefix(s, pre+"/"); ok {
			if home == "" {
				return ""
			}
			return filepath.Join(home, rest)
		}
	}
	if strings.ContainsAny(s, "$`") || s == "" {
		return ""
	}
	return s
}
