package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditFile(t *testing.T) {
	const src = "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
	tests := []struct {
		name    string
		args    map[string]any
		wantErr string // substring of the error result; "" for success
		want    string // file content afterwards, when successful
	}{
		{
			name: "unique replacement",
			args: map[string]any{"path": "calc.go", "old_string": "func Add(a, b int) int {\n\treturn a - b", "new_string": "func Add(a, b int) int {\n\treturn a + b"},
			want: strings.Replace(src, "return a - b", "return a + b", 1),
		},
		{
			name:    "not unique",
			args:    map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"},
			wantErr: "occurs 2 times in calc.go (at lines 4, 8)",
		},
		{
			name: "replace all",
			args: map[string]any{"path": "calc.go", "old_string": "a, b int", "new_string": "x, y int", "replace_all": true},
			want: strings.ReplaceAll(src, "a, b int", "x, y int"),
		},
		{
			name:    "missing text with whitespace hint",
			args:    map[string]any{"path": "calc.go", "old_string": "func Add(a, b int) int {\n    return a - b", "new_string": "x"},
			wantErr: "appears at line 3 with different whitespace",
		},
		{
			name:    "missing text",
			args:    map[string]any{"path": "calc.go", "old_string": "func Mul(", "new_string": "x"},
			wantErr: "old_string was not found in calc.go",
		},
		{
			name:    "identical strings",
			args:    map[string]any{"path": "calc.go", "old_string": "Add", "new_string": "Add"},
			wantErr: "identical",
		},
		{
			name:    "missing file suggests a near name",
			args:    map[string]any{"path": "Calc.go", "old_string": "a", "new_string": "b"},
			wantErr: `did you mean "calc.go"`,
		},
		{
			name:    "unknown argument",
			args:    map[string]any{"path": "calc.go", "old": "a", "new_string": "b"},
			wantErr: `unknown field "old"`,
		},
		{
			name:    "outside the workspace",
			args:    map[string]any{"path": "/etc/hostname", "old_string": "a", "new_string": "b"},
			wantErr: "outside the directories",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t, map[string]string{"calc.go": src})
			res := call(t, env, "edit_file", tt.args)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
					t.Fatalf("want error containing %q, got %+v", tt.wantErr, res)
				}
				if got := fileContent(t, env, "calc.go"); got != src {
					t.Fatalf("file changed on error:\n%s", got)
				}
				return
			}
			if res.IsError {
				t.Fatalf("unexpected error: %s", res.Content)
			}
			if got := fileContent(t, env, "calc.go"); got != tt.want {
				t.Fatalf("content:\n%s\nwant:\n%s", got, tt.want)
			}
			if len(res.Changed) != 1 || !strings.HasSuffix(res.Changed[0], "calc.go") {
				t.Fatalf("Changed = %v", res.Changed)
			}
		})
	}
}

