package walk

import (
	"path"
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pattern string
		path    string
		want    bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "a/b/main.go", true},
		{"*.go", "main.go.txt", false},
		{"./*.go", "main.go", true},
		{"./*.go", "a/main.go", false},
		{"/*.go", "a/main.go", false},
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"**/*_test.go", "tools/walk/glob_test.go", true},
		{"**/*_test.go", "tools/walk/glob.go", false},
		{"tools/**/*.go", "tools/a.go", true},
		{"tools/**/*.go", "tools/x/y/a.go", true},
		{"tools/**/*.go", "other/tools/a.go", false},
		{"tools/*.go", "tools/x/a.go", false},
		{"src/**", "src/a/b", true},
		{"*.{go,md}", "docs/x.md", true},
		{"*.{go,md}", "x.txt", false},
		{"{cmd,tools}/**/*.go", "cmd/r/main.go", true},
		{"{cmd,tools}/**/*.go", "agent/a.go", false},
		{"a{b,c{d,e}}f", "acef", true},
		{"a{b,c{d,e}}f", "acf", false},
		{"file?.txt", "file1.txt", true},
		{"file?.txt", "file10.txt", false},
		{"[a-c]*.txt", "b.txt", true},
		{"[!a-c]*.txt", "b.txt", false},
		{"[^a-c]*.txt", "d.txt", true},
		{`\{x\}.txt`, "{x}.txt", true},
		{"Makefile", "sub/Makefile", true},
		{"sub/Makefile", "Makefile", false},
	} {
		g, err := CompileGlob(c.pattern)
		if err != nil {
			t.Errorf("CompileGlob(%q): %v", c.pattern, err)
			continue
		}
		if got := g.Match(c.path); got != c.want {
			t.Errorf("%q.Match(%q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestGlobBase(t *testing.T) {
	for _, c := range []struct{ pattern, want string }{
		{"*.go", ""},
		{"**/*.go", ""},
		{"src/app/**/*.ts", "src/app"},
		{"src/app/main.ts", "src/app"},
		{"src/{a,b}/x", "src"},
		{"{src/a,src/b}/x", "src"},
		{"{src,lib}/x", ""},
		{"{src/x,*.go}", ""},
		{"a/b[0-9]/c", "a"},
	} {
		g, err := CompileGlob(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Base(); got != c.want {
			t.Errorf("%q.Base() = %q, want %q", c.pattern, got, c.want)
		}
	}
}

func TestGlobErrors(t *testing.T) {
	for _, p := range []string{"", "[abc", "*.{go,md", "a}b", "x/[!", "{,}"} {
		if _, err := CompileGlob(p); err == nil {
			t.Errorf("CompileGlob(%q): no error", p)
		}
	}
}

// TestGlobFastPaths checks that the shortcuts CompileGlob takes ("**/x"
// as a base-name pattern, "*" and a literal as a suffix) match exactly
// what wildmatch matches on the whole pattern.
func TestGlobFastPaths(t *testing.T) {
	paths := []string{
		"main.go", ".go", "go", "a.go.txt", "a/main.go", "a/b/c/d.go", "a/.go",
		"x", "a/x", "a/b/x", "ax", "a/xgo.go", "a/b/x.md", "a.go/b", "a.go/b.txt",
	}
	for _, pattern := range []string{
		"**/*.go", "*.go", "**/*", "*", "**/.go", "**/x*.go", "**/x", "**/**",
		"**/*.{go,md}", "**/a/*.go", "**/*x", "**/*[.]go",
	} {
		g, err := CompileGlob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			want := wildmatch(pattern, p)
			if !strings.Contains(pattern, "/") {
				want = wildmatch(pattern, path.Base(p))
			}
			if strings.Contains(pattern, "{") {
				want = wildmatch("**/*.go", p) || wildmatch("**/*.md", p)
			}
			if got := g.Match(p); got != want {
				t.Errorf("glob %q on %q: %v, wildmatch says %v", pattern, p, got, want)
			}
		}
	}
}
