package projectdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestDraft: the draft names the build and test commands of each build
// file, the top-level directories with what they hold, and the Go
// packages with their doc and exported types; a file the read rules
// withhold is not read.
func TestDraft(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod":                     "module example.com/calc\n\ngo 1.22\n",
		"Makefile":                   ".PHONY: all test\nall: build\nrelease:\n\tgo build\nbuild:\n\tgo build ./...\ntest: build\n\tgo test ./...\nVAR := x\n%.o: %.c\n",
		"package.json":               `{"scripts": {"test": "node --test", "build": "esbuild"}}`,
		"pyproject.toml":             "[project]\nname = \"calc\"\n[tool.pytest.ini_options]\n",
		"calc.go":                    "// Package calc adds numbers. It is small.\npackage calc\n\ntype Calc struct{}\ntype op int\n",
		"calc_test.go":               "package calc\n\ntype TestOnly struct{}\n",
		"internal/num/num.go":        "package num\n\ntype Int int\ntype (\n\tFloat float64\n\tComplex struct{}\n)\n",
		"internal/num/testdata/x.go": "package broken\n\ntype Hidden int\n",
		"web/app.ts":                 "export const x = 1;\n",
		"web/b.ts":                   "export const y = 1;\n",
		"web/c.js":                   "",
		"secret/s.go":                "package secret\n\ntype Key string\n",
	})
	draft, err := Draft(t.Context(), root, Options{Withhold: func(p string) bool { return strings.Contains(p, "secret") }})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# AGENTS.md\n",
		"\n## Build and test\n\n- `go build ./...` builds and `go test ./...` tests (go.mod: module example.com/calc, Go 1.22)",
		"\n- Makefile targets: `make build`, `make test`, `make all`, `make release`\n",
		"\n- package.json scripts: `npm run build`, `npm run test`\n",
		"\n- Python (pyproject.toml): `pip install -e .` installs it; `pytest` tests\n",
		"\n## Layout\n\n- `internal/` — 2 Go files\n- `web/` — 2 TypeScript, 1 JavaScript files\n",
		"\n## Go packages\n\n- `.` (package calc): Package calc adds numbers. Types: Calc.\n- `internal/num` (package num) Types: Complex, Float, Int.\n",
	} {
		if !strings.Contains(draft, want) {
			t.Errorf("the draft lacks %q:\n%s", want, draft)
		}
	}
	for _, not := range []string{"secret", "Key", "TestOnly", "Hidden", "VAR", ".PHONY"} {
		if strings.Contains(draft, not) {
			t.Errorf("the draft holds %q:\n%s", not, draft)
		}
	}
	again, _ := Draft(t.Context(), root, Options{Withhold: func(p string) bool { return strings.Contains(p, "secret") }})
	if again != draft {
		t.Errorf("two drafts of one tree differ:\n%s\n---\n%s", draft, again)
	}
}

// TestMerge: an existing AGENTS.md is kept as it is, and gets the
// draft's sections it lacks, matched by heading whatever their case.
func TestMerge(t *testing.T) {
	draft := "# AGENTS.md\n\nIntro.\n\n## Build and test\n\n- `go test ./...`\n\n## Layout\n\n- `cmd/`\n"
	cases := []struct {
		existing, want string
		added          []string
	}{
		{"# Notes\n\nUse tabs.\n", "# Notes\n\nUse tabs.\n\n## Build and test\n\n- `go test ./...`\n\n## Layout\n\n- `cmd/`\n", []string{"Build and test", "Layout"}},
		{"# Notes\n\n## build and test\n\nmake it\n", "# Notes\n\n## build and test\n\nmake it\n\n## Layout\n\n- `cmd/`\n", []string{"Layout"}},
		{"## Layout\nx\n## Build and test\ny", "## Layout\nx\n## Build and test\ny\n", nil},
	}
	for _, c := range cases {
		got, added := Merge(c.existing, draft)
		if got != c.want || strings.Join(added, "|") != strings.Join(c.added, "|") {
			t.Errorf("Merge(%q):\n%q, %v\nwant\n%q, %v", c.existing, got, added, c.want, c.added)
		}
	}
}
