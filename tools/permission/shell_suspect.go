package permission

import (
	"encoding/json"
	"fmt"
	"strings"
)

// This file catches a denied program in a place the analysis cannot
// classify: an argument of a program that is not known to treat its
// arguments as data, and that may run one of them (`somewrapper rm -rf
// x`, `foo --exec rm`, `make CC=rm`). Such a call is not denied — the
// program may well not run it — but it is not allowed on a posture or a
// rule either: only a person may let it run, and with no one to ask it
// is refused, as a command that does not parse is.
//
// Only programs that some deny rule names are looked for, so a policy
// without deny rules, and commands that name no denied program, are not
// affected. The programs whose arguments are data (echo, grep, cat …)
// are left alone, so `grep rm file` is not asked. A program's own
// subcommand is not a program either: `git rm` is git's rm, and `go
// test` is not the test builtin; the arguments after it still count
// (`docker run img rm -rf /x`, `git bisect run rm x`), except for the
// subcommands of git that only ever read them (`git commit -m rm`, `git
// grep rm`). A word holding a command line (`foo --exec 'rm -rf x'`,
// `git -c core.pager='rm -rf ~' log`) is parsed, and its parts are
// judged by the deny rules.

// dataPrograms are programs whose arguments are data they read, print or
// compare, never a program they run.
var dataPrograms = map[string]bool{
	"echo": true, "printf": true, "cat": true, "tac": true, "grep": true, "egrep": true, "fgrep": true,
	"rg": true, "ag": true, "ack": true, "head": true, "tail": true, "wc": true, "sort": true, "uniq": true,
	"cut": true, "tr": true, "ls": true, "stat": true, "file": true, "which": true, "whereis": true,
	"type": true, "man": true, "info": true, "whatis": true, "apropos": true, "help": true, "diff": true,
	"cmp": true, "comm": true, "basename": true, "dirname": true, "realpath": true, "readlink": true,
	"touch": true, "mkdir": true, "less": true, "more": true, "column": true, "nl": true, "od": true,
	"xxd": true, "hexdump": true, "base64": true, "md5sum": true, "sha1sum": true, "sha256sum": true,
	"sha512sum": true, "pgrep": true, "pkill": true, "killall": true, "ps": true, "test": true, "[": true,
	"[[": true, "true": true, "false": true, "pwd": true, "cd": true, "jq": true, "locate": true,
}

// gitDataCommands are git subcommands that only read their arguments as
// paths, revisions, patterns and messages.
var gitDataCommands = map[string]bool{
	"add": true, "blame": true, "branch": true, "checkout": true, "commit": true, "describe": true,
	"diff": true, "grep": true, "help": true, "init": true, "log": true, "ls-files": true, "ls-tree": true,
	"mv": true, "reflog": true, "reset": true, "restore": true, "rev-parse": true, "rm": true,
	"shortlog": true, "show": true, "stash": true, "status": true, "switch": true, "tag": true,
	"version": true, "cat-file": true, "rev-list": true,
}

// suspect returns the strict rule that asks for a shell command in which
// a program some deny rule names stands in an argument that may run it,
// or nil.
func (p Policy) suspect(args json.RawMessage) *Rule {
	named := map[string][]deniedBy{}
	for i, r := range p.Deny {
		if !r.coversFamily(FamilyShell) || !r.HasSpec || r.Spec == "*" {
			continue
		}
		spec := parseBashSpec(r.Spec)
		if prog := spec.program(); prog != "" {
			named[prog] = append(named[prog], deniedBy{&p.Deny[i], spec})
		}
	}
	if len(named) == 0 {
		return nil
	}
	cmd, ok := commandOf(args)
	if !ok {
		return nil
	}
	var found *Rule
	analyzeCommand(cmd).walk(func(pt *part) bool {
		for _, i := range unclassified(pt) {
			text := pt.words[i].text
			if _, v, ok := strings.Cut(text, "="); ok {
				// --exec=rm, CC=rm, core.pager=rm -rf ~, and git's
				// alias.x=!rm, whose "!" runs the rest with a shell.
				text = strings.TrimPrefix(v, "!")
			}
			if strings.ContainsAny(text, shellBlanks+";&|") {
				// A command line in one word, as an option that runs
				// one through a shell would take it.
				if r := lineRuns(text, named); r != nil {
					found = suspectRule(text, pt.words[0].text, r)
					return false
				}
				continue
			}
			argv := append([]word{{text: text, lit: true}}, pt.words[i+1:]...)
			for _, d := range named[programKey(text)] {
				if d.spec.mayRun(argv) {
					found = suspectRule(text, pt.words[0].text, d.rule)
					return false
				}
			}
		}
		return true
	})
	return found
}

