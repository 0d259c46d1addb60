package permission

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// partStrings renders the top-level parts of an analysis; a part prints
// its words quoted, ~ marking one that is not literal, and the commands a
// wrapper runs in braces.
func partStrings(a *analysis) []string {
	var out []string
	for _, p := range a.parts {
		out = append(out, p.String())
	}
	return out
}

func TestAnalyzeParts(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		// Lists, pipes and compound commands.
		{"go test ./...", []string{`"go" "test" "./..."`}},
		{"a && b || c; d & e | f", []string{`"a"`, `"b"`, `"c"`, `"d"`, `"e"`, `"f"`}},
		{"a\nb", []string{`"a"`, `"b"`}},
		{"(a); { b; }; if c; then d; elif e; then f; else g; fi", []string{`"a"`, `"b"`, `"c"`, `"d"`, `"e"`, `"f"`, `"g"`}},
		{"while a; do b; done; until c; do d; done", []string{`"a"`, `"b"`, `"c"`, `"d"`}},
		{"case $x in y) a;; esac", []string{`"a"`}},
		{"f() { a; }", []string{`"a"`}},
		{"for i in 1 2; do a $i; done", []string{`assign "i="`, `"a" ~"$i"`}},
		{"! a", []string{`"a"`}},

		// Substitutions anywhere are parts of their own.
		{"echo $(a) `b` <(c) >(d) ${x:-$(e)}", []string{`"a"`, `"b"`, `"c"`, `"d"`, `"e"`, `"echo" ~"$(a)" ~"$(b)" ~"<(c)" ~">(d)" ~"${x:-$(e)}"`}},
		{"echo $((1 + $(a)))", []string{`"a"`, `"echo" ~"$((1 + $(a)))"`}},
		{"cat <<EOF\n$(a)\nEOF", []string{`"cat"`, `"a"`, `redirect "<<" "EOF"`}},
		{"cat <<'EOF'\n$(a)\nEOF", []string{`"cat"`, `redirect "<<" "EOF"`}},
		{"go test <<< $(a)", []string{`"go" "test"`, `"a"`, `redirect "<<<" ~"$(a)"`}},

		// Quote removal.
		{`'r'm "a b" c\ d "x\"y" 'it'\''s'`, []string{`"rm" "a b" "c d" "x\"y" "it's"`}},
		{`$'\x72m' $'a\tb' $'\u00e9'`, []string{`"rm" "a\tb" "é"`, `"$\\x72m" "$a\\tb" "$\\u00e9"`}},
		{"r\\\nm", []string{`"rm"`}},
		{`"\$x" "\a"`, []string{`"$x" "\\a"`}},
		{"ls *.go {a,b} {1..3} ~/x $HOME a?b [ab] a[ x{} {a}", []string{`"ls" ~"*.go" ~"{a,b}" ~"{1..3}" ~"~/x" ~"$HOME" ~"a?b" ~"[ab]" "a[" "x{}" "{a}"`}},
		{`ls \*.go '*.go'`, []string{`"ls" "*.go" "*.go"`}},

		// Wrappers and the commands they run.
		{"env -i A=1 B=2 go test", []string{`"env" "-i" "A=1" "B=2" "go" "test" {assign "A=1"; assign "B=2"; "go" "test"}`}},
		{"nice -n 5 nohup timeout 10 go test", []string{`"nice" "-n" "5" "nohup" "timeout" "10" "go" "test" {"nohup" "timeout" "10" "go" "test" {"timeout" "10" "go" "test" {"go" "test"}}}`}},
		{"exec -a name rm x", []string{`"exec" "-a" "name" "rm" "x" {"rm" "x"}`}},
		{"echo a | xargs -0 -n1 go test", []string{`"echo" "a"`, `"xargs" "-0" "-n1" "go" "test" {"go" "test" …}`}},
		{"xargs -I{} go test {}", []string{`"xargs" "-I{}" "go" "test" "{}" {"go" "test" ~"{}"}`}},
		{"find . -name '*.go' -exec gofmt -l {} + -execdir rm {} ';'", []string{`"find" "." "-name" "*.go" "-exec" "gofmt" "-l" "{}" "+" "-execdir" "rm" "{}" ";" {"gofmt" "-l" ~"{}"; "rm" ~"{}"}`}},
		{"sudo -E -u root go test", []string{`"sudo" "-E" "-u" "root" "go" "test" {"go" "test"}`}},
		{"bash -c 'a; b' x y", []string{`"bash" "-c" "a; b" "x" "y" {"a"; "b"}`}},
		{"eval 'a | b'", []string{`"eval" "a | b" {"a"; "b"}`}},
		{"sh script.sh", []string{`"sh" "script.sh"`}},
		{"bash <<< 'rm x'", []string{`"bash" {"rm" "x"}`, `redirect "<<<" "rm x"`}},
		{"/usr/bin/env rm x", []string{`"/usr/bin/env" "rm" "x" {"rm" "x"}`}},

		// Redirections and assignments are parts.
		{"a > f 2>&1 >/dev/null < in >> g &> h 3<&0 >&-", []string{`"a"`, `redirect ">" "f"`, `redirect ">&" "1"`, `redirect ">" "/dev/null"`, `redirect "<" "in"`, `redirect ">>" "g"`, `redirect "&>" "h"`, `redirect "<&" "0"`, `redirect ">&" "-"`}},
		{"A=1 B=$x LD_PRELOAD=y c", []string{`assign "A=1"`, `assign ~"B=$x"`, `assign "LD_PRELOAD=y"`, `"c"`}},
		{"export A=1 PATH", []string{`"export" "A=1" "PATH"`, `assign "A=1"`}},
		{"> f", []string{`redirect ">" "f"`}},
	}
	for _, tt := range tests {
		a := analyzeCommand(tt.cmd)
		if a.err != nil {
			t.Errorf("%q: %v", tt.cmd, a.err)
			continue
		}
		if got := partStrings(a); !slices.Equal(got, tt.want) {
			t.Errorf("%q:\n got  %q\n want %q", tt.cmd, got, tt.want)
		}
	}
}

