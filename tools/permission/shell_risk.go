package permission

import (
	"path"
	"strings"
)

// This file decides what a simple command is to the rules: a harmless
// builtin, a declaration, a wrapper, or an ordinary command. It holds the
// tables behind those decisions: builtins that run nothing, interpreters
// that run their arguments, and variables whose assignment changes how
// programs run.

// callParts classifies a simple command given as words: a harmless
// builtin, a declaration, a wrapper whose inner command is unwrapped, or
// an ordinary command. It returns the call and any assignment parts it
// makes. loose is set for the best-effort reading of an unparseable line.
func (an *analyzer) callParts(ws []word, depth int, loose bool) []*part {
	p := an.newPart(partCall, ws)
	if !ws[0].lit || an.err != nil {
		return []*part{p}
	}
	name := ws[0].text
	bare := !strings.Contains(name, "/")
	if bare {
		switch {
		case harmlessBuiltins[name]:
			p.harmless = an.builtinOK(ws)
		case declBuiltins[name]:
			return an.declParts(p)
		}
		an.subscriptHazards(ws)
	}
	if w := wrapperFor(path.Base(name)); w != nil {
		p.wrap = w.kind
		if !bare {
			p.wrap = opaque // /tmp/x/env is not env
		}
		if depth >= maxShellDepth {
			return []*part{p}
		}
		w.unwrap(&unwrapper{an: an, p: p, w: w, depth: depth + 1, loose: loose}, ws)
		if !bare {
			p.harmless = false // /tmp/x/env alone is not harmless either
		}
	}
	return []*part{p}
}

// harmlessBuiltins run nothing and write nothing by themselves, so they
// are covered without a rule (their redirections and substitutions are
// still judged).
var harmlessBuiltins = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "pwd": true, "true": true, "false": true,
	":": true, "echo": true, "printf": true, "test": true, "[": true, "[[": true,
	"exit": true, "return": true, "shift": true,
}

var declBuiltins = map[string]bool{
	"declare": true, "local": true, "export": true, "readonly": true, "typeset": true,
}

// builtinOK checks the arguments of a harmless builtin for the few forms
// that do run code or assign: printf -v, test -v with a subscript, and
// arithmetic comparisons in [[ (the POSIX reading sees [[ as a command).
func (an *analyzer) builtinOK(ws []word) bool {
	switch ws[0].text {
	case "printf":
		return len(ws) < 2 || ws[1].lit && !strings.HasPrefix(ws[1].text, "-v")
	case "test", "[", "[[":
		for i := 1; i < len(ws); i++ {
			switch ws[i].text {
			case "-v", "-R":
				if i+1 < len(ws) && (!ws[i+1].lit || !isName(ws[i+1].text)) {
					an.hazard("test -v evaluates a subscript")
					return false
				}
			case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
				if ws[0].text == "[[" && (!ws[i-1].lit || !isInt(ws[i-1].text) || i+1 < len(ws) && (!ws[i+1].lit || !isInt(ws[i+1].text))) {
					an.hazard("[[ … ]] evaluates its operands as arithmetic")
					return false
				}
			}
		}
	}
	return true
}

// nameBuiltins take variable names, whose subscripts Bash evaluates.
var nameBuiltins = map[string]bool{
	"read": true, "mapfile": true, "readarray": true, "getopts": true, "printf": true, "unset": true,
	"let": true, "test": true, "[": true, "[[": true, "wait": true, "declare": true, "local": true,
	"export": true, "readonly": true, "typeset": true,
}

// subscriptHazards flags a literal argument such as 'a[$(cmd)]' given to
// a builtin that takes a variable name: Bash expands the subscript.
func (an *analyzer) subscriptHazards(ws []word) {
	if !nameBuiltins[ws[0].text] {
		return
	}
	for _, w := range ws[1:] {
		if strings.Contains(w.text, "[") && strings.ContainsAny(w.text, "$`") {
			an.hazard("%s evaluates the subscript in %q", ws[0].text, w.text)
		}
	}
}

