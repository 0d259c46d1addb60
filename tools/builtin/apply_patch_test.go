package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
)

// numberedLines returns lines "line 1\n" … "line n\n".
func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

// patchArgs wraps a patch as apply_patch's arguments.
func patchArgs(patch string) map[string]string { return map[string]string{"patch": patch} }

// checkPatchedFiles fails the test unless every file in want has that content
// under env's root and every path in gone is absent.
func checkPatchedFiles(t *testing.T, env *tools.Env, want map[string]string, gone []string) {
	t.Helper()
	for name, content := range want {
		if got := fileContent(t, env, name); got != content {
			t.Errorf("%s = %q, want %q", name, got, content)
		}
	}
	for _, name := range gone {
		if _, err := os.Lstat(filepath.Join(env.Root, filepath.FromSlash(name))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still exists (err %v)", name, err)
		}
	}
}

func TestApplyPatch(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		patch  string
		want   map[string]string
		gone   []string
		report string
	}{
		{
			name:  "offset drift",
			files: map[string]string{"a.txt": numberedLines(20)},
			// The hunk says line 3, but its lines are at 10-12.
			patch:  "--- a/a.txt\n+++ b/a.txt\n@@ -3,3 +3,3 @@\n line 10\n-line 11\n+eleven\n line 12\n",
			want:   map[string]string{"a.txt": strings.Replace(numberedLines(20), "line 11\n", "eleven\n", 1)},
			report: "M a.txt (+1 -1)\n",
		},
		{
			name:  "multi hunk",
			files: map[string]string{"a.txt": numberedLines(30)},
			patch: `--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,4 @@
+first
 line 1
 line 2
 line 3
@@ -14,7 +15,6 @@
 line 14
 line 15
 line 16
-line 17
 line 18
 line 19
 line 20
@@ -28,3 +28,3 @@
 line 28
-line 29
+twenty-nine
 line 30
`,
			want:   map[string]string{"a.txt": "first\n" + strings.NewReplacer("line 17\n", "", "line 29\n", "twenty-nine\n").Replace(numberedLines(30))},
			report: "M a.txt (+2 -2)\n",
		},
		{
			name:  "multi file with text before the first header",
			files: map[string]string{"a.go": "package a\n", "dir/b.go": "package b\n\nvar x = 1\n"},
			patch: `Here is the change:

diff --git a/a.go b/a.go
index 1111111..2222222 100644
--- a/a.go
+++ b/a.go
@@ -1 +1,3 @@
 package a
+
+var y = 2
diff --git a/dir/b.go b/dir/b.go
--- a/dir/b.go
+++ b/dir/b.go
@@ -1,3 +1,3 @@
 package b
 
-var x = 1
+var x = 10
`,
			want:   map[string]string{"a.go": "package a\n\nvar y = 2\n", "dir/b.go": "package b\n\nvar x = 10\n"},
			report: "M a.go (+2 -0)\nM dir/b.go (+1 -1)\n",
		},
		{
			name:   "create",
			patch:  "--- /dev/null\n+++ b/new/dir/c.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n",
			want:   map[string]string{"new/dir/c.txt": "hello\nworld\n"},
			report: "A new/dir/c.txt\n",
		},
		{
			name:   "create empty with git headers only",
			patch:  "diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n",
			want:   map[string]string{"empty": ""},
			report: "A empty\n",
		},
		{
			name:   "delete",
			files:  map[string]string{"old.txt": "a\nb\n", "keep.txt": "k\n"},
			patch:  "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
			want:   map[string]string{"keep.txt": "k\n"},
			gone:   []string{"old.txt"},
			report: "D old.txt\n",
		},
		{
			name:   "delete without hunks",
			files:  map[string]string{"old.txt": "a\nb\n"},
			patch:  "--- a/old.txt\n+++ /dev/null\n",
			gone:   []string{"old.txt"},
			report: "D old.txt\n",
		},
		{
			name:   "rename",
			files:  map[string]string{"old.txt": "same\n"},
			patch:  "diff --git a/old.txt b/sub/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to sub/new.txt\n",
			want:   map[string]string{"sub/new.txt": "same\n"},
			gone:   []string{"old.txt"},
			report: "R old.txt -> sub/new.txt\n",
		},
		{
			name:  "rename with edit",
			files: map[string]string{"old.txt": "one\ntwo\nthree\n"},
			patch: `diff --git a/old.txt b/new.txt
similarity index 80%
rename from old.txt
rename to new.txt
index 1111111..2222222 100644
--- a/old.txt
+++ b/new.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
`,
			want:   map[string]string{"new.txt": "one\nTWO\nthree\n"},
			gone:   []string{"old.txt"},
			report: "R old.txt -> new.txt (+1 -1)\n",
		},
		{
			name:   "copy",
			files:  map[string]string{"a.txt": "x\n"},
			patch:  "diff --git a/a.txt b/b.txt\nsimilarity index 100%\ncopy from a.txt\ncopy to b.txt\n",
			want:   map[string]string{"a.txt": "x\n", "b.txt": "x\n"},
			report: "C a.txt -> b.txt\n",
		},
		{
			name:  "CRLF preserved",
			files: map[string]string{"w.txt": "one\r\ntwo\r\nthree\r\n"},
			// An LF patch against a CRLF file: added lines get CRLF.
			patch:  "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n+2.5\n three\n",
			want:   map[string]string{"w.txt": "one\r\n2\r\n2.5\r\nthree\r\n"},
			report: "M w.txt (+2 -1)\n",
		},
		{
			name:   "CRLF patch against CRLF file",
			files:  map[string]string{"w.txt": "one\r\ntwo\r\n"},
			patch:  "--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,2 +1,2 @@\r\n one\r\n-two\r\n+TWO\r\n",
			want:   map[string]string{"w.txt": "one\r\nTWO\r\n"},
			report: "M w.txt (+1 -1)\n",
		},
		{
			name:   "add newline at EOF",
			files:  map[string]string{"n.txt": "a\nb"},
			patch:  "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
			want:   map[string]string{"n.txt": "a\nb\n"},
			report: "M n.txt (+1 -1)\n",
		},
		{
			name:   "remove newline at EOF",
			files:  map[string]string{"n.txt": "a\nb\n"},
			patch:  "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n",
			want:   map[string]string{"n.txt": "a\nb"},
			report: "M n.txt (+1 -1)\n",
		},
		{
			name:  "missing newline at EOF kept without markers",
			files: map[string]string{"n.txt": "a\nb"},
			patch: "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,3 @@\n a\n b\n+c\n",
			want:  map[string]string{"n.txt": "a\nb\nc"},
		},
		{
			name:   "create without newline at EOF",
			patch:  "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+only\n\\ No newline at end of file\n",
			want:   map[string]string{"n.txt": "only"},
			report: "A n.txt\n",
		},
		{
			name:  "counts too small",
			files: map[string]string{"a.txt": numberedLines(5)},
			patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+two\n line 3\n-line 4\n+four\n line 5\n",
			want:  map[string]string{"a.txt": "line 1\ntwo\nline 3\nfour\nline 5\n"},
		},
		{
			name:  "counts too large",
			files: map[string]string{"a.txt": numberedLines(5), "b.txt": "b\n"},
			patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,9 +1,9 @@\n line 1\n-line 2\n+two\n line 3\n--- a/b.txt\n+++ b/b.txt\n@@ -1,1 +1,1 @@\n-b\n+B\n",
			want:  map[string]string{"a.txt": "line 1\ntwo\nline 3\nline 4\nline 5\n", "b.txt": "B\n"},
		},
		{
			name:  "hunk header without numbers",
			files: map[string]string{"a.txt": numberedLines(5)},
			patch: "--- a/a.txt\n+++ b/a.txt\n@@\n line 3\n-line 4\n+four\n",
			want:  map[string]string{"a.txt": "line 1\nline 2\nline 3\nfour\nline 5\n"},
		},
		{
			name:  "blank context line without its space",
			files: map[string]string{"a.go": "package a\n\nfunc f() {}\n"},
			patch: "--- a.go\n+++ a.go\n@@ -1,3 +1,3 @@\n package a\n\n-func f() {}\n+func g() {}\n",
			want:  map[string]string{"a.go": "package a\n\nfunc g() {}\n"},
		},
		{
			name:  "timestamps and no prefixes",
			files: map[string]string{"a.txt": "x\ny\n"},
			patch: "--- a.txt\t2024-05-01 10:00:00.000000000 +0200\n+++ a.txt\t2024-05-01 10:05:00.000000000 +0200\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n",
			want:  map[string]string{"a.txt": "x\nz\n"},
		},
		{
			name:  "old name that exists, new name that does not",
			files: map[string]string{"a.txt": "x\n"},
			patch: "--- a.txt\n+++ a.txt.new\n@@ -1 +1 @@\n-x\n+y\n",
			want:  map[string]string{"a.txt": "y\n"},
		},
		{
			name:  "trailing whitespace differences tolerated",
			files: map[string]string{"a.txt": "a  \nb\t\nc\n"},
			patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
			want:  map[string]string{"a.txt": "a  \nB\nc\n"},
		},
		{
			name:   "two sections for one file",
			files:  map[string]string{"a.txt": numberedLines(10)},
			patch:  "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-line 1\n+one\n line 2\n--- a/a.txt\n+++ b/a.txt\n@@ -9,2 +9,2 @@\n line 9\n-line 10\n+ten\n",
			want:   map[string]string{"a.txt": strings.NewReplacer("line 1\n", "one\n", "line 10\n", "ten\n").Replace(numberedLines(10))},
			report: "M a.txt (+2 -2)\n",
		},
		{
			name:  "fenced with wrong counts",
			files: map[string]string{"a.txt": "a\nb\n"},
			patch: "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n```\n",
			want:  map[string]string{"a.txt": "a\nB\n"},
		},
		{
			name:   "format-patch email",
			files:  map[string]string{"a.txt": "x\n"},
			patch:  "From 123 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] change\n\n---\n a.txt | 2 +-\n 1 file changed\n\ndiff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n-- \n2.39.5\n\n",
			want:   map[string]string{"a.txt": "y\n"},
			report: "M a.txt (+1 -1)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t, tt.files)
			res := call(t, env, "apply_patch", patchArgs(tt.patch))
			if res.IsError {
				t.Fatalf("unexpected error: %s", res.Content)
			}
			checkPatchedFiles(t, env, tt.want, tt.gone)
			if tt.report != "" && reportLines(res.Content) != tt.report {
				t.Errorf("report = %q, want %q", res.Content, tt.report)
			}
		})
	}
}

