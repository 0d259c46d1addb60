package graph

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeclarations asks gopls, pyright and typescript-language-server
// for a file's top-level declarations: named and kinded as each server
// names them, in the order of the file, members left in their type; the
// editor's unsaved buffer is what is asked about.
func TestDeclarations(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		server, file string
		files        map[string]string
		buffer       string // the editor's text of file, when set
		want         string
	}{
		{
			server: "gopls",
			file:   "calc/calc.go",
			files: map[string]string{
				"go.mod":       "module example.com/m\n\ngo 1.22\n",
				"calc/calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
			},
			buffer: "package calc\n\n// Calc adds up.\ntype Calc struct {\n\tSum int\n}\n\nfunc (c *Calc) Add(n int) { c.Sum += n }\n\ntype ID int\n\nconst Zero = 0\n\nfunc New() *Calc { return &Calc{} }\n",
			want:   "struct Calc:4, method (*Calc).Add:8, class ID:10, constant Zero:12, function New:14",
		},
		{
			server: "pyright",
			file:   "calc/__init__.py",
			files: map[string]string{
				"pyproject.toml":   "[project]\nname = \"calc\"\n",
				"calc/__init__.py": "\"\"\"Adds numbers.\"\"\"\n\nLIMIT = 10\n\n\nclass Calc:\n    def add(self, n):\n        return n\n\n\ndef _helper():\n    pass\n\n\ndef total(xs):\n    return sum(xs)\n",
			},
			want: "constant LIMIT:3, class Calc:6, function _helper:11, function total:15",
		},
		{
			server: "typescript-language-server",
			file:   "src/index.ts",
			files: map[string]string{
				"package.json": "{\"name\": \"calc\"}\n",
				"src/index.ts": "export const LIMIT = 10;\n\nexport class Calc {\n  add(n: number): number {\n    return n;\n  }\n}\n\nexport function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n\ninterface Shape {\n  area(): number;\n}\n",
			},
			want: "constant LIMIT:1, class Calc:3, function total:9, interface Shape:13",
		},
	} {
		t.Run(c.server, func(t *testing.T) {
			t.Parallel()
			srv := requireServer(t, c.server)
			root := writeModule(t, c.files)
			path := filepath.Join(root, filepath.FromSlash(c.file))
			fsys := &overlayFS{docs: map[string]string{}}
			if c.buffer != "" {
				fsys.docs[path] = c.buffer
			}
			m := newManager(t, root, fsys, fsys, srv)
			decls, err := m.Declarations(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range decls {
				got = append(got, fmt.Sprintf("%s %s:%d", d.Kind, d.Name, d.Line))
			}
			if g := strings.Join(got, ", "); g != c.want {
				t.Errorf("Declarations:\n got %s\nwant %s", g, c.want)
			}
			if none, err := m.Declarations(t.Context(), filepath.Join(root, "README.md")); none != nil || err != nil {
				t.Errorf("a file no server handles: %v, %v", none, err)
			}
		})
	}
}
