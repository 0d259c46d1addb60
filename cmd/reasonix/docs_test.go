package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoPath matches a path into the repository as docs write it: a path
// under a top-level directory in backticks or opening a line of a code
// block, or any relative Markdown link target. (A bare file name in
// backticks, such as `AGENTS.md`, usually names a file of the user's.)
var repoPath = regexp.MustCompile("(?:(?:`|^)((?:cmd|agent|tools|docs|testdata|editors|graph|lsp|\\.ci)/[A-Za-z0-9_./-]*)(?:`|\\s|$))|\\]\\(([A-Za-z0-9_./-]+)\\)")

// TestDocsNameRealPaths keeps the docs honest: every repository path they
// mention must exist.
func TestDocsNameRealPaths(t *testing.T) {
	root := filepath.Join("..", "..")
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "README.zh-CN.md"))
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
				// Code paths are relative to the repository, links to
				// the document.
				p, base := m[1], root
				if p == "" {
					p, base = m[2], filepath.Dir(doc)
				}
				if _, err := os.Stat(filepath.Join(base, filepath.FromSlash(p))); err != nil {
					t.Errorf("%s:%d names %s, which does not exist", filepath.Base(doc), i+1, p)
				}
			}
		}
	}
}