// TestAnalyzeJudgement checks what makes a part harmless, risky, or the
// whole command hazardous.
func TestAnalyzeJudgement(t *testing.T) {
	tests := []struct {
		cmd string
		// harmless is, per top-level part, whether it is covered without
		// a rule.
		harmless []bool
		hazard   bool
	}{
		{"cd x; pwd; true; false; :; echo a; printf %s a; test -f x; [ -f x ]; exit 0", []bool{true, true, true, true, true, true, true, true, true, true}, false},
		{"return 1; shift; pushd x; popd", []bool{true, true, true, true}, false},
		{"printf -v x %s a", []bool{false}, false},
		{"/bin/echo a", []bool{false}, false},
		{"go test > /dev/null 2>/dev/stderr >/dev/stdout 2>&1", []bool{false, true, true, true, true}, false},
		{"go test > out", []bool{false, false}, false},
		{"go test >& out", []bool{false, false}, false},
		{"go test < /dev/tcp/h/80", []bool{false, false}, false},
		{"CGO_ENABLED=0 GOOS=linux go build", []bool{true, true, false}, false},
		{"A=$(b) c", []bool{false, false, false}, false},
		{"PATH=/x; IFS=:; LD_LIBRARY_PATH=/x; DYLD_INSERT_LIBRARIES=x; GIT_SSH=x; npm_config_x=1; NPM_CONFIG_X=1", []bool{false, false, false, false, false, false, false}, false},
		{"GIT_AUTHOR_NAME=x git commit", []bool{true, false}, false},
		// The POSIX reading sees a[1]=x as a command.
		{"a[1]=x; a=(1 2)", []bool{true, true, false}, false},
		{"a[i]=x", []bool{false, false}, true},
		{"declare -x A=1; local B=2; readonly C=3; typeset -r D=4", []bool{true, true, true, true, true, true, true, true}, false},
		{"declare -n r=PATH", []bool{false, true}, false},
		{"local -i x=1", []bool{false, true}, false},
		{"export -f f", []bool{false}, false},
		{"command -v go; command go", []bool{true, false}, false},
		{"env", []bool{true}, false},
		{"[[ -f x ]]", []bool{true, true}, false},
		{"[[ 1 -eq 1 ]]", []bool{true, true}, false},
		{"(( 1 + 2 ))", []bool{true, false}, false},
		// Expansions that can run code held in a value.
		{"echo $((x))", []bool{true}, true},
		{"echo ${!x}", []bool{true}, true},
		{"echo ${!prefix*}", []bool{true}, false},
		{"echo ${a[i]}", []bool{true}, true},
		{"echo ${a[1]} ${a[@]} ${#a}", []bool{true}, false},
		{"echo ${x:1:n}", []bool{true}, true},
		{"echo ${x@P}", []bool{true}, true},
		{"echo ${x@Q}", []bool{true}, false},
		{"echo ${PATH:=/tmp}", []bool{true}, true},
		{"[[ $x -eq 1 ]]", []bool{false, false}, true},
		{"[[ -v a[$(b)] ]]", []bool{false, false, false}, true},
		{"test -v 'a[$(b)]'", []bool{false}, true},
		{"read 'a[$(b)]'", []bool{false}, true},
		{"(( i++ ))", []bool{false, false}, true},
		{"for ((i=0; i<3; i++)); do :; done", []bool{true}, true},
	}
	for _, tt := range tests {
		a := analyzeCommand(tt.cmd)
		if a.err != nil {
			t.Errorf("%q: %v", tt.cmd, a.err)
			continue
		}
		var got []bool
		for _, p := range a.parts {
			got = append(got, p.harmless)
		}
		if !slices.Equal(got, tt.harmless) || (len(a.hazards) > 0) != tt.hazard {
			t.Errorf("%q: harmless %v hazards %q, want %v hazard %v\n%s", tt.cmd, got, a.hazards, tt.harmless, tt.hazard, strings.Join(partStrings(a), "\n"))
		}
	}
}

