package walktest_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reasonix/reasonix/tools/walk"
	"github.com/reasonix/reasonix/tools/walk/walktest"
)

// TestBuild checks that a built tree holds what its Tree says: the walk
// (which honours the .gitignore) sees Files files, GoFiles of them Go
// files, and the disk holds Ignored more outside .git.
func TestBuild(t *testing.T) {
	for _, n := range []int{0, 1, 100, 1000} {
		root := t.TempDir()
		tree, err := walktest.Build(root, n)
		if err != nil {
			t.Fatal(err)
		}
		var seen, goFiles atomic.Int64
		err = walk.Walk(t.Context(), root, walk.Options{}, func(e walk.Entry) error {
			seen.Add(1)
			if strings.HasSuffix(e.Name(), ".go") {
				goFiles.Add(1)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if int(seen.Load()) != tree.Files || int(goFiles.Load()) != tree.GoFiles {
			t.Errorf("n=%d: the walk saw %d files, %d Go files; the tree says %d and %d", n, seen.Load(), goFiles.Load(), tree.Files, tree.GoFiles)
		}
		onDisk := 0
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				onDisk++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if onDisk != tree.Files+tree.Ignored {
			t.Errorf("n=%d: %d files on disk, want %d shown and %d ignored", n, onDisk, tree.Files, tree.Ignored)
		}
		if n > 0 {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(tree.Deep), tree.DeepFile)); err != nil || strings.Count(tree.Deep, "/") != 2 {
				t.Errorf("n=%d: deep file %s/%s: %v", n, tree.Deep, tree.DeepFile, err)
			}
		}
	}
}
