package graph

import (
	"os"
	"path/filepath"
	"strconv"
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

// TestWorkspaceTypeScriptIsNotRun: a repository that commits its own
// TypeScript where typescript-language-server looks first — .yarn/sdks,
// .vscode/pnpify, node_modules — does not get it run by a question to the
// graph: the graph pins the TypeScript installed beside the server, and
// the answer comes from it.
func TestWorkspaceTypeScriptIsNotRun(t *testing.T) {
	t.Parallel()
	ts := requireServer(t, "typescript-language-server")
	for _, dir := range []string{".yarn/sdks/typescript", ".vscode/pnpify/typescript", "node_modules/typescript"} {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			mc := loadMarkerCase(t, filepath.Join("testdata", "typescript", "calc.txtar"))
			marker := filepath.Join(t.TempDir(), "ran")
			lib := filepath.Join(mc.root, filepath.FromSlash(dir), "lib")
			if err := os.MkdirAll(lib, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(mc.root, filepath.FromSlash(dir), "package.json"), []byte(`{"name": "typescript", "version": "5.9.2"}`), 0o644)
			os.WriteFile(filepath.Join(lib, "tsserver.js"), []byte("require('fs').writeFileSync("+strconv.Quote(marker)+", 'ran');\n"), 0o644)
			m := newManager(t, mc.root, nil, nil, ts)
			mc.checkGoldens(t, m)
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the workspace's %s/lib/tsserver.js ran", dir)
			}
		})
	}
}

// TestTypeScriptPinnedBesideTheServer: the TypeScript the graph names is
// the one installed with the language server; a configured one is kept;
// a server installed without one is not started.
func TestTypeScriptPinnedBesideTheServer(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "lib", "node_modules", "typescript-language-server", "lib", "cli.mjs")
	tsserver := filepath.Join(root, "lib", "node_modules", "typescript", "lib", "tsserver.js")
	for _, f := range []string{bin, tsserver} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, nil, 0o755)
	}
	link := filepath.Join(root, "bin", "typescript-language-server")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	opts, err := pinTypeScript(link, map[string]any{"tsserver": map[string]any{"useSyntaxServer": "never"}})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(tsserver)
	if ts := opts["tsserver"].(map[string]any); ts["path"] != want || ts["useSyntaxServer"] != "never" {
		t.Errorf("pinned options = %v, want path %s", opts, want)
	}
	mine := map[string]any{"tsserver": map[string]any{"path": "/opt/ts/lib/tsserver.js"}}
	if opts, err := pinTypeScript(link, mine); err != nil || opts["tsserver"].(map[string]any)["path"] != "/opt/ts/lib/tsserver.js" {
		t.Errorf("a configured path: %v, %v", opts, err)
	}
	os.Remove(tsserver)
	if _, err := pinTypeScript(link, nil); err == nil || !strings.Contains(err.Error(), "the workspace's own is not run") {
		t.Errorf("without TypeScript beside the server: %v", err)
	}
}
