package permission

import (
	"strings"
)

// This file finds the command that a wrapper runs, for the wrappers
// whose words are more than options and a command: nice, xargs, find
// -exec, sh -c, eval and trap (shell_wrappers.go holds the table of all
// wrappers and the rest). Each unwrapper skips the wrapper's options the
// way the real program parses them; an option it does not know, or a
// word that is not literal, leaves the wrapper not understood, so only a
// rule for the wrapper itself can allow it, and its words are guessed at
// for deny rules.

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish":
		return true
	}
	return false
}

// An unwrapper finds the commands a wrapper runs and records them as the
// wrapper's inner parts.
type unwrapper struct {
	an *analyzer
	p  *part
	// w is the wrapper being read.
	w     *wrapper
	depth int
	// loose is set for the best-effort reading of an unparseable line.
	loose bool
}

// run records ws as the command the wrapper runs; no words means the
// wrapper runs nothing, which leaves it harmless when harmlessAlone.
func (u *unwrapper) run(ws []word, harmlessAlone bool) {
	u.p.understood = true
	if len(ws) == 0 {
		u.p.harmless = harmlessAlone
		return
	}
	u.p.inner = append(u.p.inner, u.an.callParts(ws, u.depth, u.loose)...)
}

// guess is the best effort for options not understood: skip what looks
// like options and assignments and judge the rest for deny rules. The
// wrapper stays not understood, so only a rule for it can allow it.
func (u *unwrapper) guess(ws []word) {
	for len(ws) > 0 && (strings.HasPrefix(ws[0].text, "-") || strings.Contains(ws[0].text, "=")) {
		ws = ws[1:]
	}
	if len(ws) > 0 {
		u.p.inner = append(u.p.inner, u.an.callParts(ws, u.depth, true)...)
	}
	u.p.understood = false
}

// shell records the commands of a command string (sh -c, eval).
func (u *unwrapper) shell(text string, literal bool) {
	parts, _, err := u.an.source(text, u.depth)
	u.p.inner = append(u.p.inner, parts...)
	u.p.understood = literal && err == nil
}

func unwrapNice(u *unwrapper, ws []word) {
	i := 1
	for i < len(ws) && ws[i].lit {
		s := ws[i].text
		switch {
		case s == "-n" || s == "--adjustment":
			if i+1 < len(ws) && !ws[i+1].lit {
				u.guess(ws[i:]) // $x may split into more words
				return
			}
			i += 2
			continue
		case s == "--":
			i++
		case strings.HasPrefix(s, "-n") || strings.HasPrefix(s, "--adjustment=") || len(s) > 1 && s[0] == '-' && isInt(s[1:]):
			i++
			continue
		case strings.HasPrefix(s, "-"):
			u.guess(ws[i:])
			return
		}
		break
	}
	if i < len(ws) && !ws[i].lit && strings.HasPrefix(ws[i].text, "-") {
		u.guess(ws[i:])
		return
	}
	u.run(ws[min(i, len(ws)):], false)
}

