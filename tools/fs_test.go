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