// declParts judges a declaration builtin given as words (the POSIX
// reading, or one run by a wrapper): each NAME=value is an assignment.
func (an *analyzer) declParts(p *part) []*part {
	ps := []*part{p}
	p.harmless = true
	an.subscriptHazards(p.words)
	for _, w := range p.words[1:] {
		if name, _, ok := strings.Cut(w.text, "="); ok && w.lit && isName(name) {
			ps = append(ps, an.assignPart(w, name))
			continue
		}
		if !w.lit || !declArgOK(p.words[0].text, w.text) {
			p.harmless = false
		}
	}
	return ps
}

// assignPart is the assignment a word NAME=value given to a program
// makes: a declaration builtin's argument, or one env or sudo sets.
func (an *analyzer) assignPart(w word, name string) *part {
	a := an.newPart(partAssign, []word{w})
	a.risk = varRisk(name)
	a.harmless = a.risk == ""
	return a
}

// declArgOK reports whether a literal argument of a declaration builtin
// is harmless: an option that only exports or marks read-only, or a plain
// variable name that is not dangerous. Others, such as -n (a name
// reference that redirects later assignments) and -i (arithmetic on every
// assignment), are not.
func declArgOK(variant, arg string) bool {
	if strings.HasPrefix(arg, "-") || strings.HasPrefix(arg, "+") {
		allowed := "p"
		if variant == "declare" || variant == "typeset" || variant == "local" {
			allowed = "xrgp"
		}
		rest := arg[1:]
		return rest != "" && strings.Trim(rest, allowed) == ""
	}
	name, _, _ := strings.Cut(arg, "=")
	return isName(name) && varRisk(name) == ""
}

// interpreters run code given in their arguments, so a prefix grant for
// one would allow anything.
var interpreters = map[string]bool{
	"python": true, "python2": true, "python3": true, "node": true, "deno": true, "bun": true,
	"perl": true, "ruby": true, "php": true, "lua": true, "awk": true, "gawk": true, "mawk": true,
	"osascript": true, "pwsh": true, "powershell": true, "source": true, ".": true, "watch": true,
	"ssh": true, "script": true, "setsid": true, "flock": true, "parallel": true, "npx": true,
}