func TestApplyPatchResult(t *testing.T) {
	env := testEnv(t, map[string]string{"m.txt": "m\n", "d.txt": "d\n", "r.txt": "r\n"})
	patch := `--- a/m.txt
+++ b/m.txt
@@ -1 +1,2 @@
 m
+m2
--- /dev/null
+++ b/a.txt
@@ -0,0 +1 @@
+a
--- a/d.txt
+++ /dev/null
diff --git a/r.txt b/r2.txt
rename from r.txt
rename to r2.txt
`
	res := call(t, env, "apply_patch", patchArgs(patch))
	if res.IsError {
		t.Fatal(res.Content)
	}
	if want := "Applied the patch: 4 files changed.\nM m.txt (+1 -0)\nA a.txt\nD d.txt\nR r.txt -> r2.txt\n"; res.Content != want {
		t.Errorf("content = %q, want %q", res.Content, want)
	}
	if res.Summary != "4 files changed" {
		t.Errorf("summary = %q", res.Summary)
	}
	var want []string
	for _, n := range []string{"m.txt", "a.txt", "d.txt", "r.txt", "r2.txt"} {
		want = append(want, filepath.Join(env.Root, n))
	}
	if !slices.Equal(res.Changed, want) {
		t.Errorf("changed = %q, want %q", res.Changed, want)
	}
}

