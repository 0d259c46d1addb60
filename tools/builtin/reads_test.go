package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

// The private files' text in the tests of the rules about reading.
const privateMark = "PRIVATE-TEXT"

// readRulesTestEnv returns a workspace with private files (a rule denies
// reading private/**), drafts (a rule asks about drafts/**), public files,
// and links to the private ones, with those rules in its Env.
func readRulesTestEnv(t *testing.T) *tools.Env {
	t.Helper()
	env := testEnv(t, map[string]string{
		"private/a.txt":      "MARK " + privateMark + " a\n",
		"private/deep/b.txt": "MARK " + privateMark + " b\n",
		"drafts/d.txt":       "MARK draft\n",
		"pub/p.txt":          "MARK public\n",
		"top.txt":            "MARK top\n",
	})
	for name, target := range map[string]string{"plink": "private/a.txt", "pdir": "private"} {
		if err := os.Symlink(target, filepath.Join(env.Root, name)); err != nil {
			t.Fatal(err)
		}
	}
	setReadRules(t, env, []string{"Read(drafts/**)"}, []string{"Read(private/**)"})
	return env
}

func setReadRules(t *testing.T, env *tools.Env, ask, deny []string) {
	t.Helper()
	p, err := permission.NewPolicy("ask", nil, ask, deny)
	if err != nil {
		t.Fatal(err)
	}
	p.Root = env.Root
	env.ReadRules = p.ReadRules()
}

// TestReadRulesInWalks: grep, glob and ls leave out what the rules cover,
// say how many paths they left out, and name none of them.
func TestReadRulesInWalks(t *testing.T) {
	env := readRulesTestEnv(t)
	const denied = "left out: the permission rules deny reading"
	const asked = "left out: the permission rules ask before"
	tests := []struct {
		tool   string
		args   map[string]any
		want   []string
		absent []string
	}{
		{"grep", map[string]any{"pattern": "MARK"}, []string{"top.txt:1:MARK top", "pub/p.txt:1:MARK public", "(1 path " + denied, "(1 path " + asked}, []string{privateMark, "private", "draft"}},
		{"grep", map[string]any{"pattern": "MARK", "output_mode": "count"}, []string{"top.txt:1", denied}, []string{"private", "drafts/"}},
		{"grep", map[string]any{"pattern": "nothing like it"}, []string{"No matches", denied}, []string{"private"}},
		// The gate asked about this walk of drafts: its files are shown.
		{"grep", map[string]any{"pattern": "MARK", "path": "drafts"}, []string{"drafts/d.txt:1:MARK draft"}, []string{"left out"}},
		{"grep", map[string]any{"pattern": "MARK", "path": "pdir"}, []string{"the permission rules deny reading it", "Read(private/**)"}, []string{privateMark}},
		{"grep", map[string]any{"pattern": "MARK", "path": "plink"}, []string{"the permission rules deny reading it"}, []string{privateMark}},
		{"glob", map[string]any{"pattern": "**/*"}, []string{"top.txt", "pub/p.txt", "plink", denied, asked}, []string{"a.txt", "b.txt", "d.txt"}},
		{"glob", map[string]any{"pattern": "deep/*", "path": "pdir"}, []string{"the permission rules deny reading it"}, []string{"b.txt"}},
		{"glob", map[string]any{"pattern": "private/**"}, []string{"the permission rules deny reading it"}, []string{"a.txt"}},
		{"glob", map[string]any{"pattern": "drafts/*"}, []string{"the permission rules ask before it is read"}, []string{"d.txt"}},
		// The links are judged by where they lead.
		{"ls", map[string]any{}, []string{"pub/", "top.txt", "(3 paths " + denied, "(1 path " + asked}, []string{"private", "drafts", "pdir", "plink"}},
		{"ls", map[string]any{"path": "private"}, []string{"deny reading"}, []string{"a.txt", "deep"}},
	}
	for _, tt := range tests {
		res := call(t, env, tt.tool, tt.args)
		for _, w := range tt.want {
			if !strings.Contains(res.Content, w) {
				t.Errorf("%s %v lacks %q:\n%s", tt.tool, tt.args, w, res.Content)
			}
		}
		for _, a := range tt.absent {
			if strings.Contains(res.Content, a) {
				t.Errorf("%s %v holds %q:\n%s", tt.tool, tt.args, a, res.Content)
			}
		}
	}

	// A directory of nothing but private files lists nothing, and says
	// why.
	res := call(t, env, "ls", map[string]any{"path": "pub"})
	if strings.Contains(res.Content, "left out") {
		t.Errorf("ls pub: %s", res.Content)
	}
	setReadRules(t, env, nil, []string{"Read(pub/*)"})
	res = call(t, env, "ls", map[string]any{"path": "pub"})
	if !strings.Contains(res.Content, "holds nothing the tools may list") || strings.Contains(res.Content, "p.txt") {
		t.Errorf("ls of a directory of denied files: %s", res.Content)
	}
}

