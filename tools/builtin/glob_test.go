package builtin

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// globTree is the workspace the glob tests search, oldest file first:
// each is an hour newer than the one before, so results list them in the
// reverse order.
var globTree = []string{
	".gitignore",
	"main.go",
	"README.md",
	"cmd/app/main.go",
	"cmd/app/main_test.go",
	"tools/walk/walk.go",
	"tools/walk/walk_test.go",
	"web/src/app.ts",
	"web/src/view.tsx",
	"web/src/style.css",
	"node_modules/lib/index.ts",
	"secret/key.go",
	"out.log",
}

func globTestEnv(t *testing.T) *tools.Env {
	t.Helper()
	files := map[string]string{".gitignore": "node_modules/\n*.log\n"}
	for _, f := range globTree[1:] {
		files[f] = "x"
	}
	env := testEnv(t, files)
	env.Guard = sandbox.New([]string{env.Root}, []string{filepath.Join(env.Root, "secret")})
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, f := range globTree {
		setMtime(t, filepath.Join(env.Root, filepath.FromSlash(f)), base.Add(time.Duration(i)*time.Hour))
	}
	return env
}

func setMtime(t *testing.T, path string, mt time.Time) {
	t.Helper()
	if err := os.Chtimes(path, mt, mt); err != nil {
		t.Fatal(err)
	}
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    map[string]any
		want    []string
		isError bool
		contain string
	}{
		{
			name: "double star",
			args: map[string]any{"pattern": "**/*.go"},
			want: []string{"tools/walk/walk_test.go", "tools/walk/walk.go", "cmd/app/main_test.go", "cmd/app/main.go", "main.go"},
		},
		{
			name: "a name pattern matches at any depth",
			args: map[string]any{"pattern": "main*.go"},
			want: []string{"cmd/app/main_test.go", "cmd/app/main.go", "main.go"},
		},
		{
			name: "a leading ./ anchors at the top",
			args: map[string]any{"pattern": "./*.go"},
			want: []string{"main.go"},
		},
		{
			name: "alternation",
			args: map[string]any{"pattern": "web/**/*.{ts,tsx}"},
			want: []string{"web/src/view.tsx", "web/src/app.ts"},
		},
		{
			name: "alternation of directories",
			args: map[string]any{"pattern": "{cmd,tools}/**/*_test.go"},
			want: []string{"tools/walk/walk_test.go", "cmd/app/main_test.go"},
		},
		{
			name: "character class and single star",
			args: map[string]any{"pattern": "cmd/*/[m]ain.go"},
			want: []string{"cmd/app/main.go"},
		},
		{
			name: "relative to path",
			args: map[string]any{"pattern": "*.go", "path": "tools"},
			want: []string{"tools/walk/walk_test.go", "tools/walk/walk.go"},
		},
		{
			name: "pattern written from the root with a path",
			args: map[string]any{"pattern": "tools/walk/*_test.go", "path": "tools"},
			want: []string{"tools/walk/walk_test.go"},
		},
		{
			name: "ignored files are skipped",
			args: map[string]any{"pattern": "**/*.{ts,log}"},
			want: []string{"web/src/app.ts"},
		},
		{
			name: "hidden files are found",
			args: map[string]any{"pattern": ".git*"},
			want: []string{".gitignore"},
		},
		{
			name: "no match",
			args: map[string]any{"pattern": "**/*.rs"},
			want: []string{"No files match `**/*.rs` in the workspace."},
		},
		{
			name: "literal directory that does not exist",
			args: map[string]any{"pattern": "nope/**/*.go"},
			want: []string{"No files match `nope/**/*.go` in the workspace."},
		},
		{
			name:    "bad pattern",
			args:    map[string]any{"pattern": "[a-"},
			isError: true,
			contain: "unclosed '['",
		},
		{
			name:    "path is a file",
			args:    map[string]any{"pattern": "*", "path": "main.go"},
			isError: true,
			contain: "is a file",
		},
		{
			name:    "missing path",
			args:    map[string]any{"pattern": "*", "path": "tool"},
			isError: true,
			contain: `did you mean "tools"`,
		},
		{
			name:    "absolute pattern elsewhere",
			args:    map[string]any{"pattern": "/usr/lib/**/*.so"},
			isError: true,
			contain: "absolute path outside",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := globTestEnv(t)
			res := call(t, env, "glob", c.args)
			if res.IsError != c.isError {
				t.Fatalf("IsError = %v; content:\n%s", res.IsError, res.Content)
			}
			if c.contain != "" && !strings.Contains(res.Content, c.contain) {
				t.Errorf("content does not contain %q:\n%s", c.contain, res.Content)
			}
			if c.want != nil {
				if got := outputLines(res.Content); !slices.Equal(got, c.want) {
					t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(c.want, "\n\t"))
				}
			}
		})
	}
}

