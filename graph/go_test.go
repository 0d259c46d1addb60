package graph

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
)

func TestGoMarkers(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "calc.txtar"))
	m := newManager(t, mc.root, nil, nil, gopls)
	mc.checkReferences(t, m)
	mc.checkGoldens(t, m)
}

// graph runs a question that must succeed and decodes its answer.
func graph(t *testing.T, m *Manager, q tools.GraphQuery) map[string]any {
	t.Helper()
	out, err := m.Query(t.Context(), q)
	if err != nil {
		t.Fatalf("%s: %v", q.Action, err)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%s: %v in %s", q.Action, err, out)
	}
	return res
}

func total(res map[string]any) int { n, _ := res["total"].(float64); return int(n) }

// first returns the first entry of a result list.
func first(t *testing.T, res map[string]any, key string) map[string]any {
	t.Helper()
	list, _ := res[key].([]any)
	if len(list) == 0 {
		t.Fatalf("no %s in %v", key, res)
	}
	return list[0].(map[string]any)
}

// TestGoOverlay checks that the editor's unsaved buffers are what gopls
// answers about: a function that exists only in an unsaved new file is
// found, with its use in an unsaved edit of another file.
func TestGoOverlay(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "calc.txtar"))
	main, _ := os.ReadFile(mc.abs("main.go"))
	fsys := &overlayFS{docs: map[string]string{
		mc.abs("calc/extra.go"): "package calc\n\n// Mul is only in the editor.\nfunc Mul(a, b int) int { return a * b }\n",
		mc.abs("main.go"):       strings.Replace(string(main), "calc.Add(1, 2)", "calc.Mul(1, 2)", 1),
	}}
	m := newManager(t, mc.root, fsys, fsys, gopls)

	sym := first(t, graph(t, m, tools.GraphQuery{Action: "find_symbol", Symbol: "Mul"}), "symbols")
	if sym["path"] != "calc/extra.go" || sym["line"] != 4.0 || sym["column"] != 6.0 {
		t.Errorf("find_symbol Mul: %v, want calc/extra.go:4:6", sym)
	}
	refs := graph(t, m, tools.GraphQuery{Action: "find_references", Symbol: "Mul"})
	if total(refs) != 1 || first(t, refs, "references")["snippet"] != "c.Add(calc.Mul(1, 2)) //@ref(Calc.Add) //@ref(calc.Add)" {
		t.Errorf("find_references Mul: %v", refs)
	}
	// The buffer no longer calls Add from main.go.
	if refs := graph(t, m, tools.GraphQuery{Action: "find_references", Symbol: "calc.Add"}); total(refs) != 2 {
		t.Errorf("find_references calc.Add sees the disk, not the buffer: %v", refs)
	}
}

// TestGoVerifyAfterEdit edits files through the FS, as the agent's file
// tools do, and checks what Verify reports once gopls has settled.
func TestGoVerifyAfterEdit(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "calc.txtar"))
	fsys := tools.DiskFS{}
	m := newManager(t, mc.root, fsys, nil, gopls)
	ctx := t.Context()
	path := mc.abs("calc/calc.go")
	orig, _ := os.ReadFile(path)
	write := func(content string) {
		t.Helper()
		if err := fsys.Apply(ctx, []tools.Change{{Kind: tools.Write, Path: path, Content: []byte(content)}}); err != nil {
			t.Fatal(err)
		}
	}

	if got := m.Verify(ctx, []string{path}); got != "" {
		t.Fatalf("Verify of the clean module = %q", got)
	}
	write(strings.Replace(string(orig), "return a + b", `return "a + b"`, 1))
	start := time.Now()
	got := m.Verify(ctx, []string{path})
	took := time.Since(start)
	want := "\n\nDiagnostics after the edit (gopls):\ncalc/calc.go:10:33: error: cannot use \"a + b\" (untyped string constant) as int value in return statement"
	if got != want {
		t.Errorf("Verify after the bad edit:\n got %q\nwant %q", got, want)
	}
	t.Logf("warm Verify with an error: %v", took)

	write(string(orig))
	start = time.Now()
	if got := m.Verify(ctx, []string{path}); got != "" {
		t.Errorf("Verify after the fix = %q", got)
	}
	t.Logf("warm Verify, clean: %v", time.Since(start))

	// A file without a language server has nothing to report.
	if got := m.Verify(ctx, []string{mc.abs("go.mod"), mc.abs("README")}); got != "" {
		t.Errorf("Verify of files without a server = %q", got)
	}
}