// TestApplyPatchErrors checks that a bad patch changes nothing and that
// the message tells the model what to fix.
func TestApplyPatchErrors(t *testing.T) {
	goFile := "package a\n\nfunc f() {\n\tx := 1\n\treturn\n}\n\nfunc g() {\n\ty := 2\n}\n"
	tests := []struct {
		name  string
		files map[string]string
		patch string
		want  []string // substrings of the message
	}{
		{
			name:  "context mismatch",
			files: map[string]string{"a.go": goFile},
			patch: "--- a/a.go\n+++ b/a.go\n@@ -3,3 +3,3 @@\n func f() {\n-\tx := 2\n+\tx := 3\n \treturn\n",
			want: []string{
				"a.go: hunk 1 (@@ -3,3 +3,3 @@) does not match the file",
				`first line "func f() {" was expected near line 3, which has it`,
				`closest match is lines 3-5 (2 of its 3 context and removed lines agree); line 4 is "\tx := 1" where the hunk has "\tx := 2"`,
				"No file was changed",
			},
		},
		{
			name:  "whitespace-only mismatch",
			files: map[string]string{"a.go": goFile},
			patch: "--- a/a.go\n+++ b/a.go\n@@ -8,3 +8,3 @@\n func g() {\n-    y := 2\n+    y := 3\n }\n",
			want: []string{
				"a.go: hunk 1",
				`It matches lines 8-10 if whitespace is ignored: line 9 is "\ty := 2" where the hunk has "    y := 2"`,
			},
		},
		{
			name:  "second hunk names its number",
			files: map[string]string{"a.go": goFile},
			patch: "--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,1 @@\n-package a\n+package b\n@@ -20,2 +20,2 @@\n-nothing like this\n+x\n",
			want: []string{
				"a.go: hunk 2 (@@ -20,2 +20,2 @@)",
				`first line "nothing like this" was expected near line 20, but the file has 10 lines`,
				"No line of the file matches",
			},
		},
		{
			name:  "overlapping hunks",
			files: map[string]string{"a.txt": numberedLines(5)},
			patch: "--- a/a.txt\n+++ b/a.txt\n@@ -2,2 +2,2 @@\n line 2\n-line 3\n+three\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+two\n",
			want:  []string{"hunk 2", "It matches lines 1-2, but the previous hunk already covers the file up to line 3"},
		},
		{
			name:  "create existing",
			files: map[string]string{"a.txt": "x\n"},
			patch: "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+y\n",
			want:  []string{"a.txt already exists"},
		},
		{
			name:  "modify missing",
			files: map[string]string{"main.go": "package main\n"},
			patch: "--- a/mian.go\n+++ b/mian.go\n@@ -1 +1 @@\n-package main\n+package x\n",
			want:  []string{"mian.go does not exist", `did you mean "main.go"`},
		},
		{
			name:  "create without /dev/null",
			patch: "--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n",
			want:  []string{"n.txt does not exist", "--- /dev/null"},
		},
		{
			name:  "delete missing",
			patch: "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
			want:  []string{"gone.txt does not exist"},
		},
		{
			name:  "delete with stale content",
			files: map[string]string{"d.txt": "other\n"},
			patch: "--- a/d.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-expected\n",
			want:  []string{"d.txt: the patch deletes it, but hunk 1"},
		},
		{
			name:  "rename onto existing file",
			files: map[string]string{"a.txt": "a\n", "b.txt": "b\n"},
			patch: "diff --git a/a.txt b/b.txt\nrename from a.txt\nrename to b.txt\n",
			want:  []string{"b.txt already exists"},
		},
		{
			name:  "unprefixed context line",
			files: map[string]string{"a.txt": "a\nb\nc\n"},
			patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\nc\n",
			want:  []string{`line 7: "c" is inside hunk 1 of a.txt but is not a hunk line`},
		},
		{
			name:  "change after prose",
			files: map[string]string{"a.txt": "a\nb\n"},
			patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\nand then\n-a\n",
			want:  []string{`line 8: "-a" follows hunk 1 of a.txt`},
		},
		{
			name:  "other patch format",
			patch: "*** Begin Patch\n*** Update File: a.txt\n",
			want:  []string{"not the \"*** Begin Patch\" format"},
		},
		{
			name:  "no sections",
			patch: "just some text\n",
			want:  []string{"no file sections found"},
		},
		{
			name:  "hunk before header",
			patch: "@@ -1 +1 @@\n-a\n+b\n",
			want:  []string{"line 1: hunk header", "before any file header"},
		},
		{
			name:  "binary",
			files: map[string]string{"img.png": "\x89PNG\x00"},
			patch: "diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and b/img.png differ\n",
			want:  []string{"img.png: binary patches are not supported"},
		},
		{
			name:  "binary in diff -r output",
			files: map[string]string{"a.txt": "a\n"},
			patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\nBinary files a/img.png and b/img.png differ\n",
			want:  []string{"line 6: \"Binary files a/img.png and b/img.png differ\": binary files are not supported"},
		},
		{
			name:  "binary target",
			files: map[string]string{"img.bin": "a\x00b\n"},
			patch: "--- a/img.bin\n+++ b/img.bin\n@@ -1 +1 @@\n-a\n+b\n",
			want:  []string{"img.bin is a binary file"},
		},
		{
			name:  "same file twice in conflicting ways",
			files: map[string]string{"a.txt": "a\n"},
			patch: "--- a/a.txt\n+++ /dev/null\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
			want:  []string{"an earlier section already changes this file"},
		},
		{
			name:  "two problems reported together",
			files: map[string]string{"a.txt": "a\n", "b.txt": "b\n"},
			patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-z\n+y\n",
			want:  []string{"the patch has 2 problems", "- a.txt: hunk 1", "- b.txt: hunk 1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t, tt.files)
			res := call(t, env, "apply_patch", patchArgs(tt.patch))
			if !res.IsError {
				t.Fatalf("patch applied, want an error; result %q", res.Content)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("message lacks %q:\n%s", w, res.Content)
				}
			}
			checkPatchTree(t, env, tt.files)
		})
	}
}

