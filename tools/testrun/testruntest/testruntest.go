// Package testruntest writes the projects of the test runners' tests
// (testdata/gotest, testdata/pytest) where a test can run them.
package testruntest

import (
	"os"
	"testing"

	"golang.org/x/tools/txtar"
)

// Extract writes the files of the txtar archive at path into dir, a
// temporary directory of tb's when dir is "", and returns dir.
func Extract(tb testing.TB, path, dir string) string {
	tb.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	fsys, err := txtar.FS(ar)
	if err != nil {
		tb.Fatal(err)
	}
	if dir == "" {
		dir = tb.TempDir()
	}
	if err := os.CopyFS(dir, fsys); err != nil {
		tb.Fatal(err)
	}
	return dir
}
