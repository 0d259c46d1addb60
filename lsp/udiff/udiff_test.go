package udiff

import (
	"fmt"
	"strings"
	"testing"
)

// numbered returns lines "1\n" … "n\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

func TestLines(t *testing.T) {
	ten := numbered(10)
	tests := []struct {
		name    string
		f       File
		context int
		want    string
	}{
		{"one line changed, context around it", File{Name: "x", Old: ten, New: strings.Replace(ten, "5\n", "five\n", 1)}, 2, `
--- a/x
+++ b/x
@@ -3,5 +3,5 @@
 3
 4
-5
+five
 6
 7
`},
		{"context stops at the ends", File{Name: "x", Old: "a\nb\n", New: "a\nB\n"}, 3, `
--- a/x
+++ b/x
@@ -1,2 +1,2 @@
 a
-b
+B
`},
		{"near changes share a hunk", File{Name: "x", Old: ten, New: strings.NewReplacer("2\n", "two\n", "6\n", "six\n").Replace(ten)}, 2, `
--- a/x
+++ b/x
@@ -1,8 +1,8 @@
 1
-2
+two
 3
 4
 5
-6
+six
 7
 8
`},
		{"far changes get hunks of their own, placed in both texts", File{Name: "x", Old: ten, New: strings.NewReplacer("1\n", "0\n1\n", "9\n", "").Replace(ten)}, 1, `
--- a/x
+++ b/x
@@ -1 +1,2 @@
+0
 1
@@ -8,3 +9,2 @@
 8
-9
 10
`},
		{"an insertion with no context", File{Name: "x", Old: "a\nb\n", New: "a\nnew\nb\n"}, 0, `
--- a/x
+++ b/x
@@ -1,0 +2 @@
+new
`},
		{"a created file", File{Name: "n.go", New: "package n\n\nfunc N() {}\n", Created: true}, 3, `
--- /dev/null
+++ b/n.go
@@ -0,0 +1,3 @@
+package n
+
+func N() {}
`},
		{"a created empty file", File{Name: "e", Created: true}, 3, `
--- /dev/null
+++ b/e
`},
		{"a deleted file", File{Name: "d", Old: "x\ny\n", Deleted: true}, 3, `
--- a/d
+++ /dev/null
@@ -1,2 +0,0 @@
-x
-y
`},
		{"no newline at the end, then one", File{Name: "x", Old: "a\nb", New: "a\nb\n"}, 3, `
--- a/x
+++ b/x
@@ -1,2 +1,2 @@
 a
-b
\ No newline at end of file
+b
`},
		{"a line added after a last line without a newline", File{Name: "x", Old: "a\nb", New: "a\nb\nc"}, 1, `
--- a/x
+++ b/x
@@ -1,2 +1,3 @@
 a
-b
\ No newline at end of file
+b
+c
\ No newline at end of file
`},
		{"unchanged last line without a newline, as context", File{Name: "x", Old: "a\nb", New: "A\nb"}, 1, `
--- a/x
+++ b/x
@@ -1,2 +1,2 @@
-a
+A
 b
\ No newline at end of file
`},
		{"CRLF lines read without their endings", File{Name: "w.txt", Old: "one\r\ntwo\r\nthree\r\n", New: "one\r\n2\r\nthree\r\n"}, 1, `
--- a/w.txt
+++ b/w.txt
@@ -1,3 +1,3 @@
 one
-two
+2
 three
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text(Lines(tt.f, tt.context))
			if want := strings.TrimPrefix(tt.want, "\n"); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestLinesUnchanged: no change, no diff.
func TestLinesUnchanged(t *testing.T) {
	if got := Lines(File{Name: "x", Old: "a\n", New: "a\n"}, 3); got != nil {
		t.Errorf("an unchanged file gives %q", got)
	}
}

// TestLinesLong: a long change keeps every line, each of its kind, so
// that a reader can shorten it and still count what it left out.
func TestLinesLong(t *testing.T) {
	lines := Lines(File{Name: "x", New: numbered(500), Created: true}, 3)
	if len(lines) != 503 {
		t.Fatalf("%d lines, want 2 headers, a hunk header and 500 added", len(lines))
	}
	for _, l := range lines[3:] {
		if l.Kind != Added {
			t.Fatalf("%q is not an added line", l)
		}
	}
	if lines[2].Text != "@@ -0,0 +1,500 @@" {
		t.Errorf("hunk header %q", lines[2].Text)
	}
}
