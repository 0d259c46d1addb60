package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the import path the project's packages share.
const module = "github.com/reasonix/reasonix"

// A layerRule forbids the packages matching from to import those matching
// not, unless the import matches except. Patterns are module-relative and
// read as go list reads them: "tools" is that package alone, "tools/..."
// is it and every package below it, "..." is every project package.
type layerRule struct {
	name   string // what the rule keeps true, as a violation reports it
	from   []string
	not    []string
	except []string
}

// layering is the dependency direction docs/ARCHITECTURE.md describes:
// cmd → {lsp, lsp/acp} → agent → {tools, graph}, with the front ends on top and
// self-registering packages linked in by cmd alone.
var layering = []layerRule{
	{
		name: "no package imports a command",
		from: []string{"..."},
		not:  []string{"cmd/..."},
	},
	{
		name: "agent sits below the language server and the commands",
		from: []string{"agent/..."},
		not:  []string{"lsp/...", "cmd/..."},
	},
	{
		name: "tools sits below agent and the language server",
		from: []string{"tools/..."},
		not:  []string{"agent/...", "lsp/..."},
	},
	{
		name:   "graph sits below agent and the language server; of lsp it uses only the shared wire types",
		from:   []string{"graph/..."},
		not:    []string{"agent/...", "lsp/..."},
		except: []string{"lsp/wire"},
	},
	{
		name:   "lsp/wire, shared by graph and lsp, imports no project package but the line differ",
		from:   []string{"lsp/wire/..."},
		not:    []string{"..."},
		except: []string{"tools/linediff"},
	},
	{
		name: "the line differ, shared by lsp/wire and the agent's rewind, imports no project package",
		from: []string{"tools/linediff/..."},
		not:  []string{"..."},
	},
	{
		name: "the language server does not import the ACP front end built beside it",
		from: []string{"lsp", "lsp/wire/...", "lsp/lsptest/..."},
		not:  []string{"lsp/acp/..."},
	},
	{
		name:   "the session store and compaction's planning sit below the agent: of the project they know only the provider's messages",
		from:   []string{"agent/store/...", "agent/compact/..."},
		not:    []string{"..."},
		except: []string{"agent/provider"},
	},
	{
		name: "parents never import the children that register themselves (cmd links them in)",
		from: []string{"tools"},
		not:  []string{"tools/builtin/..."},
	},
	{
		name: "parents never import the children that register themselves (cmd links them in)",
		from: []string{"agent/provider"},
		not:  []string{"agent/provider/openai/..."},
	},
}

// matches reports whether the module-relative package pkg matches
// pattern.
func matches(pattern, pkg string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func matchesAny(patterns []string, pkg string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return matches(p, pkg) })
}

// layerViolations checks every import of imports (package → the project
// packages it imports, module-relative) against rules. A rule that applies
// to no package is reported too: a rename must not leave it checking
// nothing.
func layerViolations(rules []layerRule, imports map[string][]string) []string {
	var out []string
	for _, r := range rules {
		applied := false
		for _, pkg := range slices.Sorted(maps.Keys(imports)) {
			if !matchesAny(r.from, pkg) {
				continue
			}
			applied = true
			for _, imp := range imports[pkg] {
				if matchesAny(r.not, imp) && !matchesAny(r.except, imp) {
					out = append(out, fmt.Sprintf("%s imports %s, but %s", pkg, imp, r.name))
				}
			}
		}
		if !applied {
			out = append(out, fmt.Sprintf("the rule %q applies to no package (%s); update it", r.name, strings.Join(r.from, ", ")))
		}
	}
	return out
}

// projectImports lists, for goos, each project package and the project
// packages its own files and its in-package tests import. External test
// packages (package x_test) are clients of the package and are left out.
func projectImports(t *testing.T, goos string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f",
		`{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{range .TestImports}} {{.}}{{end}}`, "./...")
	cmd.Dir = filepath.Join("..", "..")
	// The binary is built pure Go (CGO_ENABLED=0) for each platform.
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("GOOS=%s go list: %v\n%s", goos, err, stderr.String())
	}
	rel := func(p string) (string, bool) {
		if p == module {
			return "", true
		}
		return strings.CutPrefix(p, module+"/")
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := rel(fields[0])
		if !ok {
			continue
		}
		imports[pkg] = nil
		for _, imp := range fields[1:] {
			if r, ok := rel(imp); ok && !slices.Contains(imports[pkg], r) {
				imports[pkg] = append(imports[pkg], r)
			}
		}
	}
	return imports
}

