package permission_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/reasonix/reasonix/tools"
	_ "github.com/reasonix/reasonix/tools/builtin"
	"github.com/reasonix/reasonix/tools/permission"
)

const writeRoot = "/work/proj"

// A writeCall builds the arguments of a file-changing call that touches
// the path p (spelt as the model spells it).
type writeCall struct {
	name string
	tool string
	args func(p string) any
}

func patchArgs(patch string) any { return map[string]string{"patch": patch} }

// writeCalls is every way a built-in tool changes a file; every tool of
// the write family has its cases here (TestWriteCallsCoverWriteTools).
var writeCalls = []writeCall{
	{"write_file", "write_file", func(p string) any { return map[string]string{"path": p, "content": "x"} }},
	{"edit_file", "edit_file", func(p string) any { return map[string]string{"path": p, "old_string": "a", "new_string": "b"} }},
	{"multi_edit", "multi_edit", func(p string) any {
		return map[string]any{"path": p, "edits": []map[string]string{{"old_string": "a", "new_string": "b"}}}
	}},
	{"move_file from", "move_file", func(p string) any { return map[string]string{"source": p, "destination": "docs/moved"} }},
	{"move_file to", "move_file", func(p string) any { return map[string]string{"source": "docs/a.md", "destination": p} }},
	{"code_action", "code_action", func(p string) any {
		return map[string]any{"path": p, "line": 1, "apply": "Organize Imports"}
	}},
	{"format", "format", func(p string) any { return map[string]string{"path": p} }},
	{"apply_patch modify", "apply_patch", func(p string) any {
		return patchArgs(fmt.Sprintf("--- %s\n+++ %s\n@@ -1 +1 @@\n-a\n+b\n", p, p))
	}},
	{"apply_patch create", "apply_patch", func(p string) any {
		return patchArgs(fmt.Sprintf("--- /dev/null\n+++ %s\n@@ -0,0 +1 @@\n+b\n", p))
	}},
	{"apply_patch delete", "apply_patch", func(p string) any {
		return patchArgs(fmt.Sprintf("--- %s\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", p))
	}},
	{"apply_patch rename from", "apply_patch", func(p string) any {
		return patchArgs(fmt.Sprintf("diff --git a/%s b/docs/moved\nrename from %s\nrename to docs/moved\n", p, p))
	}},
	{"apply_patch rename to", "apply_patch", func(p string) any {
		return patchArgs(fmt.Sprintf("diff --git a/docs/a.md b/%s\nrename from docs/a.md\nrename to %s\n", p, p))
	}},
	{"apply_patch second file", "apply_patch", func(p string) any {
		return patchArgs(fmt.Sprintf("--- docs/a.md\n+++ docs/a.md\n@@ -1 +1 @@\n-a\n+b\n--- %s\n+++ %s\n@@ -1 +1 @@\n-a\n+b\n", p, p))
	}},
}

// A pathTrick spells secrets/k.pem some other way. real, when set, is
// where a symbolic link makes the path land, which the agent hands the
// policy as a second spelling.
type pathTrick struct {
	name, path, real string
}

var pathTricks = []pathTrick{
	{"plain", "secrets/k.pem", ""},
	{"dot slash", "./secrets/k.pem", ""},
	{"dot-dot", "docs/../secrets/k.pem", ""},
	{"double slash", "secrets//k.pem", ""},
	{"trailing dot", "secrets/./k.pem", ""},
	{"absolute", writeRoot + "/secrets/k.pem", ""},
	{"absolute dot-dot", writeRoot + "/docs/../secrets/k.pem", ""},
	{"out and back in", "../proj/secrets/k.pem", ""},
	{"upper case", "SECRETS/k.pem", ""},
	{"link to the directory", "s/k.pem", writeRoot + "/secrets/k.pem"},
	{"link to the file", "docs/innocent.txt", writeRoot + "/secrets/k.pem"},
}

// declared is what the agent hands the gate for a call: every path the
// tool declares, absolute, plus where a link makes it land.
func declared(t *testing.T, tool string, args json.RawMessage, trick pathTrick) []string {
	t.Helper()
	b, _ := tools.Builtin(tool)
	fc, _ := b.(tools.FileChanger)
	if fc == nil {
		t.Fatalf("%s does not declare the paths it changes", tool)
	}
	paths, err := fc.ChangedPaths(args)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	var out []string
	for _, p := range paths {
		out = append(out, p)
		if trick.real != "" && p == trick.path {
			out = append(out, trick.real)
		}
	}
	return out
}

// TestWriteCallsCoverWriteTools: the write tools are those that say so
// (tools.Describer), and the rules below are tried on each of them.
func TestWriteCallsCoverWriteTools(t *testing.T) {
	n := 0
	for _, b := range tools.Builtins() {
		tr, _ := tools.Describe(b, nil)
		if tr.Family != permission.FamilyWrite {
			continue
		}
		n++
		if !slices.ContainsFunc(writeCalls, func(c writeCall) bool { return c.tool == b.Name() }) {
			t.Errorf("%s changes files but writeCalls has no case of it", b.Name())
		}
	}
	if n == 0 {
		t.Fatal("no write tools")
	}
}

func marshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWriteDenyRules: under mode = "allow", every deny rule form refuses
// every built-in write tool touching the file, however its path is spelt.
func TestWriteDenyRules(t *testing.T) {
	rules := []string{
		"Edit(secrets/**)",
		"Edit(secrets/k.pem)",
		"Write(secrets/**)",
		"Write(secrets/*.pem)",
		"Edit(*.pem)",
		"Edit(" + writeRoot + "/secrets/**)",
		"Edit(" + writeRoot + "/secrets/k.pem)",
		"Edit",
	}
	n := 0
	for _, rule := range rules {
		p, err := permission.NewPolicy("allow", nil, nil, []string{rule})
		if err != nil {
			t.Fatal(err)
		}
		p.Root = writeRoot
		for _, c := range writeCalls {
			for _, trick := range pathTricks {
				args := marshal(t, c.args(trick.path))
				r := permission.Request{Tool: c.tool, Args: args, Paths: declared(t, c.tool, args, trick)}
				n++
				if d, _ := p.Judge(r); d != permission.Deny {
					t.Errorf("deny %s: %s via %s (%s) = %v, want deny\npaths %q", rule, c.name, trick.name, trick.path, d, r.Paths)
				}
			}
		}
	}
	if n < 700 {
		t.Fatalf("only %d cases", n)
	}
}

// TestWriteAllowRules: an allow rule lets a call run only when it covers
// every path the call touches, in every spelling.
func TestWriteAllowRules(t *testing.T) {
	p, err := permission.NewPolicy("ask", []string{"Edit(docs/**)"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Root = writeRoot
	tests := []struct {
		name  string
		tool  string
		args  any
		real  map[string]string // a declared path → where a link makes it land
		allow bool
	}{
		{"inside", "write_file", map[string]string{"path": "docs/b.md", "content": "x"}, nil, true},
		{"absolute inside", "write_file", map[string]string{"path": writeRoot + "/docs/b.md", "content": "x"}, nil, true},
		{"out and back in", "edit_file", map[string]string{"path": "../proj/docs/b.md", "old_string": "a", "new_string": "b"}, nil, true},
		{"dot-dot out", "write_file", map[string]string{"path": "docs/../src/x.go", "content": "x"}, nil, false},
		{"link out", "write_file", map[string]string{"path": "docs/l/x.go", "content": "x"}, map[string]string{"docs/l/x.go": writeRoot + "/src/x.go"}, false},
		{"move within", "move_file", map[string]string{"source": "docs/a.md", "destination": "docs/b.md"}, nil, true},
		{"move out", "move_file", map[string]string{"source": "docs/a.md", "destination": "src/a.md"}, nil, false},
		{"move in", "move_file", map[string]string{"source": "src/a.md", "destination": "docs/a.md"}, nil, false},
		{"patch inside", "apply_patch", patchArgs("--- docs/a.md\n+++ docs/a.md\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ docs/new.md\n@@ -0,0 +1 @@\n+n\n"), nil, true},
		{"patch also outside", "apply_patch", patchArgs("--- docs/a.md\n+++ docs/a.md\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ src/new.go\n@@ -0,0 +1 @@\n+n\n"), nil, false},
		{"patch renames out", "apply_patch", patchArgs("diff --git a/docs/a.md b/src/a.md\nrename from docs/a.md\nrename to src/a.md\n"), nil, false},
		{"patch deletes outside", "apply_patch", patchArgs("--- src/a.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n"), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := marshal(t, tt.args)
			var paths []string
			for _, d := range declared(t, tt.tool, args, pathTrick{}) {
				paths = append(paths, d)
				if real, ok := tt.real[d]; ok {
					paths = append(paths, real)
				}
			}
			d, _ := p.Judge(permission.Request{Tool: tt.tool, Args: args, Paths: paths})
			if (d == permission.Allow) != tt.allow {
				t.Errorf("%s %s = %v, want allowed %v", tt.tool, args, d, tt.allow)
			}
		})
	}
}

// TestDeclaredPathsOverArguments: a call that declares its paths is judged
// on them alone, so an argument that merely looks like a path neither
// satisfies an allow rule nor escapes a deny rule.
func TestDeclaredPathsOverArguments(t *testing.T) {
	p, err := permission.NewPolicy("ask", []string{"Edit(docs/**)"}, nil, []string{"Edit(secrets/**)"})
	if err != nil {
		t.Fatal(err)
	}
	p.Root = writeRoot
	args := json.RawMessage(`{"path": "docs/a.md"}`)
	if d, _ := p.Judge(permission.Request{Tool: "write_file", Args: args, Paths: []string{"secrets/k"}}); d != permission.Deny {
		t.Errorf("declared secrets/k = %v, want deny", d)
	}
	// Edit rules cover any tool's declared changes.
	if d, _ := p.Judge(permission.Request{Tool: "rename_symbol", Paths: []string{writeRoot + "/secrets/k.go"}}); d != permission.Deny {
		t.Errorf("rename_symbol's change = %v, want deny", d)
	}
	// A declared call with no path matches no path rule.
	if d, _ := p.Judge(permission.Request{Tool: "write_file", Args: args, Paths: []string{}}); d != permission.Ask {
		t.Errorf("no paths = %v, want ask", d)
	}
}