// TestGoRenameApplied applies Rename's changes and checks the module is
// still clean and every use was renamed.
func TestGoRenameApplied(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "calc.txtar"))
	fsys := tools.DiskFS{}
	m := newManager(t, mc.root, fsys, nil, gopls)
	ctx := t.Context()
	d := mc.defs["calc.Add"]
	changes, summary, err := m.Rename(ctx, mc.abs(d.Path), d.Line, d.Column, "Sum")
	if err != nil {
		t.Fatal(err)
	}
	if summary != "renamed Add to Sum: 5 edits in 2 files" {
		t.Errorf("summary %q", summary)
	}
	if err := fsys.Apply(ctx, changes); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	if got := m.Verify(ctx, paths); got != "" {
		t.Errorf("Verify after the rename = %q", got)
	}
	if refs := graph(t, m, tools.GraphQuery{Action: "find_references", Symbol: "calc.Sum"}); total(refs) != len(mc.refs["calc.Add"]) {
		t.Errorf("after the rename, references of Sum: %v, want %d", refs, len(mc.refs["calc.Add"]))
	}
	// Renaming to a name taken in the package is refused with gopls's
	// reason.
	d = mc.defs["Double"]
	if _, _, err := m.Rename(ctx, mc.abs(d.Path), d.Line, d.Column, "Label"); err == nil || !strings.Contains(err.Error(), "conflicts with func in same block") {
		t.Errorf("Rename Double to Label: %v", err)
	}
}

// TestGoChangesOnDisk changes files behind the server's back, as shell
// commands do: a file reported as changed is seen, and so is a change to
// a file the server has open, without being reported.
func TestGoChangesOnDisk(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "calc.txtar"))
	m := newManager(t, mc.root, nil, nil, gopls)

	if n := total(graph(t, m, tools.GraphQuery{Action: "find_symbol", Symbol: "Triple"})); n != 0 {
		t.Fatalf("Triple found before it exists")
	}
	triple := mc.abs("calc/triple.go")
	if err := os.WriteFile(triple, []byte("package calc\n\nfunc Triple(a int) int { return 3 * a }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := graph(t, m, tools.GraphQuery{Action: "find_symbol", Symbol: "Triple", Changed: []string{triple}})
	if total(res) != 1 || first(t, res, "symbols")["path"] != "calc/triple.go" {
		t.Errorf("find_symbol Triple after the file was created: %v", res)
	}

	// Asking from main.go opens it in gopls; a later change on disk is
	// read again before the next question.
	r := mc.refs["Double"][0]
	q := tools.GraphQuery{Action: "find_references", Path: mc.abs(r.Path), Line: r.Line, Column: r.Column}
	if n := total(graph(t, m, q)); n != 1 {
		t.Fatalf("references of Double: %d, want 1", n)
	}
	main, _ := os.ReadFile(mc.abs("main.go"))
	changed := strings.Replace(string(main), "\n}\n", "\n\tprintln(calc.Double(4))\n}\n", 1)
	if err := os.WriteFile(mc.abs("main.go"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := total(graph(t, m, q)); n != 2 {
		t.Errorf("references of Double after main.go changed on disk: %d, want 2", n)
	}
}

// TestGoDiskChanged changes files on disk without naming them, as a shell
// command does: after DiskChanged, gopls sees a file created, then one
// removed.
func TestGoDiskChanged(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "calc.txtar"))
	m := newManager(t, mc.root, nil, nil, gopls)
	find := tools.GraphQuery{Action: "find_symbol", Symbol: "Quadruple"}
	if n := total(graph(t, m, find)); n != 0 {
		t.Fatalf("Quadruple found before it exists")
	}
	quad := mc.abs("calc/quad.go")
	if err := os.WriteFile(quad, []byte("package calc\n\nfunc Quadruple(a int) int { return 4 * a }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.DiskChanged()
	res := graph(t, m, find)
	if total(res) != 1 || first(t, res, "symbols")["path"] != "calc/quad.go" {
		t.Errorf("find_symbol Quadruple after a file was created: %v", res)
	}
	if err := os.Remove(quad); err != nil {
		t.Fatal(err)
	}
	m.DiskChanged()
	if res := graph(t, m, find); total(res) != 0 {
		t.Errorf("find_symbol Quadruple after its file was removed: %v", res)
	}
}

// TestGoRestartAfterKill kills gopls between two questions; the second is
// answered by a new gopls without the caller noticing. Close then shuts
// it down.
func TestGoRestartAfterKill(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "calc.txtar"))
	m := newManager(t, mc.root, nil, nil, gopls)
	q := tools.GraphQuery{Action: "find_references", Symbol: "calc.Add"}
	want := len(mc.refs["calc.Add"])
	if n := total(graph(t, m, q)); n != want {
		t.Fatalf("references: %d, want %d", n, want)
	}
	// Killed just before the question: it may still look alive when the
	// question starts.
	s := onlyServer(t, m)
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if n := total(graph(t, m, q)); n != want {
		t.Fatalf("references after the kill: %d, want %d", n, want)
	}
	// Killed between questions.
	s = onlyServer(t, m)
	s.cmd.Process.Kill()
	<-s.exited
	if n := total(graph(t, m, q)); n != want {
		t.Fatalf("references after the second kill: %d, want %d", n, want)
	}
	s2 := onlyServer(t, m)
	if s2 == s || !s2.alive() {
		t.Fatalf("no new gopls after the kill")
	}
	pid := s2.cmd.Process.Pid
	m.Close()
	if s2.alive() {
		t.Fatal("gopls still running after Close")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("gopls process %d still exists after Close", pid)
	}
}

// onlyServer returns the Manager's one running server.
func onlyServer(t *testing.T, m *Manager) *server {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	var found *server
	for _, sv := range m.sups {
		if s := sv.running(); s != nil {
			if found != nil {
				t.Fatal("more than one server running")
			}
			found = s
		}
	}
	if found == nil {
		t.Fatal("no server running")
	}
	return found
}

// TestCancelledContext checks that a question returns when its context
// ends, even while its server is still starting: the server here never
// answers initialize, so a question that waited for the start would hang.
func TestCancelledContext(t *testing.T) {
	t.Parallel()
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "calc.txtar"))
	mute := ServerSpec{Name: "gopls", Command: []string{"sleep", "3600"}}
	m := newManager(t, mc.root, nil, nil, mute)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	_, err := m.Query(ctx, tools.GraphQuery{Action: "find_references", Path: mc.abs("main.go"), Line: 1, Column: 1})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the deadline", err)
	}
	cancel()
	if got := m.Verify(ctx, []string{mc.abs("main.go")}); got != "" {
		t.Errorf("Verify with a cancelled context = %q", got)
	}
}

