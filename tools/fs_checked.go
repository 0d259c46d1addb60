package tools

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkedOps confines changes to the roots where the kernel offers no way
// to resolve a path without following links: before each change it checks
// that no element of the path below its root is a symbolic link. A link
// swapped in between that check and the change is not caught (a
// time-of-check, time-of-use window; docs/SECURITY.md says so).
type checkedOps struct {
	roots []string
	pathOps
}

func (c checkedOps) check(path string) error {
	root, rel, ok := rootOf(c.roots, path)
	if !ok {
		return fmt.Errorf("%s is %w", path, errOutside)
	}
	cur := root
	for _, part := range strings.Split(filepath.Dir(rel), string(filepath.Separator)) {
		if part == "." || part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return nil // missing: nothing to follow yet
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: a symbolic link appeared in the path; refusing to follow it", path)
		}
	}
	return nil
}

func (c checkedOps) read(path string) ([]byte, fs.FileMode, bool, error) {
	if err := c.check(path); err != nil {
		return nil, 0, false, err
	}
	return c.pathOps.read(path)
}

func (c checkedOps) mkdir(dir string) error {
	if err := c.check(dir); err != nil {
		return err
	}
	return c.pathOps.mkdir(dir)
}

func (c checkedOps) writeFile(path string, content []byte, mode fs.FileMode) error {
	if err := c.check(path); err != nil {
		return err
	}
	return c.pathOps.writeFile(path, content, mode)
}

func (c checkedOps) remove(path string) error {
	if err := c.check(path); err != nil {
		return err
	}
	return c.pathOps.remove(path)
}

func (c checkedOps) rename(from, to string) error {
	if err := c.check(from); err != nil {
		return err
	}
	if err := c.check(to); err != nil {
		return err
	}
	return c.pathOps.rename(from, to)
}