func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-") // 2>&1- moves the descriptor
	if s == "" {
		return true // >&- closes stdout
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func safeDevice(s string) bool {
	switch s {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return true
	}
	return false
}

// varRisk says why assigning the variable is dangerous, or "" when it is
// not. The dangerous ones change how the loader, the shell or a common
// tool runs programs:
//
//   - loader: LD_*, DYLD_*, GCONV_PATH, LOCPATH, NLSPATH
//   - shell: PATH, BASH*, ENV, PROMPT_COMMAND, IFS, SHELLOPTS, PS0–PS4,
//     CDPATH, HOME, SHELL, POSIXLY_CORRECT, GLOBIGNORE, EXECIGNORE, HISTFILE
//   - programs run by tools: GIT_* (but author/committer identity and
//     GIT_TERMINAL_PROMPT), EDITOR, VISUAL, PAGER, MANPAGER, LESSOPEN,
//     LESSCLOSE, BROWSER, SSH_ASKPASS, SUDO_ASKPASS, SUDO_EDITOR,
//     XDG_CONFIG_HOME, XDG_CONFIG_DIRS
//   - Go: GOFLAGS, GOENV, GOROOT, GOPATH, GOMODCACHE, GOCACHE, GOTOOLCHAIN,
//     GOTOOLDIR, GOPROXY, GONOPROXY, GOSUMDB, GONOSUMDB, GONOSUMCHECK,
//     GOPRIVATE, GOINSECURE, GOVCS, GOWORK, GOBIN, CGO_* (but CGO_ENABLED)
//   - C toolchain: CC, CXX, CPP, LD, AR, AS, CFLAGS, CXXFLAGS, CPPFLAGS,
//     LDFLAGS, MAKEFLAGS, GNUMAKEFLAGS, MAKEFILES
//   - interpreters: NODE_OPTIONS, NODE_PATH, npm_config_* (any case),
//     YARN_*, PYTHONSTARTUP, PYTHONPATH, PYTHONHOME, PYTHONUSERBASE,
//     PERL5OPT, PERL5LIB, PERLLIB, PERL5DB, RUBYOPT, RUBYLIB,
//     JAVA_TOOL_OPTIONS, _JAVA_OPTIONS, JDK_JAVA_OPTIONS, CLASSPATH,
//     RUSTC, RUSTC_WRAPPER, RUSTC_WORKSPACE_WRAPPER, RUSTDOC, RUSTFLAGS,
//     RUSTDOCFLAGS, CARGO_*
//
// The list cannot be complete; it names what is known to run code.
func varRisk(name string) string {
	if dangerousVars[name] {
		return "sets " + name
	}
	upper := strings.ToUpper(name)
	for _, prefix := range dangerousVarPrefixes {
		if strings.HasPrefix(upper, prefix) && !harmlessVars[name] {
			return "sets " + name
		}
	}
	return ""
}

var dangerousVars = map[string]bool{
	"GCONV_PATH": true, "LOCPATH": true, "NLSPATH": true,
	"PATH": true, "ENV": true, "PROMPT_COMMAND": true, "IFS": true, "SHELLOPTS": true,
	"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true, "CDPATH": true, "HOME": true,
	"SHELL": true, "POSIXLY_CORRECT": true, "GLOBIGNORE": true, "EXECIGNORE": true, "HISTFILE": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true, "LESSOPEN": true,
	"LESSCLOSE": true, "BROWSER": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true, "SUDO_EDITOR": true,
	"XDG_CONFIG_HOME": true, "XDG_CONFIG_DIRS": true,
	"GOFLAGS": true, "GOENV": true, "GOROOT": true, "GOPATH": true, "GOMODCACHE": true,
	"GOCACHE": true, "GOTOOLCHAIN": true, "GOTOOLDIR": true, "GOPROXY": true, "GONOPROXY": true,
	"GOSUMDB": true, "GONOSUMDB": true, "GONOSUMCHECK": true, "GOPRIVATE": true, "GOINSECURE": true,
	"GOVCS": true, "GOWORK": true, "GOBIN": true,
	"CC": true, "CXX": true, "CPP": true, "LD": true, "AR": true, "AS": true, "CFLAGS": true,
	"CXXFLAGS": true, "CPPFLAGS": true, "LDFLAGS": true, "MAKEFLAGS": true, "GNUMAKEFLAGS": true,
	"MAKEFILES":    true,
	"NODE_OPTIONS": true, "NODE_PATH": true, "PYTHONSTARTUP": true, "PYTHONPATH": true,
	"PYTHONHOME": true, "PYTHONUSERBASE": true, "PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true,
	"PERL5DB": true, "RUBYOPT": true, "RUBYLIB": true, "JAVA_TOOL_OPTIONS": true,
	"_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "CLASSPATH": true, "RUSTC": true,
	"RUSTC_WRAPPER": true, "RUSTC_WORKSPACE_WRAPPER": true, "RUSTDOC": true, "RUSTFLAGS": true,
	"RUSTDOCFLAGS": true,
}

// dangerousVarPrefixes are compared with the upper-cased name: npm reads
// npm_config_* in any case.
var dangerousVarPrefixes = []string{"LD_", "DYLD_", "BASH", "GIT_", "CGO_", "NPM_CONFIG_", "YARN_", "CARGO_"}

var harmlessVars = map[string]bool{
	"CGO_ENABLED":     true,
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true,
	"GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true, "GIT_COMMITTER_DATE": true,
	"GIT_TERMINAL_PROMPT": true,
}
