package main

// Tests of the Makefile's install and release targets and of what they
// ship, run through make itself from this checkout.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// root is the checkout's top directory.
var root = filepath.Join("..", "..")

// makeIn runs make in dir with env added, as a user's shell would: the
// variables of an enclosing make (make test runs these tests) are dropped.
func makeIn(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = dir
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name == "MAKEFLAGS" || name == "MFLAGS" || name == "MAKELEVEL"
	})
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// TestMakeInstall installs into PREFIX/bin and checks what it says about
// PATH: with the directory missing from PATH, the exact line that adds it.
func TestMakeInstall(t *testing.T) {
	prefix := t.TempDir()
	bin := filepath.Join(prefix, "bin")
	tests := []struct {
		name string
		path string
		want []string // lines of the output
	}{{
		name: "not on PATH",
		path: os.Getenv("PATH"),
		want: []string{
			bin + " is not on your PATH. Add this line to your shell's profile (~/.profile, ~/.bashrc or ~/.zshrc), then open a new shell or run it in this one:",
			`  export PATH="` + bin + `:$PATH"`,
		},
	}, {
		name: "on PATH",
		path: bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		want: []string{bin + " is on your PATH: run reasonix"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := makeIn(t, root, []string{"PATH=" + tt.path}, "install", "PREFIX="+prefix)
			if err != nil {
				t.Fatalf("make install: %v\n%s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if !strings.HasPrefix(lines[0], "installed "+filepath.Join(bin, "reasonix")+" (") ||
				!slices.Equal(lines[1:], tt.want) {
				t.Errorf("make install printed:\n%s\nwant the installed line, then:\n%s", out, strings.Join(tt.want, "\n"))
			}
			version, err := exec.Command(filepath.Join(bin, "reasonix"), "--version").Output()
			if err != nil || !strings.HasPrefix(string(version), "reasonix ") {
				t.Errorf("reasonix --version: %q, %v", version, err)
			}
		})
	}
}

// TestMakeDistReproducible builds one platform's archive from two copies of
// the sources, in two places with different file times, and wants the same
// SHA256SUMS; the archive holds the binary, LICENSE and README.md. The
// platform is this machine's, whose packages make build has compiled.
func TestMakeDistReproducible(t *testing.T) {
	const epoch = 1_700_000_000
	platform := runtime.GOOS + "/" + runtime.GOARCH
	vars := []string{"dist", "PLATFORMS=" + platform, "VERSION=v0.0.0-test", "SOURCE_DATE_EPOCH=1700000000"}
	var sums [2]string
	var dirs [2]string
	for i, touched := range []time.Time{time.Unix(1_000_000_000, 0), time.Now()} {
		dirs[i] = filepath.Join(t.TempDir(), []string{"a", "checkout-b"}[i])
		copySources(t, root, dirs[i], touched)
		if out, err := makeIn(t, dirs[i], nil, vars...); err != nil {
			t.Fatalf("make dist: %v\n%s", err, out)
		}
		s, err := os.ReadFile(filepath.Join(dirs[i], "dist", "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		sums[i] = string(s)
	}
	archive, exe := "reasonix-v0.0.0-test-"+runtime.GOOS+"-"+runtime.GOARCH+".tar.gz", "reasonix"
	if runtime.GOOS == "windows" {
		archive, exe = strings.TrimSuffix(archive, ".tar.gz")+".zip", "reasonix.exe"
	}
	if !strings.HasSuffix(sums[0], "  "+archive+"\n") || strings.Count(sums[0], "\n") != 1 {
		t.Errorf("SHA256SUMS:\n%s\nwant one line, for %s", sums[0], archive)
	}
	if sums[0] != sums[1] {
		t.Errorf("two checkouts of the same sources give different archives:\n%s\n%s", sums[0], sums[1])
	}
	var names []string
	for _, f := range readArchive(t, filepath.Join(dirs[0], "dist", archive)) {
		names = append(names, f.name)
		if !f.mtime.Equal(time.Unix(epoch, 0)) {
			t.Errorf("%s is stamped %v; want SOURCE_DATE_EPOCH", f.name, f.mtime)
		}
	}
	dir := strings.TrimSuffix(strings.TrimSuffix(archive, ".tar.gz"), ".zip") + "/"
	if want := []string{dir, dir + "LICENSE", dir + "README.md", dir + exe}; !slices.Equal(names, want) {
		t.Errorf("the archive holds %q; want %q", names, want)
	}
}

// copySources copies what building reasonix needs (the Go sources, the
// files they embed, the Makefile, LICENSE and README.md) from src to dst,
// leaving out version control, build output, test data and the editors'
// packages, and stamps every file touched.
func copySources(t *testing.T, src, dst string, touched time.Time) {
	t.Helper()
	skip := map[string]bool{".git": true, "bin": true, "dist": true, "testdata": true, "node_modules": true, "editors": true}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && skip[d.Name()] {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // a file another test wrote and removed meanwhile
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		return os.Chtimes(target, touched, touched)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLicense checks that LICENSE is the license the VS Code extension's
// package.json declares, by its SPDX identifier.
func TestLicense(t *testing.T) {
	// The texts' opening lines, and a sentence only that license has.
	known := map[string][2]string{
		"MIT": {"MIT License", "Permission is hereby granted, free of charge, to any person obtaining a copy"},
	}
	raw, err := os.ReadFile(filepath.Join(root, "editors", "vscode", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ License string }
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	want, ok := known[pkg.License]
	if !ok {
		t.Fatalf("package.json declares license %q, whose text this test does not know", pkg.License)
	}
	first, _, _ := strings.Cut(string(text), "\n")
	if first != want[0] || !strings.Contains(string(text), want[1]) {
		t.Errorf("LICENSE is not the %s license package.json declares:\n%s", pkg.License, text)
	}
	if !strings.Contains(string(text), "Copyright (c) 2026 The Reasonix Authors") {
		t.Errorf("LICENSE names no copyright holder")
	}
}

// TestStage runs .ci/stage.sh, which times make test's stages: a line
// naming the stage first, its time last, and the command's exit status.
// The time itself is whatever it took, so it is matched by its shape.
func TestStage(t *testing.T) {
	took := `(\d+s|\d+m\d\ds)`
	tests := []struct {
		cmd  string
		exit int
		want string // a regular expression for the whole output
	}{
		{"echo working", 0, "== the stage: sh -c echo working\nworking\n== the stage " + took + "\n"},
		{"echo working; exit 3", 3, "== the stage: sh -c echo working; exit 3\nworking\n== the stage failed after " + took + " \\(exit 3\\)\n"},
	}
	for _, tt := range tests {
		cmd := exec.Command("sh", filepath.Join(root, ".ci", "stage.sh"), "the stage", "sh", "-c", tt.cmd)
		out, err := cmd.Output()
		exit := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			exit = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if exit != tt.exit || !regexp.MustCompile("^"+tt.want+"$").Match(out) {
			t.Errorf("stage.sh %q: exit %d, printed:\n%s\nwant exit %d and output matching %s", tt.cmd, exit, out, tt.exit, tt.want)
		}
	}
}