// TestMissingServers checks that a missing server says which it is and
// how to install it, and that Verify stays quiet.
func TestMissingServers(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("PATH", empty)
	t.Setenv("GOBIN", empty)
	for _, c := range []struct {
		marker, file, want string
	}{
		{"go.mod", "main.go", "language server gopls is not installed (\"gopls\" not found on PATH); install it with: go install golang.org/x/tools/gopls@v0.23.0"},
		{"pyproject.toml", "main.py", "install it with: npm install -g pyright"},
		{"tsconfig.json", "main.ts", "install it with: npm install -g typescript-language-server typescript"},
	} {
		root := t.TempDir()
		for _, f := range []string{c.marker, c.file} {
			if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		m := newManager(t, root, nil, nil)
		_, err := m.Query(t.Context(), tools.GraphQuery{Action: "find_symbol", Symbol: "main"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: find_symbol error %v, want it to contain %q", c.file, err, c.want)
		}
		_, err = m.Query(t.Context(), tools.GraphQuery{Action: "diagnostics", Path: filepath.Join(root, c.file)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: diagnostics error %v, want it to contain %q", c.file, err, c.want)
		}
		if got := m.Verify(t.Context(), []string{filepath.Join(root, c.file)}); got != "" {
			t.Errorf("%s: Verify = %q", c.file, got)
		}
	}
}

// TestRestartBudget uses a "server" that dies at once: each question
// tries again until the restart budget is spent, then says so.
func TestRestartBudget(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, "a.fake")
	os.WriteFile(path, nil, 0o644)
	m := newManager(t, root, nil, nil, ServerSpec{Name: "fake", Command: []string{"sh", "-c", "echo dying >&2; exit 3"}, Extensions: []string{".fake"}})
	q := tools.GraphQuery{Action: "definition", Path: path, Line: 1, Column: 1}
	for i := range restartLimit + 1 {
		_, err := m.Query(t.Context(), q)
		if err == nil || !strings.Contains(err.Error(), "initializing fake") || !strings.Contains(err.Error(), "dying") {
			t.Fatalf("start %d: %v", i+1, err)
		}
	}
	_, err := m.Query(t.Context(), q)
	if err == nil || !strings.Contains(err.Error(), "was restarted 3 times in the last 5m0s and is not started again") {
		t.Fatalf("after the budget: %v", err)
	}
}

// TestConcurrentQuestions asks many questions at once, as parallel tool
// calls do; run with -race.
func TestConcurrentQuestions(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "calc.txtar"))
	m := newManager(t, mc.root, nil, nil, gopls)
	qs := []tools.GraphQuery{
		{Action: "find_symbol", Symbol: "Add"},
		{Action: "find_references", Symbol: "calc.Add"},
		{Action: "definition", Symbol: "Label"},
		{Action: "diagnostics", Path: mc.abs("main.go")},
		{Action: "rename_check", Path: mc.abs("calc/calc.go"), Line: 13, Column: 6, NewName: "Twice"},
	}
	errs := make(chan error, 4*len(qs))
	for range 4 {
		for _, q := range qs {
			go func() {
				_, err := m.Query(t.Context(), q)
				errs <- err
			}()
		}
	}
	for range 4 * len(qs) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := m.Verify(t.Context(), []string{mc.abs("main.go"), mc.abs("calc/calc.go")}); got != "" {
		t.Errorf("Verify = %q", got)
	}
}