// unwrapXargs finds the command xargs runs. It gets further arguments
// from the input, unknown here; with -I they replace the marker instead.
func unwrapXargs(u *unwrapper, ws []word) {
	repl := ""
	i := 1
	ok := true
loop:
	for i < len(ws) {
		s := ws[i].text
		if !ws[i].lit {
			ok = false
			break
		}
		switch {
		case s == "--":
			i++
			break loop
		case strings.HasPrefix(s, "--"):
			name, val, hasVal := strings.Cut(s[2:], "=")
			i++
			switch name {
			case "null", "no-run-if-empty", "verbose", "interactive", "exit", "open-tty", "show-limits":
			case "arg-file", "delimiter", "max-args", "max-procs", "max-chars":
				if !hasVal {
					if i < len(ws) && !ws[i].lit {
						ok = false
						break loop
					}
					i++
				}
			case "max-lines", "eof":
			case "replace":
				repl = "{}"
				if hasVal {
					repl = val
				}
			default:
				ok = false
				break loop
			}
		case len(s) > 1 && s[0] == '-':
			i++
			for j := 1; j < len(s); j++ {
				c := s[j]
				rest := s[j+1:]
				switch {
				case strings.IndexByte("0prtxo", c) >= 0:
					continue
				case strings.IndexByte("adEILnPs", c) >= 0:
					arg := rest
					if rest == "" && i < len(ws) {
						if !ws[i].lit {
							ok = false
							break loop
						}
						arg = ws[i].text
						i++
					}
					if c == 'I' {
						repl = arg
					}
				case c == 'i':
					repl = "{}"
					if rest != "" {
						repl = rest
					}
				case c == 'e' || c == 'l':
				default:
					ok = false
					break loop
				}
				break
			}
		default:
			break loop
		}
	}
	if !ok {
		u.guess(ws[min(i, len(ws)):])
		return
	}
	cmd := append([]word(nil), ws[min(i, len(ws)):]...)
	for k := range cmd {
		if repl != "" && strings.Contains(cmd[k].text, repl) {
			cmd[k].lit = false
		}
	}
	u.run(cmd, true) // xargs alone runs echo
	if len(u.p.inner) > 0 && repl == "" {
		u.p.inner[len(u.p.inner)-1].moreArgs = true
	}
}

// unwrapFind finds the commands of -exec, -execdir, -ok and -okdir.
func unwrapFind(u *unwrapper, ws []word) {
	u.p.understood = true
	for i := 1; i < len(ws); i++ {
		switch ws[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(ws) && !(ws[j].text == ";" || ws[j].text == "+") {
			j++
		}
		cmd := append([]word(nil), ws[i+1:j]...)
		for k := range cmd {
			if strings.Contains(cmd[k].text, "{}") {
				cmd[k].lit = false // the file name
			}
		}
		if len(cmd) > 0 {
			u.p.inner = append(u.p.inner, u.an.callParts(cmd, u.depth, u.loose)...)
		}
		i = j
	}
}

// unwrapShell finds the command string of sh -c and its kin.
func unwrapShell(u *unwrapper, ws []word) {
	i := 1
	cmdMode, ok := false, true
loop:
	for i < len(ws) {
		s := ws[i].text
		switch {
		case !ws[i].lit:
			ok = false
			break loop
		case s == "--" || s == "-":
			i++
			break loop
		case strings.HasPrefix(s, "--"):
			i++
			switch s {
			case "--login", "--noprofile", "--norc", "--posix", "--restricted", "--verbose", "--noediting":
			case "--rcfile", "--init-file":
				i++
				ok = false // runs that file first
			default:
				ok = false
			}
		case len(s) > 1 && (s[0] == '-' || s[0] == '+'):
			i++
			for _, c := range s[1:] {
				switch {
				case c == 'c' && s[0] == '-':
					cmdMode = true
				case c == 'o' || c == 'O':
					i++
				case strings.ContainsRune("abefhkmnptuvxBCEHilr", c):
				default:
					ok = false // -s reads standard input, and unknown options
				}
			}
		default:
			break loop
		}
	}
	if !cmdMode || i >= len(ws) {
		// A script file or standard input: nothing to judge here.
		u.p.understood = false
		if u.loose && i < len(ws) {
			u.guess(ws[i:])
		}
		return
	}
	text := ws[i].text
	if u.loose {
		// The best-effort reading lost the quotes: take the rest.
		text = joinWords(ws[i:])
	}
	u.shell(text, ws[i].lit && ok)
}

// unwrapEval parses eval's arguments, joined, as a command line.
func unwrapEval(u *unwrapper, ws []word) {
	args := ws[1:]
	if len(args) > 0 && args[0].text == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		u.p.understood, u.p.harmless = true, true
		return
	}
	u.shell(joinWords(args), allLiteral(args))
}

func unwrapTrap(u *unwrapper, ws []word) {
	args := ws[1:]
	for len(args) > 0 && strings.HasPrefix(args[0].text, "-") && args[0].text != "-" {
		if args[0].text == "--" {
			args = args[1:]
			break
		}
		args = args[1:]
	}
	if len(args) >= 2 {
		u.shell(args[0].text, args[0].lit)
	}
}