// checkPatchTree fails the test unless the tree under env's root holds
// exactly files.
func checkPatchTree(t *testing.T, env *tools.Env, files map[string]string) {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(env.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(env.Root, path)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		files = map[string]string{}
	}
	if !maps.Equal(got, files) {
		t.Errorf("workspace changed: got %q, want %q", got, files)
	}
}

// TestApplyPatchAllOrNothing checks that a failing second file leaves the
// first, which applies cleanly, untouched on disk.
func TestApplyPatchAllOrNothing(t *testing.T) {
	files := map[string]string{"first.txt": "one\ntwo\n", "second.txt": "alpha\nbeta\n"}
	env := testEnv(t, files)
	patch := `--- a/first.txt
+++ b/first.txt
@@ -1,2 +1,2 @@
 one
-two
+TWO
--- a/second.txt
+++ b/second.txt
@@ -1,2 +1,2 @@
 alpha
-gamma
+delta
`
	res := call(t, env, "apply_patch", patchArgs(patch))
	if !res.IsError {
		t.Fatalf("patch applied: %s", res.Content)
	}
	if !strings.Contains(res.Content, "second.txt: hunk 1") || strings.Contains(res.Content, "first.txt") {
		t.Errorf("message should blame second.txt only:\n%s", res.Content)
	}
	checkPatchTree(t, env, files)
}