// TestLayering keeps the dependency direction true: each project
// package's imports, on every platform the binary is built for, against
// the rules in layering.
func TestLayering(t *testing.T) {
	var order []string
	on := map[string][]string{} // violation → the platforms it occurs on
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, v := range layerViolations(layering, projectImports(t, goos)) {
			if on[v] == nil {
				order = append(order, v)
			}
			on[v] = append(on[v], goos)
		}
	}
	for _, v := range order {
		t.Errorf("%s (GOOS %s)", v, strings.Join(on[v], ", "))
	}
}

// TestLayeringCatches checks the checker: each forbidden edge is
// reported, naming the edge and the rule, and the allowed ones are not.
func TestLayeringCatches(t *testing.T) {
	cases := []struct {
		from, to string
		rule     string // "" when the import is allowed
	}{
		{"tools", "agent/provider", "tools sits below agent"},
		{"tools/mcp", "agent/config", "tools sits below agent"},
		{"tools/builtin", "lsp", "tools sits below agent"},
		{"tools/builtin", "lsp/wire", "tools sits below agent"},
		{"graph", "agent/config", "graph sits below agent"},
		{"graph", "lsp", "graph sits below agent"},
		{"graph", "lsp/wire", ""},
		{"lsp", "lsp/wire", ""},
		{"lsp/wire", "tools", "imports no project package"},
		{"lsp/wire", "tools/linediff", ""},
		{"tools/linediff", "tools", "imports no project package"},
		{"agent", "lsp", "agent sits below the language server"},
		{"agent/config", "cmd/reasonix", "no package imports a command"},
		{"lsp", "cmd/reasonix", "no package imports a command"},
		{"lsp", "lsp/acp", "does not import the ACP front end"},
		{"lsp/acp", "lsp", ""},
		{"lsp/acp", "agent", ""},
		{"agent", "lsp/acp", "agent sits below the language server"},
		{"tools", "tools/builtin", "parents never import the children"},
		{"agent/provider", "agent/provider/openai", "parents never import the children"},
		{"agent", "tools/builtin", ""},
		{"graph", "tools", ""},
		{"agent", "graph", ""},
		{"cmd/reasonix", "agent/provider/openai", ""},
		{"agent/store", "agent", "sit below the agent"},
		{"agent/store", "agent/config", "sit below the agent"},
		{"agent/compact", "agent", "sit below the agent"},
		{"agent/compact", "agent/store", "sit below the agent"},
		{"agent/store", "agent/provider", ""},
		{"agent/compact", "agent/provider", ""},
		{"agent", "agent/store", ""},
		{"agent", "agent/compact", ""},
	}
	for _, c := range cases {
		imports := map[string][]string{c.from: {c.to}}
		// Every rule applies to some package, as in the real module.
		for _, p := range []string{"agent", "tools", "graph", "agent/provider", "agent/store", "lsp/wire", "lsp", "tools/linediff"} {
			if _, ok := imports[p]; !ok {
				imports[p] = nil
			}
		}
		got := layerViolations(layering, imports)
		edge := c.from + " imports " + c.to + ", but "
		switch {
		case c.rule == "" && len(got) > 0:
			t.Errorf("%s → %s is allowed, but got %q", c.from, c.to, got)
		case c.rule != "" && (len(got) == 0 || !strings.HasPrefix(got[0], edge) || !strings.Contains(got[0], c.rule)):
			t.Errorf("%s → %s: got %q, want one violation naming the edge and %q", c.from, c.to, got, c.rule)
		}
	}
	if got := layerViolations(layering, map[string][]string{"lsp": nil}); len(got) == 0 {
		t.Error("rules that apply to no package were not reported")
	}
}