func TestEditFileKeepsCRLF(t *testing.T) {
	env := testEnv(t, map[string]string{"a.txt": "one\r\ntwo\r\nthree\r\n"})
	res := call(t, env, "edit_file", map[string]any{"path": "a.txt", "old_string": "one\ntwo", "new_string": "1\n2"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got := fileContent(t, env, "a.txt"); got != "1\r\n2\r\nthree\r\n" {
		t.Fatalf("got %q", got)
	}
}

func TestMultiEdit(t *testing.T) {
	const src = "alpha\nbeta\ngamma\n"
	t.Run("all apply in order", func(t *testing.T) {
		env := testEnv(t, map[string]string{"f.txt": src})
		res := call(t, env, "multi_edit", map[string]any{"path": "f.txt", "edits": []map[string]any{
			{"old_string": "alpha", "new_string": "ALPHA"},
			{"old_string": "ALPHA\nbeta", "new_string": "ALPHA\nBETA"},
		}})
		if res.IsError {
			t.Fatal(res.Content)
		}
		if got := fileContent(t, env, "f.txt"); got != "ALPHA\nBETA\ngamma\n" {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("one failure applies nothing", func(t *testing.T) {
		env := testEnv(t, map[string]string{"f.txt": src})
		res := call(t, env, "multi_edit", map[string]any{"path": "f.txt", "edits": []map[string]any{
			{"old_string": "alpha", "new_string": "ALPHA"},
			{"old_string": "delta", "new_string": "DELTA"},
		}})
		if !res.IsError || !strings.Contains(res.Content, "edit 2 of 2") {
			t.Fatalf("got %+v", res)
		}
		if got := fileContent(t, env, "f.txt"); got != src {
			t.Fatalf("file changed: %q", got)
		}
	})
	t.Run("creates a file", func(t *testing.T) {
		env := testEnv(t, nil)
		res := call(t, env, "multi_edit", map[string]any{"path": "new/f.txt", "edits": []map[string]any{
			{"old_string": "", "new_string": "hello world\n"},
			{"old_string": "world", "new_string": "there"},
		}})
		if res.IsError {
			t.Fatal(res.Content)
		}
		if got := fileContent(t, env, "new/f.txt"); got != "hello there\n" {
			t.Fatalf("got %q", got)
		}
	})
}

func TestWriteFile(t *testing.T) {
	env := testEnv(t, map[string]string{"old.txt": "x"})
	res := call(t, env, "write_file", map[string]any{"path": "dir/sub/new.txt", "content": "a\nb\n"})
	if res.IsError || !strings.Contains(res.Content, "Created dir/sub/new.txt (2 lines") {
		t.Fatalf("got %+v", res)
	}
	res = call(t, env, "write_file", map[string]any{"path": "old.txt", "content": ""})
	if res.IsError || !strings.HasPrefix(res.Content, "Overwrote old.txt") {
		t.Fatalf("got %+v", res)
	}
	if got := fileContent(t, env, "old.txt"); got != "" {
		t.Fatalf("got %q", got)
	}
	res = call(t, env, "write_file", map[string]any{"path": "x.txt"})
	if !res.IsError {
		t.Fatal("missing content accepted")
	}
	// A symlink inside the workspace must not carry a write outside it.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(env.Root, "link")); err != nil {
		t.Fatal(err)
	}
	res = call(t, env, "write_file", map[string]any{"path": "link/evil.txt", "content": "x"})
	if !res.IsError || !strings.Contains(res.Content, "outside") {
		t.Fatalf("write through symlink: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(outside, "evil.txt")); err == nil {
		t.Fatal("file written outside the workspace")
	}
}

func TestMoveFile(t *testing.T) {
	env := testEnv(t, map[string]string{"a.txt": "A", "b.txt": "B"})
	if res := call(t, env, "move_file", map[string]any{"source": "a.txt", "destination": "b.txt"}); !res.IsError || !strings.Contains(res.Content, "already exists") {
		t.Fatalf("overwrite allowed: %+v", res)
	}
	if res := call(t, env, "move_file", map[string]any{"source": "nope.txt", "destination": "c.txt"}); !res.IsError {
		t.Fatalf("missing source accepted: %+v", res)
	}
	res := call(t, env, "move_file", map[string]any{"source": "a.txt", "destination": "d/c.txt"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got := fileContent(t, env, "d/c.txt"); got != "A" {
		t.Fatalf("got %q", got)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "a.txt")); err == nil {
		t.Fatal("source still exists")
	}
}

func TestReadFile(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 2500; i++ {
		long.WriteString("line\n")
	}
	wide := strings.Repeat(strings.Repeat("w", 99)+"\n", 1000) // 100 KB
	env := testEnv(t, map[string]string{
		"small.txt": "one\ntwo\nthree",
		"long.txt":  long.String(),
		"wide.txt":  wide,
		"bin.dat":   "\x00\x01\x02",
		"empty.txt": "",
	})
	tests := []struct {
		args    map[string]any
		want    []string
		wantErr string
	}{
		{args: map[string]any{"path": "small.txt"}, want: []string{"1\tone\n2\ttwo\n3\tthree\n"}},
		{args: map[string]any{"path": "small.txt", "offset": 2, "limit": 1}, want: []string{"2\ttwo\n", "Showing lines 2-2 of 3"}},
		{args: map[string]any{"path": "long.txt"}, want: []string{"2000\tline\n", "Showing lines 1-2000 of 2500. To read on: read_file {\"path\":\"long.txt\",\"offset\":2001}"}},
		// At most 32 KiB come back, whatever the limit.
		{args: map[string]any{"path": "wide.txt", "limit": 1000}, want: []string{"Showing lines 1-312 of 1000. To read on: read_file {\"path\":\"wide.txt\",\"offset\":313}"}},
		{args: map[string]any{"path": "bin.dat"}, want: []string{"binary file (3 bytes)"}},
		{args: map[string]any{"path": "empty.txt"}, want: []string{"is empty"}},
		{args: map[string]any{"path": "small.txt", "offset": 9}, wantErr: "past the end"},
		{args: map[string]any{"path": "."}, wantErr: "is a directory"},
		{args: map[string]any{"path": "smal.txt"}, wantErr: `did you mean "small.txt"`},
		{args: map[string]any{}, wantErr: "path is required"},
	}
	for _, tt := range tests {
		res := call(t, env, "read_file", tt.args)
		if tt.wantErr != "" {
			if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
				t.Errorf("%v: want error %q, got %+v", tt.args, tt.wantErr, res)
			}
			continue
		}
		for _, w := range tt.want {
			if res.IsError || !strings.Contains(res.Content, w) {
				t.Errorf("%v: want %q in\n%s", tt.args, w, res.Content)
			}
		}
	}
}
