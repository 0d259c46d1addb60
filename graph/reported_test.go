package graph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestGoReported asks for one file's diagnostics as an editor's request
// for code actions does: a server not started yet is reported as
// starting, and goes on starting; once up, the diagnostics describe the
// unsaved buffer, with ranges counted in characters, and go when the
// buffer is fixed.
func TestGoReported(t *testing.T) {
	t.Parallel()
	gopls := requireServer(t, "gopls")
	mc := loadMarkerCase(t, filepath.Join("testdata", "go", "calc.txtar"))
	path := mc.abs("calc/calc.go")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const good = "func Add(a, b int) int { return a + b }"
	bad := "func Add(a, b int) int { /* é, ü */ return a + zz }"
	fsys := &overlayFS{docs: map[string]string{path: strings.Replace(string(orig), good, bad, 1)}}
	m := newManager(t, mc.root, fsys, fsys, gopls)
	ctx := t.Context()

	// A wait that is over before it begins: the server is only started.
	if _, err := m.Reported(ctx, path, 0); err == nil || !strings.Contains(err.Error(), "gopls is still starting") {
		t.Fatalf("Reported before gopls is up: %v", err)
	}

	got, err := m.Reported(ctx, path, coldWait+time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	col := utf8.RuneCountInString(bad[:strings.Index(bad, "zz")]) + 1
	if len(got) != 1 {
		t.Fatalf("Reported: %v, want one diagnostic", got)
	}
	d := got[0]
	if d.File != "calc/calc.go" || d.Line != 10 || d.Column != col || d.EndLine != 10 || d.EndColumn != col+2 ||
		d.Severity != "error" || d.Message != "undefined: zz" || d.Server != "gopls" {
		t.Errorf("Reported: %+v, want calc/calc.go:10:%d-10:%d error undefined: zz from gopls", d, col, col+2)
	}

	fsys.docs[path] = string(orig)
	if got, err := m.Reported(ctx, path, coldWait); err != nil || len(got) != 0 {
		t.Errorf("Reported after the buffer was fixed: %v, %v", got, err)
	}
	// A file no server handles has nothing to report.
	if got, err := m.Reported(ctx, mc.abs("go.mod"), time.Second); err != nil || got != nil {
		t.Errorf("Reported for go.mod: %v, %v", got, err)
	}
}