func TestAnalyzeWrappersUnderstood(t *testing.T) {
	tests := []struct {
		cmd        string
		wrap       wrapKind
		understood bool
	}{
		{"env A=1 go test", transparent, true},
		{"env -S 'go test'", transparent, false},
		{"env $X go test", transparent, false},
		{"nice -5 go test", transparent, true},
		{"nice -n $N go test", transparent, false},
		{"timeout $T go test", transparent, false},
		{"timeout -k $K 5 go test", transparent, false},
		{"xargs -n $N go test", transparent, false},
		{"timeout --signal=KILL 5s go test", transparent, true},
		{"stdbuf -o L go test", transparent, true},
		{"xargs --process-slot-var=X go test", transparent, false},
		{"bash -c 'go test'", transparent, true},
		{"bash -o pipefail -ec 'go test'", transparent, true},
		{"bash -s -c 'go test'", transparent, false},
		{`bash -c "$X"`, transparent, false},
		{"bash -c 'go test )'", transparent, false},
		{"bash", transparent, false},
		{"eval go test", transparent, true},
		{"eval go $X", transparent, false},
		{"zsh -c 'go test'", opaque, true},
		{"sudo go test", opaque, true},
		{"./env go test", opaque, true},
		{"find . -exec go test {} +", opaque, true},
		{"go test", notWrapper, false},
		{"setsid -w go test", opaque, true},
		{"taskset -c 0 go test", opaque, true},
		{"taskset -c $C go test", opaque, false},
		{"flock -w 5 f go test", opaque, true},
		{"flock -w $T f go test", opaque, false},
		{"ionice -p 1", opaque, true},
		{"watch -n 1 'go test'", opaque, true},
		{"parallel go test ::: a", opaque, false},
		{"busybox --install /bin", opaque, false},
		{"script -c 'go test' /dev/null", opaque, true},
		{"script", opaque, false},
	}
	for _, tt := range tests {
		a := analyzeCommand(tt.cmd)
		if a.err != nil || len(a.parts) == 0 {
			t.Errorf("%q: %v", tt.cmd, a.err)
			continue
		}
		p := a.parts[0]
		if p.wrap != tt.wrap || p.understood != tt.understood {
			t.Errorf("%q: wrap %v understood %v, want %v %v (%s)", tt.cmd, p.wrap, p.understood, tt.wrap, tt.understood, p)
		}
	}
}

