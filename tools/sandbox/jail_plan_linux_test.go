package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree creates the entries under root: a name ending in "/" is a
// directory, "a -> b" a symbolic link, anything else an empty file.
func tree(t *testing.T, root string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		p := filepath.Join(root, strings.TrimSuffix(e, "/"))
		if name, target, ok := strings.Cut(e, " -> "); ok {
			p = filepath.Join(root, name)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPlan(t *testing.T) {
	const (
		read  = llRead
		write = llAll
		dirR  = read & llDirOnly  // what a directory on the way keeps of a read grant
		dirW  = write & llDirOnly // … and of a write grant
	)
	tests := []struct {
		name    string
		entries []string
		grants  []rule // paths relative to the test's root; "" is the root
		forbid  []string
		want    []rule
	}{
		{
			name:    "nothing forbidden: one rule",
			entries: []string{"a/", "b/c"},
			grants:  []rule{{"", read}},
			want:    []rule{{"", read}},
		},
		{
			name:    "a forbidden path that does not exist splits nothing",
			entries: []string{"a/", "b/c"},
			grants:  []rule{{"", read}},
			forbid:  []string{"b/missing"},
			want:    []rule{{"", read}},
		},
		{
			name:    "siblings along the way, not the forbidden one",
			entries: []string{"a/x", "b/secret/key", "b/c", "b/d/", "e"},
			grants:  []rule{{"", read}},
			forbid:  []string{"b/secret"},
			want:    []rule{{"", dirR}, {"a", read}, {"b", dirR}, {"b/c", read}, {"b/d", read}, {"e", read}},
		},
		{
			name:    "a forbidden file",
			entries: []string{"home/.netrc", "home/notes"},
			grants:  []rule{{"", read}},
			forbid:  []string{"home/.netrc"},
			want:    []rule{{"", dirR}, {"home", dirR}, {"home/notes", read}},
		},
		{
			name:    "two forbidden paths in one directory, one deeper",
			entries: []string{"h/.ssh/id", "h/.aws/c", "h/.config/gcloud/t", "h/.config/go/env", "h/src/"},
			grants:  []rule{{"", read}},
			forbid:  []string{"h/.ssh", "h/.aws", "h/.config/gcloud"},
			want: []rule{{"", dirR}, {"h", dirR}, {"h/.config", dirR}, {"h/.config/go", read},
				{"h/src", read}},
		},
		{
			name:    "symbolic links get no rule",
			entries: []string{"d/secret/", "d/link -> secret", "d/out -> ../x", "x/"},
			grants:  []rule{{"", read}},
			forbid:  []string{"d/secret"},
			want:    []rule{{"", dirR}, {"d", dirR}, {"x", read}},
		},
		{
			name:    "a write root holding a forbidden path keeps its directory rights",
			entries: []string{"ws/.env", "ws/src/main.go", "ws/go.mod"},
			grants:  []rule{{"ws", write}},
			forbid:  []string{"ws/.env"},
			want:    []rule{{"ws", dirW}, {"ws/go.mod", write}, {"ws/src", write}},
		},
		{
			name:    "a grant inside a forbidden path is dropped",
			entries: []string{"secret/cache/", "ok/"},
			grants:  []rule{{"secret/cache", write}, {"ok", write}},
			forbid:  []string{"secret"},
			want:    []rule{{"ok", write}},
		},
		{
			name:    "a grant equal to a forbidden path is dropped",
			entries: []string{"secret/"},
			grants:  []rule{{"secret", write}},
			forbid:  []string{"secret"},
			want:    nil,
		},
		{
			name:    "grants are split independently",
			entries: []string{"h/.ssh/", "h/w/", "h/.cache/"},
			grants:  []rule{{"", read}, {"h/w", write}, {"h/.cache", write}},
			forbid:  []string{"h/.ssh"},
			want: []rule{{"", dirR}, {"h", dirR}, {"h/.cache", read}, {"h/w", read},
				{"h/w", write}, {"h/.cache", write}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := realTempDir(t)
			tree(t, root, tt.entries...)
			abs := func(rel string) string { return filepath.Join(root, rel) }
			var grants []rule
			for _, g := range tt.grants {
				grants = append(grants, rule{abs(g.path), g.access})
			}
			var forbid []string
			for _, f := range tt.forbid {
				forbid = append(forbid, abs(f))
			}
			got := plan(grants, forbid)
			var want []rule
			for _, r := range tt.want {
				want = append(want, rule{abs(r.path), r.access})
			}
			if !slices.Equal(got, want) {
				t.Errorf("plan:\n got %v\nwant %v", rel(root, got), rel(root, want))
			}
		})
	}
}

// rel renders rules with paths relative to root, for readable failures.
func rel(root string, rules []rule) []string {
	var out []string
	for _, r := range rules {
		p, _ := filepath.Rel(root, r.path)
		out = append(out, p+":"+accessName(r.access))
	}
	return out
}

func accessName(a uint64) string {
	switch a {
	case llRead:
		return "read"
	case llAll:
		return "all"
	case llRead & llDirOnly:
		return "dir-read"
	case llAll & llDirOnly:
		return "dir-all"
	}
	return fmt.Sprintf("%#x", a)
}
