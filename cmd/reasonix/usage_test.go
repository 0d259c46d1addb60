package main

import (
	"flag"
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
