package walk

// This file ports git's wildmatch (wildmatch.c), the matcher behind
// .gitignore patterns, in its WM_PATHNAME mode: '*' and '?' stop at '/',
// and '**' crosses directories only when it is a whole path component.
// Following git exactly matters more than elegance here: a pattern that
// git and the walker read differently would hide files from the model or
// flood it with build output.

// Results of one matching attempt. The two abort codes let an outer '*'
// give up early instead of retrying at every position, as git does.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches pattern with git's pathname
// semantics.
func wildmatch(pattern, text string) bool {
	return dowild(pattern, text) == wmMatch
}

// at returns s[i], or 0 past the end, standing in for C's terminating NUL.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

func dowild(pat, text string) int {
	p, t := 0, 0
	for ; p < len(pat); p, t = p+1, t+1 {
		pc := pat[p]
		tc := at(text, t)
		if tc == 0 && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			// A literal match with the next character; a trailing
			// backslash matches nothing.
			p++
			if at(pat, p) != tc {
				return wmNoMatch
			}
		default:
			if tc != pc {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := false
			p++
			if at(pat, p) == '*' {
				prev := p - 2
				for p++; at(pat, p) == '*'; p++ {
				}
				if (prev < 0 || pat[prev] == '/') &&
					(p == len(pat) || pat[p] == '/' || (pat[p] == '\\' && at(pat, p+1) == '/')) {
					// "**/" may match no directory at all: try the
					// rest of the pattern right here first.
					if at(pat, p) == '/' && dowild(pat[p+1:], text[t:]) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				}
				// Otherwise "**" is an ordinary '*'.
			}
			if p == len(pat) {
				// A trailing "**" matches everything; a trailing '*'
				// only what has no further '/'.
				if !matchSlash && indexByte(text[t:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && pat[p] == '/' {
				// A single '*' before '/' matches the rest of this
				// component.
				i := indexByte(text[t:], '/')
				if i < 0 {
					return wmNoMatch
				}
				t += i
				// The loop's increment consumes the '/' of both.
				continue
			}
			for {
				if tc == 0 {
					break
				}
				// When a literal follows the star, skip ahead to its
				// next occurrence: everything before it belongs to '*'.
				if !isGlobSpecial(pat[p]) {
					pc = pat[p]
					for tc = at(text, t); tc != 0 && (matchSlash || tc != '/'); tc = at(text, t) {
						if tc == pc {
							break
						}
						t++
					}
					if tc != pc {
						return wmNoMatch
					}
				}
				if m := dowild(pat[p:], text[t:]); m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tc == '/' {
					return wmAbortToStarStar
				}
				t++
				tc = at(text, t)
			}
			return wmAbortAll
		case '[':
			p++
			pc = at(pat, p)
			if pc == '^' {
				pc = '!'
			}
			negated := pc == '!'
			if negated {
				p++
				pc = at(pat, p)
			}
			var prev byte
			matched := false
			for {
				if pc == 0 {
					return wmAbortAll
				}
				switch {
				case pc == '\\':
					p++
					pc = at(pat, p)
					if pc == 0 {
						return wmAbortAll
					}
					if tc == pc {
						matched = true
					}
				case pc == '-' && prev != 0 && at(pat, p+1) != 0 && at(pat, p+1) != ']':
					p++
					pc = pat[p]
					if pc == '\\' {
						p++
						pc = at(pat, p)
						if pc == 0 {
							return wmAbortAll
						}
					}
					if tc <= pc && tc >= prev {
						matched = true
					}
					pc = 0 // so that prev becomes 0: "a-c-e" is not a-e
				case pc == '[' && at(pat, p+1) == ':':
					start := p + 2
					q := start
					for at(pat, q) != 0 && pat[q] != ']' {
						q++
					}
					if q >= len(pat) {
						return wmAbortAll
					}
					if q-start-1 < 0 || pat[q-1] != ':' {
						// No ":]": an ordinary '['.
						pc = '['
						if tc == pc {
							matched = true
						}
						break
					}
					ok, known := posixClass(pat[start:q-1], tc)
					if !known {
						return wmAbortAll
					}
					if ok {
						matched = true
					}
					p = q
					pc = 0
				default:
					if tc == pc {
						matched = true
					}
				}
				prev = pc
				p++
				pc = at(pat, p)
				if pc == ']' {
					break
				}
			}
			if matched == negated || tc == '/' {
				return wmNoMatch
			}
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// posixClass tests c against a [:name:] class; known is false for a name
// git does not know, which makes the whole pattern fail as in git.
func posixClass(name string, c byte) (ok, known bool) {
	isUpper := 'A' <= c && c <= 'Z'
	isLower := 'a' <= c && c <= 'z'
	isDigit := '0' <= c && c <= '9'
	switch name {
	case "alnum":
		return isUpper || isLower || isDigit, true
	case "alpha":
		return isUpper || isLower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return isLower, true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !isUpper && !isLower && !isDigit, true
	case "space":
		return c == ' ' || ('\t' <= c && c <= '\r'), true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F'), true
	}
	return false, false
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
