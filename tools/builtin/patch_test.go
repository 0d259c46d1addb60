package builtin

import (
	"fmt"
	"strings"
	"testing"
)

// describePatch renders parsed sections compactly for comparison: one
// line per section, then one per hunk with its lines.
func describePatch(files []*filePatch) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%q -> %q", f.oldName, f.newName)
		for _, flag := range []struct {
			on   bool
			name string
		}{{f.create, "create"}, {f.delete, "delete"}, {f.rename, "rename"}, {f.copy, "copy"}, {f.modeChange, "mode"}, {f.binary, "binary"}} {
			if flag.on {
				b.WriteString(" " + flag.name)
			}
		}
		b.WriteString("\n")
		for _, h := range f.hunks {
			b.WriteString("  @@")
			if h.hasPos {
				fmt.Fprintf(&b, " -%d,%d +%d,%d", h.oldStart, h.oldCount, h.newStart, h.newCount)
			}
			if h.oldNoEOL {
				b.WriteString(" old-noeol")
			}
			if h.newNoEOL {
				b.WriteString(" new-noeol")
			}
			b.WriteString(":")
			for _, l := range h.lines {
				fmt.Fprintf(&b, " %c%q", l.op, l.text)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestParsePatch(t *testing.T) {
	tests := []struct {
		name, patch, want string
	}{
		{
			name:  "git names with spaces",
			patch: "diff --git a/x y.txt b/x y.txt\n--- a/x y.txt\t\n+++ b/x y.txt\t\n@@ -1 +1 @@\n-a\n+b\n",
			want:  "\"x y.txt\" -> \"x y.txt\"\n  @@ -1,1 +1,1: -\"a\" +\"b\"\n",
		},
		{
			name:  "git quoted names",
			patch: "diff --git \"a/\\303\\251.txt\" \"b/\\303\\251.txt\"\n--- \"a/\\303\\251.txt\"\n+++ \"b/\\303\\251.txt\"\n@@ -1 +1 @@\n-a\n+b\n",
			want:  "\"é.txt\" -> \"é.txt\"\n  @@ -1,1 +1,1: -\"a\" +\"b\"\n",
		},
		{
			name:  "empty new file from the diff --git line",
			patch: "diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n",
			want:  "\"\" -> \"e\" create\n",
		},
		{
			name:  "mode change only",
			patch: "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
			want:  "\"run.sh\" -> \"run.sh\" mode\n",
		},
		{
			name:  "rename names come from the rename headers",
			patch: "diff --git a/a b/b\nsimilarity index 90%\nrename from dir/a\nrename to dir/b\n--- a/dir/a\n+++ b/dir/b\n@@ -1 +1 @@\n-x\n+y\n",
			want:  "\"dir/a\" -> \"dir/b\" rename\n  @@ -1,1 +1,1: -\"x\" +\"y\"\n",
		},
		{
			name:  "diff -N epoch timestamps",
			patch: "--- a/new\t1970-01-01 00:00:00.000000000 +0000\n+++ b/new\t2024-01-01 00:00:00.000000000 +0000\n@@ -0,0 +1 @@\n+x\n--- a/old\t2024-01-01 00:00:00.000000000 +0000\n+++ b/old\t1969-12-31 19:00:00.000000000 -0500\n@@ -1 +0,0 @@\n-x\n",
			want:  "\"\" -> \"new\" create\n  @@ -0,0 +1,1: +\"x\"\n\"old\" -> \"\" delete\n  @@ -1,1 +0,0: -\"x\"\n",
		},
		{
			name:  "trailing blank context lines the counts include",
			patch: "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n+b\n\n\n",
			want:  "\"f\" -> \"f\"\n  @@ -1,3 +1,3: -\"a\" +\"b\"  \"\"  \"\"\n",
		},
		{
			name:  "trailing blank lines the counts do not include",
			patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\n\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-c\n+d\n",
			want:  "\"f\" -> \"f\"\n  @@ -1,1 +1,1: -\"a\" +\"b\"\n\"g\" -> \"g\"\n  @@ -1,1 +1,1: -\"c\" +\"d\"\n",
		},
		{
			name:  "header-like body lines while counts last",
			patch: "--- a/f.sql\n+++ b/f.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n x\n",
			want:  "\"f.sql\" -> \"f.sql\"\n  @@ -1,2 +1,2: -\"-- old comment\" +\"++ new comment\"  \"x\"\n",
		},
		{
			name:  "no newline markers",
			patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n",
			want:  "\"f\" -> \"f\"\n  @@ -1,1 +1,1 old-noeol: -\"a\" +\"a\"\n",
		},
		{
			name:  "no newline on a context line ends both sides",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n\\ No newline at end of file\n",
			want:  "\"f\" -> \"f\"\n  @@ -1,2 +1,2 old-noeol new-noeol: -\"a\" +\"b\"  \"c\"\n",
		},
		{
			name:  "tab-indented context line without its space",
			patch: "--- a/f.go\n+++ b/f.go\n@@ -1,2 +1,2 @@\n\tx := 1\n-\ty := 2\n+\ty := 3\n",
			want:  "\"f.go\" -> \"f.go\"\n  @@ -1,2 +1,2:  \"\\tx := 1\" -\"\\ty := 2\" +\"\\ty := 3\"\n",
		},
		{
			name:  "CRLF patch keeps CR in the text",
			patch: "--- a/f\r\n+++ b/f\r\n@@ -1 +1 @@ section\r\n-a\r\n+b\r\n",
			want:  "\"f\" -> \"f\"\n  @@ -1,1 +1,1: -\"a\\r\" +\"b\\r\"\n",
		},
		{
			name:  "section text after the @@",
			patch: "--- f\n+++ f\n@@ -10,2 +10,3 @@ func main() {\n a\n+b\n c\n",
			want:  "\"f\" -> \"f\"\n  @@ -10,2 +10,3:  \"a\" +\"b\"  \"c\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := parsePatch(tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			if got := describePatch(files); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestApplyHunks(t *testing.T) {
	tests := []struct {
		name, content, patch, want string
	}{
		{
			name:    "insert without context at a stated line",
			content: "a\nb\nc\n",
			patch:   "@@ -2,0 +3 @@\n+x\n",
			want:    "a\nb\nx\nc\n",
		},
		{
			name:    "append to a file without a final newline",
			content: "a\nb",
			patch:   "@@ -2,0 +3 @@\n+c\n",
			want:    "a\nb\nc",
		},
		{
			name:    "into an empty file",
			content: "",
			patch:   "@@ -0,0 +1,2 @@\n+a\n+b\n",
			want:    "a\nb\n",
		},
		{
			name:    "remove everything",
			content: "a\nb\n",
			patch:   "@@ -1,2 +0,0 @@\n-a\n-b\n",
			want:    "",
		},
		{
			name:    "exact match preferred to a nearer fuzzy one",
			content: "x \ny\nx\ny\n",
			patch:   "@@ -1,2 +1,2 @@\n x\n-y\n+Y\n",
			want:    "x \ny\nx\nY\n",
		},
		{
			name:    "nearest of two exact matches",
			content: "x\ny\n-\n-\n-\n-\nx\ny\n",
			patch:   "@@ -6,2 +6,2 @@\n x\n-y\n+Y\n",
			want:    "x\ny\n-\n-\n-\n-\nx\nY\n",
		},
		{
			name:    "drift carries to the next hunk",
			content: "pad\npad\npad\nk\nv\nk\nv\nk\nv\n",
			// Both hunks are stated 3 lines early. Without the drift of the
			// first, the second would take the nearer "k v" at lines 6-7.
			patch: "@@ -1,2 +1,2 @@\n k\n-v\n+V\n@@ -5,2 +5,2 @@\n k\n-v\n+W\n",
			want:  "pad\npad\npad\nk\nV\nk\nv\nk\nW\n",
		},
		{
			name:    "CRLF file with a lone LF line",
			content: "a\r\nb\nc\r\n",
			patch:   "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
			want:    "a\r\nB\r\nc\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := parsePatch("--- a/f\n+++ b/f\n" + tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			got, err := applyHunks(tt.content, files[0].hunks)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewFileContent(t *testing.T) {
	tests := []struct{ patch, want string }{
		{"@@ -0,0 +1,2 @@\n+a\n+b\n", "a\nb\n"},
		{"@@ -0,0 +1,2 @@\r\n+a\r\n+b\r\n", "a\r\nb\r\n"},
		{"@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n", "a\nb"},
	}
	for _, tt := range tests {
		files, err := parsePatch("--- /dev/null\n+++ b/f\n" + tt.patch)
		if err != nil {
			t.Fatal(err)
		}
		got, err := newFileContent(files[0].hunks)
		if err != nil || got != tt.want {
			t.Errorf("newFileContent(%q) = %q, %v; want %q", tt.patch, got, err, tt.want)
		}
	}
}

// FuzzParsePatch feeds arbitrary text through the parser and, when it
// parses, through hunk application: neither may panic.
func FuzzParsePatch(f *testing.F) {
	for _, seed := range []string{
		"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
		"diff --git a/x b/y\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -3 +3,2 @@\n-q\n\\ No newline at end of file\n+q\n+r\n",
		"--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n",
		"--- a/f\n+++ b/f\n@@\n\n\tx\n--- y\n+++ z\n@@ -0,0 +0,0 @@\n",
		"diff --git \"a/\\303\" \"b/\\303\"\n--- \"a\n+++ \"b\\\"\n@@ -99999999999999999999,1 +1 @@\n-x\n",
		"--- a/f\r\n+++ b/f\r\n@@ -1 +1 @@\r\n-\r\n+\r\n\\\r\n",
	} {
		f.Add(seed, "a\nb\nc\n")
	}
	// Found by fuzzing: an empty file and a hunk stated at line 0.
	f.Add("--- \n+++ 0\n@@-0,0 +0\n 0\n b", "")
	f.Fuzz(func(t *testing.T, patch, content string) {
		files, err := parsePatch(patch)
		if err != nil {
			return
		}
		for _, fp := range files {
			if fp.name() == "" {
				t.Errorf("section at line %d has no name", fp.line)
			}
			for _, h := range fp.hunks {
				if len(h.lines) == 0 {
					t.Errorf("empty hunk at line %d", h.line)
				}
			}
			applyHunks(content, fp.hunks)
			newFileContent(fp.hunks)
		}
	})
}
