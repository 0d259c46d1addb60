package graph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiagnoseTexts: Diagnose reports on the texts it is given, not on
// the files, which stay as they are; asked about the files again, the
// server sees them as they are.
func TestDiagnoseTexts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		server, dir, file, from, to, want string
	}{
		{"gopls", "go", "calc/calc.go", "return a + b", `return "a + b"`,
			`calc/calc.go:10:33: cannot use "a + b" (untyped string constant) as int value in return statement`},
		{"typescript-language-server", "typescript", "calc.ts", "return a + b;", `return "a + b";`,
			"calc.ts:10:3: Type 'string' is not assignable to type 'number'."},
		{"pyright", "python", "calc.py", "return a + b", `return "a + b"`,
			`calc.py:10:12: Type "Literal['a + b']" is not assignable to return type "int"`},
	} {
		t.Run(c.server, func(t *testing.T) {
			t.Parallel()
			srv := requireServer(t, c.server)
			mc := loadMarkerCase(t, filepath.Join("testdata", c.dir, "calc.txtar"))
			m := newManager(t, mc.root, nil, nil, srv)
			path := mc.abs(c.file)
			if !m.Checks(path) || m.Checks(mc.abs("README")) {
				t.Fatalf("Checks(%s) = %v, Checks(README) = %v", c.file, m.Checks(path), m.Checks(mc.abs("README")))
			}
			orig, _ := os.ReadFile(path)
			broken := strings.Replace(string(orig), c.from, c.to, 1)
			got, err := m.Diagnose(t.Context(), []string{path}, map[string]string{path: broken})
			if err != nil {
				t.Fatal(err)
			}
			var errs []string
			for _, d := range got {
				if d.Severity == "error" {
					errs = append(errs, d.String())
				}
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0], c.want) {
				t.Errorf("Diagnose of the broken text: %q, want %q", errs, c.want)
			}
			if disk, _ := os.ReadFile(path); string(disk) != string(orig) {
				t.Error("Diagnose wrote the file")
			}
			got, err = m.Diagnose(t.Context(), []string{path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range got {
				if d.Severity == "error" {
					t.Errorf("Diagnose of the file as it is: %s", d)
				}
			}
		})
	}
}