// lineRuns returns the deny rule that matches a part of a command line
// held in one word, or nil. The line is parsed only when it holds the
// name of a denied program.
func lineRuns(line string, named map[string][]deniedBy) *Rule {
	mentions, lower := false, strings.ToLower(line)
	for prog := range named {
		if strings.Contains(lower, prog) {
			mentions = true
			break
		}
	}
	if !mentions {
		return nil
	}
	var found *Rule
	analyzeCommand(line).walk(func(p *part) bool {
		for _, ds := range named {
			for _, d := range ds {
				if d.spec.matchesPart(p) {
					found = d.rule
					return false
				}
			}
		}
		return true
	})
	return found
}

// A deniedBy is a deny rule and its parsed specifier.
type deniedBy struct {
	rule *Rule
	spec bashSpec
}

func suspectRule(prog, in string, deny *Rule) *Rule {
	return &Rule{
		Raw:    fmt.Sprintf("%s in the arguments of %s, which the rule %q denies", prog, in, deny.Raw),
		strict: true,
		why: fmt.Sprintf("%q, which the rule %q denies, is an argument of %q, which may run it, so only a person may allow this command",
			prog, deny.Raw, in),
	}
}

// unclassified returns the indexes of the words of a call that may be a
// program it runs: every argument, but for those of the programs whose
// arguments are data, of wrappers whose command was found (it is judged
// as a part of its own), options without a value, and a program's own
// subcommand.
func unclassified(p *part) []int {
	if p.kind != partCall || p.harmless || len(p.words) < 2 || p.wrap != notWrapper && p.understood {
		return nil
	}
	skip := -1
	if p.words[0].lit {
		key := programKey(p.words[0].text)
		if dataPrograms[key] {
			return nil
		}
		if rs := globalReadings(p.words); len(rs) > 0 && rs[0].sub < len(p.words) && !strings.Contains(p.words[rs[0].sub].text, "=") {
			skip = rs[0].sub // not make's VAR=value
		}
	}
	end := len(p.words)
	if skip > 0 && programKey(p.words[0].text) == "git" && gitDataCommands[p.words[skip].text] {
		// Its global options still count: -c core.pager=… runs a
		// command.
		end = skip
	}
	var out []int
	for i := 1; i < end; i++ {
		w := p.words[i]
		if i == skip || !w.lit || w.text == "" || strings.HasPrefix(w.text, "-") && !strings.Contains(w.text, "=") {
			continue
		}
		out = append(out, i)
	}
	return out
}

// program is the program a Bash specifier names, as programKey spells
// it, or "" when its first word is a pattern.
func (s bashSpec) program() string {
	var first string
	switch s.kind {
	case specPrefix:
		if len(s.prefix) > 0 {
			first = s.prefix[0]
		}
	case specExact:
		if len(s.exact) > 0 {
			first = s.exact[0]
		}
	case specWildcard:
		if f := strings.Fields(s.pattern); len(f) > 0 && !strings.Contains(f[0], "*") {
			first = f[0]
		}
	}
	if first == "" {
		return ""
	}
	return programKey(first)
}

// mayRun reports whether a program given argv (argv[0] being the program
// the specifier names) may run what the specifier matches, once its
// unknown caller adds arguments or expands the words that are not
// literal: each of the specifier's words that argv has must be there,
// and the words it lacks may be added. argv is also read without its
// global options.
func (s bashSpec) mayRun(argv []word) bool {
	if s.mayRunWords(argv) {
		return true
	}
	for _, r := range globalReadings(argv) {
		if s.mayRunWords(r.argv) {
			return true
		}
	}
	return false
}

func (s bashSpec) mayRunWords(argv []word) bool {
	words, partial := s.exact, false
	switch s.kind {
	case specPrefix:
		words = s.prefix
	case specWildcard:
		head, _, _ := strings.Cut(s.pattern, "*")
		words = strings.Fields(head)
		partial = !strings.HasSuffix(head, " ")
	}
	for j := 1; j < len(words) && j < len(argv); j++ {
		switch {
		case !argv[j].lit:
			return true // it may expand to anything, several words too
		case partial && j == len(words)-1:
			if !strings.HasPrefix(argv[j].text, words[j]) {
				return false
			}
		case argv[j].text != words[j]:
			return false
		}
	}
	return true
}
