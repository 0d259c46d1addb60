package graph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPythonMarkers(t *testing.T) {
	t.Parallel()
	pyright := requireServer(t, "pyright")
	mc := loadMarkerCase(t, filepath.Join("testdata", "python", "calc.txtar"))
	m := newManager(t, mc.root, nil, nil, pyright)
	mc.checkGoldens(t, m)
	mc.checkReferences(t, m)
}

func TestTypeScriptMarkers(t *testing.T) {
	t.Parallel()
	ts := requireServer(t, "typescript-language-server")
	mc := loadMarkerCase(t, filepath.Join("testdata", "typescript", "calc.txtar"))
	m := newManager(t, mc.root, nil, nil, ts)
	mc.checkGoldens(t, m)
	mc.checkReferences(t, m)
}

// TestPushVerify checks Verify against servers that push diagnostics
// without versions (typescript-language-server) and that answer pulls
// (pyright): an edit that breaks a file is reported, the fix clears it.
func TestPushVerify(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		server, dir, file, from, to, want string
	}{
		{"typescript-language-server", "typescript", "calc.ts", "return a + b;", `return "a + b";`,
			"\n\nDiagnostics after the edit (typescript-language-server):\ncalc.ts:10:3: error: Type 'string' is not assignable to type 'number'."},
		{"pyright", "python", "calc.py", "return a + b", `return "a + b"`,
			"\n\nDiagnostics after the edit (pyright):\ncalc.py:10:12: error: Type \"Literal['a + b']\" is not assignable to return type \"int\" \"Literal['a + b']\" is not assignable to \"int\""},
	} {
		t.Run(c.server, func(t *testing.T) {
			t.Parallel()
			srv := requireServer(t, c.server)
			mc := loadMarkerCase(t, filepath.Join("testdata", c.dir, "calc.txtar"))
			m := newManager(t, mc.root, nil, nil, srv)
			path := mc.abs(c.file)
			if got := m.Verify(t.Context(), []string{path}); got != "" {
				t.Fatalf("Verify before the edit = %q", got)
			}
			orig, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(strings.Replace(string(orig), c.from, c.to, 1)), 0o644)
			start := time.Now()
			if got := m.Verify(t.Context(), []string{path}); got != c.want {
				t.Errorf("Verify after the edit:\n got %q\nwant %q", got, c.want)
			}
			t.Logf("Verify with an error: %v", time.Since(start))
			os.WriteFile(path, orig, 0o644)
			start = time.Now()
			if got := m.Verify(t.Context(), []string{path}); got != "" {
				t.Errorf("Verify after the fix = %q", got)
			}
			t.Logf("Verify, clean: %v", time.Since(start))
		})
	}
}