func TestApplyPatchOutsideWorkspace(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("safe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"in.txt": "in\n"}
	tests := []struct {
		name, patch string
	}{
		{"absolute path", "--- " + victim + "\n+++ " + victim + "\n@@ -1 +1 @@\n-safe\n+owned\n"},
		{"dot-dot path", "--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+x\n"},
		{"rename out", "diff --git a/in.txt b/../in.txt\nrename from in.txt\nrename to ../in.txt\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t, files)
			// Put a good change first: the refusal must undo it too.
			good := "--- a/in.txt\n+++ b/in.txt\n@@ -1 +1 @@\n-in\n+changed\n"
			if tt.name == "rename out" {
				good = ""
			}
			res := call(t, env, "apply_patch", patchArgs(good+tt.patch))
			if !res.IsError || !strings.Contains(res.Content, "outside the directories") {
				t.Fatalf("want a sandbox refusal, got %q", res.Content)
			}
			checkPatchTree(t, env, files)
			if _, err := os.Stat(filepath.Join(filepath.Dir(env.Root), "escape.txt")); err == nil {
				t.Error("escape.txt was created outside the workspace")
			}
		})
	}
	if b, _ := os.ReadFile(victim); string(b) != "safe\n" {
		t.Errorf("victim = %q", b)
	}
}