func TestAnalyzeUnparseable(t *testing.T) {
	tests := []struct {
		cmd string
		// found is a command the best-effort reading must still see.
		found string
	}{
		{"go test )", "go test"},
		{"rm -rf x 'y", "rm -rf x"},
		{"a $(", "a"},
		{"x\nrm -rf y )", "rm -rf y"},
		{"bash -c 'curl evil", "curl evil"},
		{"if true; then curl evil", "curl evil"},
		{"[[ a || curl evil ]]", "curl evil ]]"},
		{"FOO=1 curl evil (", "curl evil"},
		{"a \x00", "a \x00"},
		{strings.Repeat("a;", maxCommandBytes/2) + "curl evil", "curl evil"},
	}
	for _, tt := range tests {
		a := analyzeCommand(tt.cmd)
		if a.err == nil {
			t.Errorf("%.40q parsed", tt.cmd)
			continue
		}
		if a.canon != "" {
			t.Errorf("%.40q: unparseable with a canonical form", tt.cmd)
		}
		found := !a.walk(func(p *part) bool { return strings.Join(p.argv(), " ") != tt.found })
		if !found {
			t.Errorf("%.40q: best effort does not see %q", tt.cmd, tt.found)
		}
	}
}

func TestAnalyzeBudget(t *testing.T) {
	// eval eval … and bash -c nesting stop at the depth limit: the inner
	// command is not understood, so nothing is allowed, yet it parses.
	cmd := "go test"
	for range maxShellDepth + 2 {
		cmd = "eval " + cmd
	}
	if got, _ := attackPolicy(t).Decide("bash", false, bashArgs(cmd)); got != Ask {
		t.Errorf("deep eval: %v", got)
	}
	// Within the limit it is understood.
	if got, _ := attackPolicy(t).Decide("bash", false, bashArgs("eval eval eval go test")); got != Allow {
		t.Errorf("shallow eval: %v", got)
	}
	// Too many parts is unparseable.
	if a := analyzeCommand(strings.Repeat("a|", maxParts) + "a"); a.err == nil {
		t.Error("no part budget")
	}
}

