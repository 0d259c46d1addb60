// Package walktest builds synthetic project trees for the benchmarks of
// what walks a workspace: the glob tool against ripgrep, and the cost of
// a shell command as the tree grows. Only tests import it.
package walktest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// A Tree is a synthetic git repository: files spread over three levels of
// directories, a .gitignore, and directories and files it ignores.
type Tree struct {
	Root string
	// Files counts the files the ignore rules let through, the
	// .gitignore included; GoFiles counts those ending in ".go".
	Files, GoFiles int
	// Ignored counts the files the .gitignore leaves out.
	Ignored int
	// Deep is a directory at the bottom of the tree, slash-separated and
	// relative to Root, holding at least one file named DeepFile.
	Deep     string
	DeepFile string
}

// filesPerDir is how many files a directory at the bottom holds, and
// fanOut how many subdirectories a directory above holds: the tree is
// as wide as a large monorepo's, not one flat directory.
const (
	filesPerDir = 32
	fanOut      = 32
)

// gitignore leaves out a build directory at the top, every node_modules
// directory and every log file.
const gitignore = "/build/\nnode_modules/\n*.log\n"

// Build creates, below root (which must exist), n files besides the
// .gitignore, a quarter of them Go files, and about n/10 ignored files
// (at most 10,000): in build/, in node_modules directories and as .log
// files. The files are empty. The .git directory is the least git needs
// to see a repository.
func Build(root string, n int) (Tree, error) {
	t := Tree{Root: root, Files: n + 1}
	for _, d := range []string{".git/objects", ".git/refs/heads"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return t, fmt.Errorf("walktest: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		return t, fmt.Errorf("walktest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte(gitignore), 0o644); err != nil {
		return t, fmt.Errorf("walktest: %w", err)
	}

	dirs := (n + filesPerDir - 1) / filesPerDir
	ignored := min(n/10, 10_000)
	jobs := make(chan int)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	// Creating a file blocks in the kernel far more than it computes:
	// more workers than cores keep the disk busy.
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for d := range jobs {
				if err := buildDir(root, d, n, dirs, ignored); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for d := range dirs {
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return t, err
	default:
	}
	for i := range n {
		if i%4 == 0 {
			t.GoFiles++
		}
	}
	t.Ignored = ignoredCount(dirs, ignored)
	if dirs > 0 {
		t.Deep = filepath.ToSlash(dirPath(dirs - 1))
		t.DeepFile = fileName((dirs - 1) * filesPerDir)
	}
	return t, nil
}

// dirPath is the directory of bottom directory d.
func dirPath(d int) string {
	return filepath.Join(fmt.Sprintf("pkg%02d", d/(fanOut*fanOut)), fmt.Sprintf("mod%02d", d/fanOut%fanOut), fmt.Sprintf("dir%02d", d%fanOut))
}

// fileName is the name of file i: a Go file for one in four.
func fileName(i int) string {
	if i%4 == 0 {
		return fmt.Sprintf("file%07d.go", i)
	}
	return fmt.Sprintf("file%07d.txt", i)
}

// buildDir creates bottom directory d with its files, and its share of
// the ignored files: a log file in each of the first directories, and
// for directory 0 also build/ and a node_modules directory.
func buildDir(root string, d, n, dirs, ignored int) error {
	dir := filepath.Join(root, dirPath(d))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("walktest: %w", err)
	}
	var names []string
	for i := d * filesPerDir; i < min(n, (d+1)*filesPerDir); i++ {
		names = append(names, filepath.Join(dir, fileName(i)))
	}
	logs, nested := ignoredSplit(dirs, ignored)
	if d < logs {
		names = append(names, filepath.Join(dir, "debug.log"))
	}
	if d == 0 {
		for _, sub := range []string{"build", filepath.Join(dirPath(0), "node_modules", "left-pad")} {
			if err := os.MkdirAll(filepath.Join(root, sub), 0o755); err != nil {
				return fmt.Errorf("walktest: %w", err)
			}
		}
		for i := range nested {
			sub := "build"
			if i%2 == 1 {
				sub = filepath.Join(dirPath(0), "node_modules", "left-pad")
			}
			names = append(names, filepath.Join(root, sub, fmt.Sprintf("out%05d.go", i)))
		}
	}
	for _, name := range names {
		if err := touch(name); err != nil {
			return err
		}
	}
	return nil
}

// ignoredSplit shares the ignored files between log files (one in each
// of the first directories) and the ignored directories.
func ignoredSplit(dirs, ignored int) (logs, nested int) {
	logs = min(dirs, ignored/2)
	return logs, ignored - logs
}

func ignoredCount(dirs, ignored int) int {
	logs, nested := ignoredSplit(dirs, ignored)
	if dirs == 0 {
		nested = 0
	}
	return logs + nested
}

func touch(name string) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("walktest: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("walktest: %w", err)
	}
	return nil
}
