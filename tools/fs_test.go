package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiskFSApplyAllOrNothing makes a later change fail and checks that
// every earlier one is undone: contents, new files and new directories.
func TestDiskFSApplyAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "old a")
	write("b.txt", "old b")
	write("taken.txt", "x")
	changes := []Change{
		{Kind: Write, Path: filepath.Join(dir, "a.txt"), Content: []byte("new a")},
		{Kind: Write, Path: filepath.Join(dir, "new", "dir", "c.txt"), Content: []byte("c")},
		{Kind: Delete, Path: filepath.Join(dir, "b.txt")},
		{Kind: Rename, Path: filepath.Join(dir, "a.txt"), NewPath: filepath.Join(dir, "taken.txt")},
	}
	err := DiskFS{}.Apply(context.Background(), changes)
	if err == nil || !strings.Contains(err.Error(), "change 4 of 4") || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("err = %v", err)
	}
	for name, want := range map[string]string{"a.txt": "old a", "b.txt": "old b", "taken.txt": "x"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Error("created directory survived the rollback")
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a.txt")); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after rollback = %v", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".reasonix-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestDiskFSApplyKeepsMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run.sh")
	os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
	if err := (DiskFS{}).Apply(context.Background(), []Change{{Kind: Write, Path: p, Content: []byte("#!/bin/sh\necho hi\n")}}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode = %v", fi.Mode().Perm())
	}
}

// TestDiskFSConfinedRefusesSwappedLinks: with roots set, a directory that
// became a symbolic link after any check cannot carry a write, a rename or
// a delete out of the root.
func TestDiskFSConfinedRefusesSwappedLinks(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	d := DiskFS{Roots: []string{root}}
	ctx := context.Background()
	os.MkdirAll(filepath.Join(root, "dir"), 0o755)
	if err := d.Apply(ctx, []Change{{Kind: Write, Path: filepath.Join(root, "dir", "a.txt"), Content: []byte("a")}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Apply(ctx, []Change{{Kind: Write, Path: filepath.Join(root, "new", "deep", "b.txt"), Content: []byte("b")}}); err != nil {
		t.Fatalf("creating directories inside the root: %v", err)
	}
	// The attack: the directory is swapped for a link to outside.
	os.RemoveAll(filepath.Join(root, "dir"))
	os.WriteFile(filepath.Join(outside, "victim.txt"), []byte("keep"), 0o644)
	if err := os.Symlink(outside, filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	attacks := []Change{
		{Kind: Write, Path: filepath.Join(root, "dir", "evil.txt"), Content: []byte("x")},
		{Kind: Write, Path: filepath.Join(root, "dir", "victim.txt"), Content: []byte("x")},
		{Kind: Delete, Path: filepath.Join(root, "dir", "victim.txt")},
		{Kind: Rename, Path: filepath.Join(root, "new", "deep", "b.txt"), NewPath: filepath.Join(root, "dir", "b.txt")},
		{Kind: Write, Path: filepath.Join(outside, "direct.txt"), Content: []byte("x")},
		{Kind: Write, Path: filepath.Join(root, "..", filepath.Base(outside), "dotdot.txt"), Content: []byte("x")},
	}
	for _, c := range attacks {
		if err := d.Apply(ctx, []Change{c}); err == nil {
			t.Errorf("%s %s succeeded", c.Kind, c.Path)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("outside now holds %d entries", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "victim.txt")); string(b) != "keep" {
		t.Fatalf("victim changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "new", "deep", "b.txt")); err != nil {
		t.Fatalf("the refused rename moved the source: %v", err)
	}
}

// TestDiskFSConfinedRollsBack: the all-or-nothing journal works beneath
// roots too.
func TestDiskFSConfinedRollsBack(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("old"), 0o600)
	d := DiskFS{Roots: []string{root}}
	err := d.Apply(context.Background(), []Change{
		{Kind: Write, Path: filepath.Join(root, "a.txt"), Content: []byte("new")},
		{Kind: Write, Path: filepath.Join(root, "x", "y", "c.txt"), Content: []byte("c")},
		{Kind: Delete, Path: filepath.Join(root, "missing.txt")},
	})
	if err == nil {
		t.Fatal("a failing change set succeeded")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "old" {
		t.Fatalf("a.txt = %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(root, "a.txt")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(root, "x")); err == nil {
		t.Fatal("created directories survived the rollback")
	}
}
