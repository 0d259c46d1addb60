package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUsageMatchesFlags: every flag a command parses is in its synopsis,
// with a usage, and the synopsis names no flag the command lacks.
func TestUsageMatchesFlags(t *testing.T) {
	for _, c := range commands {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.flags(fs)
		var inSynopsis []string
		for _, f := range synopsisFlags(c.synopsis) {
			inSynopsis = append(inSynopsis, f.name)
			fl := fs.Lookup(f.name)
			if fl == nil {
				t.Errorf("reasonix %s: the synopsis names --%s, which it does not define", c.name, f.name)
				continue
			}
			_, isBool := fl.Value.(interface{ IsBoolFlag() bool })
			if hasArg := f.arg != ""; hasArg == isBool {
				t.Errorf("reasonix %s: --%s takes an argument: %v, the synopsis says %v", c.name, f.name, !isBool, hasArg)
			}
		}
		fs.VisitAll(func(fl *flag.Flag) {
			if !slices.Contains(inSynopsis, fl.Name) {
				t.Errorf("reasonix %s: --%s is missing from the synopsis %q", c.name, fl.Name, c.synopsis)
			}
			if fl.Usage == "" {
				t.Errorf("reasonix %s: --%s has no usage", c.name, fl.Name)
			}
		})
	}
}

// TestDocsShowTheSynopsis: the synopsis in docs/SPEC.md and in the
// package comment is the one the binary prints.
func TestDocsShowTheSynopsis(t *testing.T) {
	for _, file := range []string{filepath.Join("..", "..", "docs", "SPEC.md"), "main.go"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var documented []string
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimPrefix(strings.TrimPrefix(line, "//"), "\t")
			if rest, ok := strings.CutPrefix(line, "reasonix "); ok && (rest == "version" || strings.Contains(rest, "[")) {
				documented = append(documented, rest)
			}
		}
		var want []string
		for _, c := range commands {
			want = append(want, c.synopsis)
		}
		if !slices.Equal(documented, want) {
			t.Errorf("%s shows the synopsis\n  %s\nthe binary prints\n  %s", file, strings.Join(documented, "\n  "), strings.Join(want, "\n  "))
		}
	}
}

// TestUsageFlagValueErrors: a flag without its value, a number that is not
// one, a switch given something other than true or false, and an
// argument to a command that takes none are told in the project's words
// (the flag as --name, what it takes) with the command's usage, and exit
// 64; none of the flag package's own wording shows.
func TestUsageFlagValueErrors(t *testing.T) {
	dir := t.TempDir()
	type flagCase struct {
		args []string
		name string // the command
		want string
	}
	tests := []flagCase{
		{[]string{"version", "--x"}, "version", "reasonix version: unknown flag --x"},
		{[]string{"version", "extra"}, "version", `reasonix version: unexpected argument "extra"`},
		{[]string{"stats", "--days", "x"}, "stats", `reasonix stats: --days must be a whole number, not "x"`},
		{[]string{"stats", "--days=99999999999999999999"}, "stats", `reasonix stats: --days is out of range: "99999999999999999999"`},
		{[]string{"run", "---x", "hi"}, "run", `reasonix run: "---x" is not a flag`},
	}
	for _, c := range commands {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.flags(fs)
		cmd := strings.Fields(c.name)
		fs.VisitAll(func(fl *flag.Flag) {
			if b, ok := fl.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				tests = append(tests, flagCase{append(slices.Clone(cmd), "--"+fl.Name+"=maybe"), c.name,
					fmt.Sprintf(`reasonix %s: --%s is on or off: --%s, --%s=true or --%s=false, not "maybe"`, c.name, fl.Name, fl.Name, fl.Name, fl.Name)})
				return
			}
			tests = append(tests, flagCase{append(slices.Clone(cmd), "--"+fl.Name), c.name,
				fmt.Sprintf("reasonix %s: --%s needs a value (--%s ", c.name, fl.Name, fl.Name)})
			if g, ok := fl.Value.(flag.Getter); ok {
				if _, isInt := g.Get().(int); isInt {
					tests = append(tests, flagCase{append(slices.Clone(cmd), "--"+fl.Name, "ten"), c.name,
						fmt.Sprintf(`reasonix %s: --%s must be a whole number, not "ten"`, c.name, fl.Name)})
				}
			}
		})
	}
	for _, tt := range tests {
		r := runReasonix(t, dir, t.TempDir(), nil, tt.args...)
		if r.exit != exitUsage {
			t.Errorf("%q: exit %d, want %d; stderr:\n%s", tt.args, r.exit, exitUsage, r.stderr)
		}
		if !strings.HasPrefix(r.stderr, tt.want) {
			t.Errorf("%q: stderr does not start %q:\n%s", tt.args, tt.want, r.stderr)
		}
		if !strings.Contains(r.stderr, "sage: reasonix "+lookupCommand(tt.name).synopsis+"\n") {
			t.Errorf("%q: stderr lacks the usage of %s:\n%s", tt.args, tt.name, r.stderr)
		}
		for _, goWords := range []string{"parse error", "for flag -", "flag needs an argument", "invalid boolean value", "bad flag syntax", "Usage of"} {
			if strings.Contains(r.stderr, goWords) {
				t.Errorf("%q: stderr says %q, the flag package's words:\n%s", tt.args, goWords, r.stderr)
			}
		}
	}
}
