package builtin

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// TestPreviewEditsMatchExecute: what a tool previews, from the files'
// current text as the editing tools read it (Env.CurrentText), is what
// its call then writes; a call that would fail previews nothing.
func TestPreviewEditsMatchExecute(t *testing.T) {
	const calc = "package calc\r\n\r\nfunc Add(a, b int) int { return a - b }\r\n"
	tests := []struct {
		name, tool, args string
		path             string // the file the preview shows; "" for none
		existed          bool
	}{
		{"write over", "write_file", `{"path":"calc.go","content":"package calc\n"}`, "calc.go", true},
		{"write new", "write_file", `{"path":"sub/new.go","content":"package sub\n"}`, "sub/new.go", false},
		{"edit, CRLF kept", "edit_file", `{"path":"calc.go","old_string":"a - b","new_string":"a + b"}`, "calc.go", true},
		{"edit that fails", "edit_file", `{"path":"calc.go","old_string":"nowhere","new_string":"x"}`, "", false},
		{"multi_edit in order", "multi_edit", `{"path":"calc.go","edits":[{"old_string":"Add","new_string":"Sum"},{"old_string":"func Sum","new_string":"// Sum adds.\nfunc Sum"}]}`, "calc.go", true},
		{"multi_edit creating", "multi_edit", `{"path":"n.go","edits":[{"old_string":"","new_string":"package n\n"},{"old_string":"n\n","new_string":"n // new\n"}]}`, "n.go", false},
		{"multi_edit that fails", "multi_edit", `{"path":"calc.go","edits":[{"old_string":"Add","new_string":"Sum"},{"old_string":"Add","new_string":"x"}]}`, "", false},
		{"apply_patch", "apply_patch", `{"patch":"--- a/calc.go\n+++ b/calc.go\n@@ -3 +3 @@\n-func Add(a, b int) int { return a - b }\n+func Add(a, b int) int { return a + b }\n"}`, "calc.go", true},
		{"apply_patch in two sections", "apply_patch", `{"patch":"--- a/calc.go\n+++ b/calc.go\n@@ -1 +1 @@\n-package calc\n+package sums\n--- a/calc.go\n+++ b/calc.go\n@@ -3 +3 @@\n-func Add(a, b int) int { return a - b }\n+func Add(a, b int) int { return a + b }\n"}`, "calc.go", true},
		{"apply_patch creating", "apply_patch", `{"patch":"--- /dev/null\n+++ b/n.go\n@@ -0,0 +1,2 @@\n+package n\n+// new\n"}`, "n.go", false},
		{"apply_patch renaming", "apply_patch", `{"patch":"diff --git a/calc.go b/sum.go\nrename from calc.go\nrename to sum.go\n"}`, "", false},
		{"apply_patch that fails", "apply_patch", `{"patch":"--- a/calc.go\n+++ b/calc.go\n@@ -1 +1 @@\n-package nowhere\n+package x\n"}`, "", false},
		{"multi_edit of a missing file", "multi_edit", `{"path":"gone.go","edits":[{"old_string":"a","new_string":"b"}]}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t, map[string]string{"calc.go": calc})
			tool := lookup(t, tt.tool)
			edits, err := tool.(tools.EditPreviewer).PreviewEdits(json.RawMessage(tt.args), env.CurrentText)
			if tt.path == "" {
				if err == nil && len(edits) > 0 {
					t.Fatalf("a failing call previews %+v", edits)
				}
				return
			}
			if err != nil || len(edits) != 1 {
				t.Fatalf("preview %+v, %v", edits, err)
			}
			e := edits[0]
			if e.Path != tt.path || e.Existed != tt.existed {
				t.Errorf("preview of %q (existed %v), want %q (existed %v)", e.Path, e.Existed, tt.path, tt.existed)
			}
			if tt.existed && e.Old != calc {
				t.Errorf("old text %q", e.Old)
			}
			if res := call(t, env, tt.tool, tt.args); res.IsError {
				t.Fatalf("the call fails: %s", res.Content)
			}
			if got := fileContent(t, env, tt.path); got != e.New {
				t.Errorf("the call wrote %q, the preview showed %q", got, e.New)
			}
		})
	}
}

// TestCurrentTextIsConfined: a preview reads what the tool could, and
// nothing the sandbox forbids reading.
func TestCurrentTextIsConfined(t *testing.T) {
	env := testEnv(t, map[string]string{"secret/key.txt": "hunter2\n", "open.txt": "hi\n", "bin.dat": "a\x00b"})
	env.Guard = sandbox.New([]string{env.Root}, []string{filepath.Join(env.Root, "secret")})
	for _, tt := range []struct {
		path            string
		text            string
		existed, failed bool
	}{
		{"open.txt", "hi\n", true, false},
		{"missing.txt", "", false, false},
		{"secret/key.txt", "", false, true},
		{"bin.dat", "", false, true},
		{"../outside.txt", "", false, true},
	} {
		text, existed, err := env.CurrentText(tt.path)
		if text != tt.text || existed != tt.existed || (err != nil) != tt.failed {
			t.Errorf("%s: %q, %v, %v", tt.path, text, existed, err)
		}
	}
	edits, err := lookup(t, "edit_file").(tools.EditPreviewer).PreviewEdits(json.RawMessage(`{"path":"secret/key.txt","old_string":"hunter2","new_string":"x"}`), env.CurrentText)
	if err == nil || len(edits) > 0 {
		t.Errorf("a forbidden file is previewed: %+v", edits)
	}
}