func TestGlobAbsolutePattern(t *testing.T) {
	env := globTestEnv(t)
	res := call(t, env, "glob", map[string]any{"pattern": filepath.ToSlash(env.Root) + "/cmd/**/*.go"})
	if got, want := outputLines(res.Content), []string{"cmd/app/main_test.go", "cmd/app/main.go"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGlobOrderAndCap(t *testing.T) {
	files := map[string]string{}
	for i := range globMaxResults + 20 {
		files[fmt.Sprintf("d%d/f%03d.txt", i%4, i)] = ""
	}
	env := testEnv(t, files)
	// Equal times except two: the newest comes first, the rest by path.
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for name := range files {
		setMtime(t, filepath.Join(env.Root, filepath.FromSlash(name)), old)
	}
	setMtime(t, filepath.Join(env.Root, "d3/f003.txt"), old.Add(2*time.Hour))
	setMtime(t, filepath.Join(env.Root, "d2/f002.txt"), old.Add(time.Hour))

	res := call(t, env, "glob", map[string]any{"pattern": "**/*.txt"})
	got := outputLines(res.Content)
	if len(got) != globMaxResults {
		t.Fatalf("%d paths, want %d", len(got), globMaxResults)
	}
	if want := []string{"d3/f003.txt", "d2/f002.txt", "d0/f000.txt", "d0/f004.txt"}; !slices.Equal(got[:4], want) {
		t.Errorf("first paths %q, want %q", got[:4], want)
	}
	if !strings.Contains(res.Content, "20 more files not shown: 520 files match in all") {
		t.Errorf("no note of the rest:\n%s", res.Content[len(res.Content)-200:])
	}
	if res.Summary != "520 files" {
		t.Errorf("summary %q", res.Summary)
	}
}

// TestGlobNewest checks that globNewest keeps the same matches, in the
// same order, as sorting them all and cutting, whatever the order they
// arrive in: equal times fall back to the path.
func TestGlobNewest(t *testing.T) {
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name         string
		n, limit     int
		distinctTime int
	}{
		{"none", 0, 5, 1},
		{"fewer than the limit", 3, 5, 3},
		{"as many as the limit", 5, 5, 5},
		{"more, distinct times", 200, 7, 200},
		{"more, shared times", 200, 7, 4},
		{"more, one time", 50, 10, 1},
		{"more, zero times", 50, 10, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(c.n)))
			var all []globMatch
			for i := range c.n {
				m := globMatch{path: fmt.Sprintf("/w/f%03d", i), mtime: day.Add(time.Duration(i%c.distinctTime) * time.Second)}
				if strings.Contains(c.name, "zero") {
					m.mtime = time.Time{}
				}
				all = append(all, m)
			}
			rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			h := globNewest{limit: c.limit}
			for _, m := range all {
				h.add(m)
			}
			want := slices.Clone(all)
			slices.SortFunc(want, globBefore)
			want = want[:min(len(want), c.limit)]
			if got := h.sorted(); !slices.Equal(got, want) || h.total != c.n {
				t.Errorf("kept %v of %d, want %v of %d", got, h.total, want, c.n)
			}
		})
	}
}