// TestReadRulesInChanges: the tools that read the file they change refuse
// one a rule denies reading, through any link, and their answers hold
// none of its text; writing a new file there is not reading.
func TestReadRulesInChanges(t *testing.T) {
	env := readRulesTestEnv(t)
	for _, c := range []struct {
		tool string
		args any
	}{
		{"edit_file", map[string]any{"path": "private/a.txt", "old_string": "MARK", "new_string": "x"}},
		{"edit_file", map[string]any{"path": "plink", "old_string": "guess", "new_string": "x"}},
		{"multi_edit", map[string]any{"path": "pdir/deep/b.txt", "edits": []map[string]any{{"old_string": "MARK", "new_string": "x"}}}},
		{"apply_patch", map[string]any{"patch": "--- a/private/a.txt\n+++ b/private/a.txt\n@@ -1 +1 @@\n-MARK guess\n+x\n"}},
		{"apply_patch", map[string]any{"patch": "--- a/private/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-MARK guess\n"}},
		{"apply_patch", map[string]any{"patch": "diff --git a/private/a.txt b/out.txt\nrename from private/a.txt\nrename to out.txt\n"}},
		{"apply_patch", map[string]any{"patch": "diff --git a/plink b/copy.txt\ncopy from plink\ncopy to copy.txt\n"}},
		{"bash", map[string]any{"command": "cat pdir/a.txt"}},
		{"bash", map[string]any{"command": "wc -c < private/deep/b.txt"}},
	} {
		res := call(t, env, c.tool, c.args)
		if !res.IsError || !strings.Contains(res.Content, "the permission rules deny reading it") || strings.Contains(res.Content, privateMark) {
			t.Errorf("%s %v:\n%s", c.tool, c.args, res.Content)
		}
	}
	for _, name := range []string{"out.txt", "copy.txt"} {
		if _, err := os.Lstat(filepath.Join(env.Root, name)); err == nil {
			t.Errorf("%s was made", name)
		}
	}
	if got := fileContent(t, env, "private/a.txt"); !strings.Contains(got, privateMark) {
		t.Errorf("private/a.txt changed: %q", got)
	}
	res := call(t, env, "write_file", map[string]any{"path": "private/new.txt", "content": "n\n"})
	if res.IsError {
		t.Errorf("write_file private/new.txt: %s", res.Content)
	}
	// A guess at a name does not suggest one the rules cover.
	res = call(t, env, "read_file", map[string]any{"path": "private/a.tx"})
	if strings.Contains(res.Content, "a.txt") {
		t.Errorf("read_file suggests a private name: %s", res.Content)
	}
	setReadRules(t, env, nil, []string{"Read(*.key)"})
	if err := os.WriteFile(filepath.Join(env.Root, "server.key"), []byte("k"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := call(t, env, "read_file", map[string]any{"path": "server.ky"}); strings.Contains(res.Content, "server.key") {
		t.Errorf("read_file suggests a denied name: %s", res.Content)
	}
}

// TestReadPaths: what each tool declares it reads, for the gate.
func TestReadPaths(t *testing.T) {
	for _, c := range []struct {
		tool string
		args string
		want []string
	}{
		{"read_file", `{"path": "a.go"}`, []string{"a.go"}},
		{"ls", `{}`, []string{""}},
		{"glob", `{"pattern": "**/*", "path": "src"}`, []string{"src"}},
		{"grep", `{"pattern": "x"}`, []string{""}},
		{"edit_file", `{"path": "a.go", "old_string": "a", "new_string": "b"}`, []string{"a.go"}},
		{"multi_edit", `{"path": "a.go", "edits": [{"old_string": "a", "new_string": "b"}]}`, []string{"a.go"}},
		{"move_file", `{"source": "a.go", "destination": "b.go"}`, []string{"a.go"}},
		{"project_graph", `{"action": "find_symbol", "symbol": "X"}`, nil},
		{"project_graph", `{"action": "diagnostics", "path": "a.go"}`, []string{"a.go"}},
		{"rename_symbol", `{"path": "a.go", "line": 1, "column": 1, "new_name": "B"}`, []string{"a.go"}},
		{"bash", `{"command": "cat private/a < in.txt | tee out.txt"}`, []string{"private/a", "<", "in.txt", "out.txt"}},
		{"apply_patch", `{"patch": "--- a/m.go\n+++ b/m.go\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/new.go\n@@ -0,0 +1 @@\n+n\n--- a/gone.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n"}`, []string{"m.go", "gone.go"}},
		{"apply_patch", `{"patch": "diff --git a/from.go b/to.go\nrename from from.go\nrename to to.go\n"}`, []string{"from.go"}},
		{"apply_patch", `{"patch": "diff --git a/x.orig b/x\n--- a/x.orig\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}`, []string{"x.orig", "x"}},
	} {
		fr, ok := lookup(t, c.tool).(tools.FileReader)
		if !ok {
			t.Errorf("%s declares no reads", c.tool)
			continue
		}
		got, err := fr.ReadPaths(json.RawMessage(c.args))
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s %s: ReadPaths = %q, %v; want %q", c.tool, c.args, got, err, c.want)
		}
	}
	if _, err := lookup(t, "read_file").(tools.FileReader).ReadPaths(json.RawMessage(`{"path": 1}`)); err == nil {
		t.Error("bad arguments declared")
	}
}

// TestProjectGraphWithholds: the graph is told which files' text to
// withhold: those a rule denies reading or asks about.
func TestProjectGraphWithholds(t *testing.T) {
	env := readRulesTestEnv(t)
	g := &queryGraph{}
	env.Graph = g
	call(t, env, "project_graph", map[string]any{"action": "find_symbol", "symbol": "X"})
	if g.q.Withhold == nil {
		t.Fatal("no Withhold")
	}
	for p, want := range map[string]bool{"private/a.txt": true, "drafts/d.txt": true, "pub/p.txt": false} {
		if got := g.q.Withhold(env.Abs(p)); got != want {
			t.Errorf("Withhold(%s) = %v", p, got)
		}
	}
	env.ReadRules = nil
	call(t, env, "project_graph", map[string]any{"action": "find_symbol", "symbol": "X"})
	if g.q.Withhold != nil {
		t.Error("Withhold without rules")
	}
}

// queryGraph records the last query.
type queryGraph struct {
	tools.ProjectGraph
	q tools.GraphQuery
}

func (g *queryGraph) Query(_ context.Context, q tools.GraphQuery) (string, error) {
	g.q = q
	return "{}", nil
}

// BenchmarkGlobReadRule globs a synthetic tree of 50,000 files with no
// rule about reading and with one, which every entry is matched against,
// and reports the ratio of their times as x-no-rule.
//
//	go test ./tools/builtin -run '^$' -bench GlobReadRule -benchtime 10x
func BenchmarkGlobReadRule(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	// 50 directories of 20 subdirectories of 50 files; the rule covers
	// one file name in each subdirectory, so it leaves out 1,000.
	for i := range 50 {
		for j := range 20 {
			dir := filepath.Join(root, fmt.Sprintf("pkg%02d", i), fmt.Sprintf("sub%02d", j))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for k := range 50 {
				name := fmt.Sprintf("file%02d.go", k)
				if k == 0 {
					name = "secret.key"
				}
				if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	args, _ := json.Marshal(map[string]any{"pattern": "**/*.go"})
	run := func(env *tools.Env) {
		res, err := (globTool{}).Execute(context.Background(), env, args)
		if err != nil || res.IsError {
			b.Fatalf("glob: %v %s", err, res.Content)
		}
	}
	plain := &tools.Env{Root: root, FS: tools.DiskFS{}}
	ruled := &tools.Env{Root: root, FS: tools.DiskFS{}}
	p, err := permission.NewPolicy("ask", nil, nil, []string{"Read(pkg*/**/secret.key)", "Read(private/**)"})
	if err != nil {
		b.Fatal(err)
	}
	p.Root = root
	ruled.ReadRules = p.ReadRules()
	// Each iteration runs both, in turns first, so neither gains from
	// running second.
	var times [2]float64
	envs := []*tools.Env{plain, ruled}
	n := 0
	for b.Loop() {
		for k := range 2 {
			i := (n + k) % 2
			start := time.Now()
			run(envs[i])
			times[i] += time.Since(start).Seconds()
		}
		n++
	}
	b.ReportMetric(times[1]/times[0], "x-no-rule")
	b.ReportMetric(times[0]*1000/float64(b.N), "no-rule-ms/op")
	b.ReportMetric(times[1]*1000/float64(b.N), "rule-ms/op")
}