func TestANSIC(t *testing.T) {
	tests := map[string]string{
		`a\nb`:       "a\nb",
		`\x72m`:      "rm",
		`\162m`:      "rm",
		`\u0072m`:    "rm",
		`\U0001F600`: "😀",
		`\cA`:        "\x01",
		`\'\"\\\?`:   `'"\?`,
		`\q`:         `\q`,
		`a\0b`:       "a",
		`\x`:         `\x`,
		`tail\`:      `tail\`,
	}
	for in, want := range tests {
		if got := ansiC(in); got != want {
			t.Errorf("ansiC(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOptRead(t *testing.T) {
	lit := func(ss ...string) []word {
		var ws []word
		for _, s := range ss {
			ws = append(ws, word{text: s, lit: true})
		}
		return ws
	}
	stop := newOpts("+abu:m::", "unset: mount:: all")
	perm := newOpts("ac:", "command: all")
	tests := []struct {
		spec *optSpec
		ws   []word
		// opts are the options found, name=value; operands their indexes.
		opts     string
		operands []int
		ok       bool
	}{
		{stop, lit("x", "-ab", "c"), "a b", []int{2}, true},
		{stop, lit("x", "-u", "HOME", "c"), "u=HOME", []int{3}, true},
		{stop, lit("x", "-uHOME", "c"), "u=HOME", []int{2}, true},
		{stop, lit("x", "-au", "HOME", "c"), "a u=HOME", []int{3}, true},
		{stop, lit("x", "--", "-a"), "", []int{2}, true},
		{stop, lit("x", "--unset=A", "--unset", "B", "c"), "unset=A unset=B", []int{4}, true},
		// A unique prefix of a long option is that option.
		{stop, lit("x", "--un", "B", "c"), "unset=B", []int{3}, true},
		// An optional argument is only ever attached.
		{stop, lit("x", "-m", "c"), "m", []int{2}, true},
		{stop, lit("x", "-mfile", "c"), "m=file", []int{2}, true},
		{stop, lit("x", "--mount", "c"), "mount", []int{2}, true},
		{stop, lit("x", "--mount=f", "c"), "mount=f", []int{2}, true},
		// The first operand ends the options: what follows is the command's.
		{stop, lit("x", "c", "-a"), "", []int{1, 2}, true},
		{stop, lit("x", "-z", "c"), "", nil, false},
		{stop, lit("x", "--zzz", "c"), "", nil, false},
		{stop, lit("x", "--all=1", "c"), "", nil, false},
		{stop, []word{{text: "x", lit: true}, {text: "$a"}}, "", nil, false},
		{stop, []word{{text: "x", lit: true}, {text: "-u", lit: true}, {text: "$a"}}, "", nil, false},
		{stop, lit("x", "-u"), "", nil, false},
		// Without "+", options are read among the operands, as GNU's
		// getopt permutes them.
		{perm, lit("x", "f", "-c", "rm x", "g"), "c=rm x", []int{1, 4}, true},
		{perm, lit("x", "f", "--", "-a"), "", []int{1, 3}, true},
	}
	for _, tt := range tests {
		sc := tt.spec.read(tt.ws, 1)
		var got []string
		for _, o := range sc.opts {
			if o.hasValue {
				got = append(got, o.name+"="+o.value)
			} else {
				got = append(got, o.name)
			}
		}
		if sc.ok != tt.ok || tt.ok && (strings.Join(got, " ") != tt.opts || !slices.Equal(sc.operands, tt.operands)) {
			t.Errorf("read(%v) = %q %v ok %v, want %q %v ok %v", tt.ws, got, sc.operands, sc.ok, tt.opts, tt.operands, tt.ok)
		}
	}
}

func TestScopeFollowsParser(t *testing.T) {
	tests := map[string]string{
		"go test ./...":              "Bash(go test:*)",
		"npm run build":              "Bash(npm run:*)",
		"ls -la":                     "Bash(ls:*)",
		"  make  ":                   "Bash(make:*)",
		"'go' test":                  "Bash(go test:*)",
		"CGO_ENABLED=0 go test":      "Bash(go test:*)",
		"go test 2>&1":               "Bash(go test:*)",
		"go test > out.txt":          "Bash(go test > out.txt)",
		"go test && go vet":          "Bash(go test && go vet)",
		"go test $(x)":               "Bash(go test $(x))",
		"LD_PRELOAD=x go test":       "Bash(LD_PRELOAD=x go test)",
		"env go test":                "Bash(env go test)",
		"bash -c 'go test'":          "Bash(bash -c 'go test')",
		"python3 x.py":               "Bash(python3 x.py)",
		"$X test":                    "Bash($X test)",
		"go test )":                  "Bash(go test ))",
		"go test $((x))":             "Bash(go test $((x)))",
		"./gradlew test":             "Bash(./gradlew test:*)",
		"'my prog' x":                "Bash('my prog' x)",
		"go \"$X\"":                  "Bash(go:*)",
		"cd x":                       "Bash(cd x:*)",
		"git -c core.pager=less log": "Bash(git:*)",
	}
	for cmd, want := range tests {
		if got := Scope("bash", args("command", cmd)); got != want {
			t.Errorf("Scope(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestScopeGrantCovers checks that granting the offered scope allows the
// command it was offered for, and a prefix grant does not allow more than
// the command's own kind.
func TestScopeGrantCovers(t *testing.T) {
	for _, cmd := range []string{
		"go test ./...", "go test > out.txt", "go test && go vet", "make && rm x",
		"LD_PRELOAD=x go test", "bash -c 'go test'", "echo $((x))", "f() { a; }; f",
		"cat <<EOF\nhi\nEOF", "go test # comment",
	} {
		scope := Scope("bash", args("command", cmd))
		p, err := NewPolicy("ask", []string{scope}, nil, nil)
		if err != nil {
			t.Fatalf("%q: scope %q: %v", cmd, scope, err)
		}
		if got, _ := p.Decide("bash", false, args("command", cmd)); got != Allow {
			t.Errorf("grant %q does not allow %q: %v", scope, cmd, got)
		}
		if got, _ := p.Decide("bash", false, args("command", cmd+"\npython3 evil.py")); got == Allow {
			t.Errorf("grant %q allows %q plus more", scope, cmd)
		}
	}
}

func BenchmarkDecideBash(b *testing.B) {
	p, _ := NewPolicy("ask",
		[]string{"Bash(go test:*)", "Bash(git status:*)", "Bash(npm run build)"},
		nil, []string{"Bash(rm -rf*)", "Bash(curl:*)", "Bash(git push:*)"})
	for _, bc := range []struct{ name, cmd string }{
		{"short", "go test ./... -run TestX 2>&1"},
		{"compound", "cd sub && CGO_ENABLED=0 go test ./... | tee out; echo $(git status)"},
		{"64KiB", strings.Repeat("go test ./...;", maxCommandBytes/15)},
	} {
		args, _ := json.Marshal(map[string]string{"command": bc.cmd})
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				p.Decide("bash", false, args)
			}
		})
	}
}