// TestApplyPatchFromGit applies what `git diff` prints for a set of
// changes to the files before them, and expects the files after them.
func TestApplyPatchFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	before := map[string]string{
		"a.go":               "package a\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Println(\"a\")\n}\n\n" + numberedLines(30) + "func B() {}\n",
		"crlf.txt":           "one\r\ntwo\r\nthree\r\n",
		"gone.txt":           "delete me\n",
		"noeol.txt":          "no newline",
		"dir/with space.txt": "spaced\n",
		"é.txt":              "accent\n",
		"moved/old_name.txt": numberedLines(20),
		"unchanged/keep.txt": "keep\n",
		"to_noeol.txt":       "x\ny\n",
	}
	after := map[string]string{
		"a.go":               "package a\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc A() {\n\tfmt.Fprintln(os.Stderr, \"a\")\n}\n\n" + strings.Replace(numberedLines(30), "line 15\n", "line fifteen\n", 1) + "func B() {}\n\nfunc C() {}\n",
		"crlf.txt":           "one\r\n2\r\nthree\r\nfour\r\n",
		"noeol.txt":          "no newline\nnow has one\n",
		"dir/with space.txt": "spaced out\n",
		"é.txt":              "accent grave\n",
		"moved/new_name.txt": strings.Replace(numberedLines(20), "line 10\n", "line ten\n", 1),
		"unchanged/keep.txt": "keep\n",
		"to_noeol.txt":       "x\ny",
		"brand/new.txt":      "fresh\nfile\n",
	}
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.autocrlf=false"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	writePatchTree(t, repo, before)
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "before")
	for name := range before {
		if _, ok := after[name]; !ok || name == "moved/old_name.txt" {
			os.Remove(filepath.Join(repo, filepath.FromSlash(name)))
		}
	}
	writePatchTree(t, repo, after)
	git("add", "-A")
	patch := git("diff", "--cached", "-M")
	for _, want := range []string{"rename from moved/old_name.txt", "deleted file mode", "new file mode", `"a/\303\251.txt"`, "\\ No newline at end of file"} {
		if !strings.Contains(patch, want) {
			t.Fatalf("git diff lacks %q; the test does not cover what it means to:\n%s", want, patch)
		}
	}

	env := testEnv(t, before)
	res := call(t, env, "apply_patch", patchArgs(patch))
	if res.IsError {
		t.Fatalf("%s\npatch:\n%s", res.Content, patch)
	}
	checkPatchTree(t, env, after)
}

// TestApplyPatchFromDiff applies what GNU `diff -ruN` prints for two
// trees, including files only in one of them, and a plain `diff -u` of a
// backup against a file.
func TestApplyPatchFromDiff(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("diff not installed")
	}
	before := map[string]string{
		"m.txt":     numberedLines(12),
		"gone.txt":  "bye\n",
		"sub/s.txt": "s\nt\n",
	}
	after := map[string]string{
		"m.txt":     strings.NewReplacer("line 2\n", "line two\n", "line 11\n", "").Replace(numberedLines(12)),
		"sub/s.txt": "s\nt\nu\n",
		"new.txt":   "hi\n",
	}
	dir := t.TempDir()
	writePatchTree(t, filepath.Join(dir, "a"), before)
	writePatchTree(t, filepath.Join(dir, "b"), after)
	cmd := exec.Command("diff", "-ruN", "a", "b")
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("diff: %v", err)
	}
	env := testEnv(t, before)
	res := call(t, env, "apply_patch", patchArgs(string(out)))
	if res.IsError {
		t.Fatalf("%s\npatch:\n%s", res.Content, out)
	}
	checkPatchTree(t, env, after)

	// diff -u x.orig x: the section names two files; the one that exists
	// is patched.
	writePatchTree(t, dir, map[string]string{"x.orig": "1\n2\n", "x": "1\ntwo\n"})
	cmd = exec.Command("diff", "-u", "x.orig", "x")
	cmd.Dir = dir
	out, _ = cmd.Output()
	env = testEnv(t, map[string]string{"x": "1\n2\n"})
	if res := call(t, env, "apply_patch", patchArgs(string(out))); res.IsError {
		t.Fatalf("%s\npatch:\n%s", res.Content, out)
	}
	checkPatchTree(t, env, map[string]string{"x": "1\ntwo\n"})
}

func writePatchTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// reportLines drops the summary line that opens a patch report.
func reportLines(content string) string {
	_, rest, _ := strings.Cut(content, "\n")
	return rest
}

// TestChangedPaths checks what each file-changing tool declares: the
// paths the permission rules judge before it runs.
func TestChangedPaths(t *testing.T) {
	tests := []struct {
		tool string
		args any
		want []string
	}{
		{"write_file", map[string]string{"path": "a.go", "content": ""}, []string{"a.go"}},
		{"edit_file", map[string]string{"path": "a.go", "old_string": "x", "new_string": "y"}, []string{"a.go"}},
		{"multi_edit", map[string]any{"path": "a.go", "edits": []map[string]string{{"old_string": "x", "new_string": "y"}}}, []string{"a.go"}},
		{"move_file", map[string]string{"source": "a.go", "destination": "b/a.go"}, []string{"a.go", "b/a.go"}},
		{"apply_patch", patchArgs("--- x.go.orig\n+++ x.go\n@@ -1 +1 @@\n-x\n+y\n" +
			"--- a/m.go\n+++ b/m.go\n@@ -1 +1 @@\n-x\n+y\n" +
			"--- /dev/null\n+++ b/new.go\n@@ -0,0 +1 @@\n+n\n" +
			"--- a/gone.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" +
			"diff --git a/old.go b/renamed.go\nsimilarity index 100%\nrename from old.go\nrename to renamed.go\n" +
			"diff --git a/src.go b/copy.go\nsimilarity index 100%\ncopy from src.go\ncopy to copy.go\n"),
			[]string{"x.go.orig", "x.go", "m.go", "new.go", "gone.go", "old.go", "renamed.go", "src.go", "copy.go"}},
	}
	for _, tt := range tests {
		b, _ := json.Marshal(tt.args)
		got, err := lookup(t, tt.tool).(tools.FileChanger).ChangedPaths(b)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s.ChangedPaths(%s) = %q, %v; want %q", tt.tool, b, got, err, tt.want)
		}
	}
	// Arguments the tool would refuse declare nothing, with the tool's own
	// complaint.
	for _, tt := range []struct {
		tool, args, want string
	}{
		{"write_file", `{"path": "a.go"}`, "path and content are required"},
		{"move_file", `{"source": "a.go"}`, "source and destination are required"},
		{"apply_patch", `{"patch": "just prose"}`, "no file sections found"},
		{"apply_patch", `{"patch": "x", "extra": 1}`, "invalid arguments"},
	} {
		_, err := lookup(t, tt.tool).(tools.FileChanger).ChangedPaths(json.RawMessage(tt.args))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s.ChangedPaths(%s) error = %v, want %q", tt.tool, tt.args, err, tt.want)
		}
		res := call(t, testEnv(t, nil), tt.tool, tt.args)
		if !res.IsError || !strings.Contains(res.Content, err.Error()) {
			t.Errorf("%s(%s) = %q, want the same complaint %q", tt.tool, tt.args, res.Content, err)
		}
	}
}

// refusingFS refuses every change, as the agent's write seam refuses one
// the permission rules do not allow.
type refusingFS struct{ tools.FS }

func (refusingFS) Apply(ctx context.Context, changes []tools.Change) error {
	return fmt.Errorf("%w: %s: denied by the rule %q", tools.ErrNotPermitted, changes[0].Path, "Edit(a.txt)")
}

func TestApplyPatchRefusedByTheFS(t *testing.T) {
	env := testEnv(t, map[string]string{"a.txt": "a\n"})
	env.FS = refusingFS{env.FS}
	res := call(t, env, "apply_patch", patchArgs("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n"))
	if !res.IsError || !strings.Contains(res.Content, "Edit(a.txt)") || !strings.Contains(res.Content, "No file was changed") {
		t.Errorf("result %+v", res)
	}
	checkPatchedFiles(t, env, map[string]string{"a.txt": "a\n"}, nil)
}
