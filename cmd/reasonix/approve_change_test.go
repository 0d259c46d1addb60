package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

// lines returns "prefix1\n" … "prefixN\n".
func lines(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s%d\n", prefix, i)
	}
	return b.String()
}

// shows checks that out holds each of want, in order, and none of
// absent.
func shows(t *testing.T, out string, want, absent []string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("no %q after byte %d of:\n%s", w, at, out)
		}
		at += i + len(w)
	}
	for _, a := range absent {
		if strings.Contains(out, a) {
			t.Errorf("%q shown:\n%s", a, out)
		}
	}
}

// jsonString is s as a JSON string.
func jsonString(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTermApproverShowsTheDiff: the question about a file change shows
// its diff first; a long one is cut after its first lines, with how many
// are left and that v shows them, and v shows them and asks again. A tool
// that cannot preview its change shows the change in its own words.
func TestTermApproverShowsTheDiff(t *testing.T) {
	edits := func(tool string, _ json.RawMessage) []tools.FileEdit {
		switch tool {
		case "edit_file":
			return []tools.FileEdit{{Path: "calc.go", Old: "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
				New: "package calc\n\nfunc Add(a, b int) int { return a + b }\n", Existed: true}}
		case "write_file":
			return []tools.FileEdit{{Path: "new.txt", New: lines("x", 60)}}
		}
		return nil
	}
	tests := []struct {
		name, tool, args, input string
		want                    []string // in this order
		absent                  []string
	}{
		{"short", "edit_file", `{"path":"calc.go"}`, "y\n", []string{
			"? edit_file calc.go\n",
			"  --- a/calc.go\n  +++ b/calc.go\n  @@ -1,3 +1,3 @@\n   package calc\n   \n" +
				"  -func Add(a, b int) int { return a - b }\n  +func Add(a, b int) int { return a + b }\n",
			"  allow? [y] once",
		}, []string{"more lines"}},
		{"long, then whole", "write_file", `{"path":"new.txt"}`, "v\ny\n", []string{
			"  --- /dev/null\n  +++ b/new.txt\n  @@ -0,0 +1,60 @@\n  +x1\n",
			"  +x27\n  … 33 more lines — press v to see the whole change\n  allow? ",
			"  +x60\n  allow? ",
		}, []string{"  +x28\n  … 33"}},
		{"asked every time, shown whole", "write_file", `{"path":"new.txt"}`, "y\n", []string{
			"  +x27\n  +x28\n", "  +x60\n  allow this call, this once? ",
		}, []string{"more lines"}},
		{"no previewer", "move_file", `{"source":"a.go","destination":"b.go"}`, "n\n", []string{
			"? move_file ", "Move a.go to b.go.\n  allow? ",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			ap := &termApprover{in: strings.NewReader(tt.input), r: newRenderer(&bytes.Buffer{}, &errb, false, false, false), edits: edits}
			p := permission.Prompt{Request: permission.Request{Tool: tt.tool, Args: json.RawMessage(tt.args), AlwaysAsk: strings.HasPrefix(tt.name, "asked every time")}, Scope: "Edit(x)"}
			if _, err := ap.Approve(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			shows(t, errb.String(), tt.want, tt.absent)
		})
	}
}

// TestApprovalShowsTheDiff runs `reasonix run` under a pseudo-terminal:
// before the question about an edit, the terminal shows its diff,
// coloured; a long change is shortened, and v shows the rest (through
// $PAGER when it is set), uncoloured under NO_COLOR.
func TestApprovalShowsTheDiff(t *testing.T) {
	requireScript(t)
	const calc = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"
	tests := []struct {
		name, file, call, input string
		env                     []string
		want                    []string // in this order
		absent                  []string
	}{
		{"short, coloured", "calc.go", `call edit_file {"path": "calc.go", "old_string": "a - b", "new_string": "a + b"}`, "y\n", nil, []string{
			"? edit_file calc.go",
			"@@ -1,3 +1,3 @@",
			"\x1b[31m-func Add(a, b int) int { return a - b }\x1b[0m",
			"\x1b[32m+func Add(a, b int) int { return a + b }\x1b[0m",
			"allow? [y] once",
		}, []string{"more lines"}},
		{"long, v prints the rest", "notes.txt", `call write_file {"path": "notes.txt", "content": ` + jsonString(t, lines("x", 60)) + `}`, "v\ny\n", []string{"NO_COLOR=1"}, []string{
			"? write_file notes.txt",
			"  -func Add(a, b int) int { return a - b }",
			"  +x24\r\n  … 36 more lines — press v to see the whole change",
			"allow? [y] once",
			"  +x60",
			"allow? [y] once",
		}, []string{"\x1b[3", "  +x25\r\n  … 36"}},
		{"long, v pages the rest", "notes.txt", `call write_file {"path": "notes.txt", "content": ` + jsonString(t, lines("x", 60)) + `}`, "v\ny\n", []string{"PAGER=cat"}, []string{
			"+x24\x1b[0m\r\n",
			"… 36 more lines — press v to see the whole change",
			"allow? [y] once",
			"\n+x60\r\n",
			"allow? [y] once",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, cfg := startScripted(t, tt.call+"\n---\nexpect tool "+tt.file+"\ntext finished\n")
			work, home := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(work, tt.file), []byte(calc), 0o644); err != nil {
				t.Fatal(err)
			}
			out := runOnTerminalEnv(t, work, home, tt.env, tt.input, "run", "--config", cfg, "'fix calc.go'")
			shows(t, out, tt.want, tt.absent)
			if srv.Remaining() != 0 {
				t.Fatalf("the call did not run:\n%s", out)
			}
			if got, _ := os.ReadFile(filepath.Join(work, tt.file)); string(got) == calc {
				t.Errorf("%s is unchanged", tt.file)
			}
		})
	}
}