func TestGoNavigationMarkers(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "nav.txtar"))
	m := newManager(t, mc.root, nil, nil, gopls)
	mc.checkGoldens(t, m)
}

// TestGoCallsFromAUse asks about calls from a use of a function rather
// than its name: incoming_calls at the call of Add in Twice finds Twice
// as Add's caller, outgoing_calls there finds none, as Add calls
// nothing, and hover gives Add's signature and doc.
func TestGoCallsFromAUse(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "nav.txtar"))
	m := newManager(t, mc.root, nil, nil, gopls)
	use := tools.GraphQuery{Path: mc.abs("calc/calc.go"), Line: 7, Column: 32} // Add in Twice's body

	use.Action = "incoming_calls"
	in := graph(t, m, use)
	if call := first(t, in, "calls"); total(in) != 1 || call["caller"] != "Twice" || call["path"] != "calc/calc.go" || call["line"] != 7.0 {
		t.Errorf("incoming_calls of Add: %v, want Twice at calc/calc.go:7", in)
	}
	if def := in["definition"].(map[string]any); def["name"] != "Add" || def["line"] != 4.0 {
		t.Errorf("incoming_calls of Add: definition %v, want Add at line 4", def)
	}
	use.Action = "outgoing_calls"
	if out := graph(t, m, use); total(out) != 0 {
		t.Errorf("outgoing_calls of Add: %v, want none", out)
	}
	use.Action = "hover"
	if h := graph(t, m, use); h["hover"] != "func Add(a int, b int) int\nAdd returns the sum of a and b." {
		t.Errorf("hover at a use of Add: %v", h)
	}
}

// TestGoNavigationWithheld: with calc.go withheld by the rules about
// reading, a call site in it keeps its place and loses its snippet and
// caller, and the hover of a calc function asked from another file is
// withheld, since its doc is calc.go's text.
func TestGoNavigationWithheld(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "nav.txtar"))
	m := newManager(t, mc.root, nil, nil, gopls)
	withhold := func(p string) bool { return filepath.Base(p) == "calc.go" }

	out, err := m.Query(t.Context(), tools.GraphQuery{Action: "incoming_calls", Symbol: "Twice", Withhold: withhold})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "Quad") || strings.Contains(out, "return Twice") || !strings.Contains(out, `"path":"calc/calc.go","line":11,"column":9,"withheld":true`) || !strings.Contains(out, `"caller":"(Square).Sides"`) {
		t.Errorf("incoming_calls of Twice with calc.go withheld: %s", out)
	}
	// calc.Twice(2) in shape.go.
	out, err = m.Query(t.Context(), tools.GraphQuery{Action: "hover", Path: mc.abs("shape/shape.go"), Line: 23, Column: 43, Withhold: withhold})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "doubled") || !strings.Contains(out, `"withheld":true`) {
		t.Errorf("hover of calc.Twice with calc.go withheld: %s", out)
	}
}
