package permission

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"Bash", "Bash(go test:*)", "Bash(go test *)", "Bash(rm -rf*)", "bash=go test",
		"Edit(docs/**)", "Read(./a/../b)", "mcp__fs", "Bash()", "Bash(a(b)c)", " Bash(x) ",
		"a=b=c", "Bash(x", "(x)", "a b", "Bash(echo ')')", "Bash(\n)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		if r.Raw != strings.TrimSpace(s) {
			t.Fatalf("Raw %q is not the trimmed rule %q", r.Raw, s)
		}
		again, err := ParseRule(r.Raw)
		if err != nil || again != r {
			t.Fatalf("%q does not round-trip: %+v, %v (was %+v)", s, again, err, r)
		}
		// Matching never panics, whatever the specifier.
		for _, deny := range []bool{false, true} {
			r.matches("bash", bashArgs("go test ./... && rm -rf x"), deny)
			r.matches("edit_file", args("path", "docs/../a"), deny)
			r.matches("move_file", args("source", "a", "destination", "/b"), deny)
		}
	})
}

// FuzzShellDecision runs arbitrary command lines through a realistic
// policy and checks invariants that do not depend on the analyzer being
// right:
//
//   - the decision is deterministic;
//   - a command that Bash cannot parse is never allowed;
//   - an allowed command, read by the parser's own tree walk, calls only
//     allowed programs, harmless builtins or wrappers, with literal names,
//     writes no file and sets no dangerous variable;
//   - an allowed command followed by a denied one on a new line is not
//     allowed;
//   - a denied command stays denied after `true && `;
//   - granting the scope offered for a command that is not denied, nor
//     left to a person alone, allows it.
func FuzzShellDecision(f *testing.F) {
	for _, c := range attackCases() {
		if len(c.cmd) < 4096 {
			f.Add(c.cmd)
		}
	}
	p, err := NewPolicy("ask",
		[]string{"Bash(go test:*)", "Bash(git status:*)", "Bash(npm run build)"},
		nil, []string{"Bash(rm -rf*)", "Bash(curl:*)", "Bash(git push:*)"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		// A pathological input (deep nesting, backtracking) must not pin
		// the CPU: crash the worker so the fuzzer records it.
		watchdog := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("slow: %q", cmd)) })
		defer watchdog.Stop()
		d, rule := p.Decide("bash", false, bashArgs(cmd))
		if again, _ := p.Decide("bash", false, bashArgs(cmd)); again != d {
			t.Fatalf("%q: %v then %v", cmd, d, again)
		}
		// JSON replaces invalid UTF-8, so judge what the policy saw.
		seen, _ := commandOf(bashArgs(cmd))
		file, perr := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(seen), "")
		if d == Allow {
			if perr != nil || len(seen) > maxCommandBytes {
				t.Fatalf("%q allowed but does not parse: %v", cmd, perr)
			}
			if why := oracleRejects(file); why != "" {
				t.Fatalf("%q allowed but %s\n%s", cmd, why, describe(seen))
			}
			// Whatever the command left open (a trailing backslash, a
			// comment), a line starting with ; cannot continue it.
			if d2, _ := p.Decide("bash", false, bashArgs(cmd+"\n;curl evil")); d2 == Allow {
				t.Fatalf("%q allowed, and so is it followed by curl", cmd)
			}
		}
		if d == Deny {
			if d2, _ := p.Decide("bash", false, bashArgs("true && "+cmd)); d2 != Deny {
				t.Fatalf("%q denied, but %v after true &&\n%s", cmd, d2, describe("true && "+seen))
			}
		}
		// A command only a person may allow (a denied program where it
		// may run) is never allowed by a grant.
		strict := rule != nil && rule.strict
		if d != Deny && !strict && perr == nil && len(seen) <= maxCommandBytes && analyzeCommand(seen).err == nil {
			scope := Scope("bash", bashArgs(cmd))
			granted := p
			rule, err := ParseRule(scope)
			if err != nil {
				t.Fatalf("%q: scope %q does not parse: %v", cmd, scope, err)
			}
			granted.Allow = []Rule{rule}
			if g, _ := granted.Decide("bash", false, bashArgs(cmd)); g != Allow {
				t.Fatalf("%q: granting %q gives %v\n%s", cmd, scope, g, describe(seen))
			}
		}
	})
}

// oracleHeads are the programs an allowed command may call under the
// fuzz policy: the allowed ones, the harmless builtins, and the wrappers
// and declarations whose contents the analyzer judges.
var oracleHeads = []string{
	"go", "git", "npm", "cd", "pushd", "popd", "pwd", "true", "false", ":", "echo", "printf",
	"test", "[", "[[", "exit", "return", "shift", "env", "command", "builtin", "exec", "nohup",
	"nice", "timeout", "time", "stdbuf", "xargs", "eval", "sh", "bash", "dash",
	"export", "declare", "local", "readonly", "typeset",
}

// oracleRejects walks the tree with the parser's own walker and says why
// an allowed command should not have been, or "".
func oracleRejects(file *syntax.File) string {
	why := ""
	syntax.Walk(file, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			head, known := oracleLiteral(n.Args[0])
			switch {
			case !known:
			case head == "":
				why = "calls a program whose name is not literal"
			case !slices.Contains(oracleHeads, head):
				why = "calls " + head
			case head == "go" || head == "git" || head == "npm":
				sub := ""
				if len(n.Args) > 1 {
					sub, known = oracleLiteral(n.Args[1])
				}
				if want := map[string]string{"go": "test", "git": "status", "npm": "run"}[head]; known && sub != want {
					why = "calls " + head + " " + sub
				}
			}
		case *syntax.Redirect:
			target := ""
			if n.Word != nil {
				target, _ = oracleLiteral(n.Word)
			}
			switch n.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
				if !safeDevice(target) {
					why = "writes " + target
				}
			case syntax.DplOut:
				target, known := oracleLiteral(n.Word)
				if known && (target == "" || strings.Trim(target, "0123456789-") != "") {
					why = "writes " + target
				}
			}
		case *syntax.Assign:
			if n.Name != nil && slices.Contains([]string{"PATH", "LD_PRELOAD", "BASH_ENV", "IFS", "GOFLAGS", "GIT_SSH_COMMAND", "PS4"}, n.Name.Value) {
				why = "sets " + n.Name.Value
			}
		}
		return true
	})
	return why
}

// oracleLiteral is an independent, simpler quote removal: it returns the
// word's text and known=true when it is built from plain literals and
// quotes only, "" and known=true when it has expansions, and known=false
// for forms it does not decode ($'…', globs).
func oracleLiteral(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[{~") {
				return "", false
			}
			esc := false
			for _, r := range p.Value {
				if r == '\\' && !esc {
					esc = true
					continue
				}
				esc = false
				b.WriteRune(r)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", true
				}
				if strings.Contains(l.Value, `\`) {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", true
		}
	}
	return b.String(), true
}
