package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// file is an entry as an archive holds it.
type file struct {
	name  string
	mode  fs.FileMode
	mtime time.Time
	data  string
}

// readArchive lists the entries of a .tar.gz or a .zip, in their order.
func readArchive(t *testing.T, path string) []file {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var files []file
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, file{f.Name, f.Mode() & (fs.ModeDir | fs.ModePerm), f.Modified.UTC(), string(data)})
		}
		return files
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("%s: gzip header names %q at %v; want neither", path, zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: %s is owned by %d:%d (%q:%q); want 0:0, no names", path, h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{h.Name, h.FileInfo().Mode() & (fs.ModeDir | fs.ModePerm), h.ModTime.UTC(), string(data)})
	}
}

// TestArchive writes the same three files, lying in two places with
// different times and modes beyond the executable bit, named in two
// orders, and wants the same bytes both times, holding what the package
// doc promises.
func TestArchive(t *testing.T) {
	const epoch = 1_700_000_000
	mtime := time.Unix(epoch, 0).UTC()
	// put writes the release files into a new directory, stamped at
	// touched, and returns their paths in the order given.
	put := func(touched time.Time, binMode fs.FileMode, order ...string) []string {
		dir := t.TempDir()
		content := map[string]string{"reasonix": "\x7fELF binary", "LICENSE": "MIT License\n", "README.md": "# Reasonix\n"}
		var paths []string
		for _, name := range order {
			p := filepath.Join(dir, name)
			mode := fs.FileMode(0o600)
			if name == "reasonix" {
				mode = binMode
			}
			if err := os.WriteFile(p, []byte(content[name]), mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, mode); err != nil { // past the umask
				t.Fatal(err)
			}
			if err := os.Chtimes(p, touched, touched); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		return paths
	}
	for _, ext := range []string{".tar.gz", ".zip"} {
		t.Run(ext, func(t *testing.T) {
			out := t.TempDir()
			a := filepath.Join(out, "a", "reasonix-v1-os-arch"+ext)
			b := filepath.Join(out, "b", "reasonix-v1-os-arch"+ext)
			os.MkdirAll(filepath.Dir(a), 0o755)
			os.MkdirAll(filepath.Dir(b), 0o755)
			argsA := append([]string{"archive", "-mtime", "1700000000", a},
				put(time.Unix(1, 0), 0o700, "reasonix", "LICENSE", "README.md")...)
			argsB := append([]string{"archive", "-mtime", "1700000000", b},
				put(time.Now(), 0o755, "README.md", "reasonix", "LICENSE")...)
			for _, args := range [][]string{argsA, argsB} {
				if err := run(args); err != nil {
					t.Fatal(err)
				}
			}
			ra, _ := os.ReadFile(a)
			rb, _ := os.ReadFile(b)
			if !bytes.Equal(ra, rb) {
				t.Errorf("two archives of the same files differ")
			}
			want := []file{
				{"reasonix-v1-os-arch/", fs.ModeDir | 0o755, mtime, ""},
				{"reasonix-v1-os-arch/LICENSE", 0o644, mtime, "MIT License\n"},
				{"reasonix-v1-os-arch/README.md", 0o644, mtime, "# Reasonix\n"},
				{"reasonix-v1-os-arch/reasonix", 0o755, mtime, "\x7fELF binary"},
			}
			if got := readArchive(t, a); !slices.Equal(got, want) {
				t.Errorf("entries:\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestUsage: a wrong command line is a usage error, told apart from a
// failure to write.
func TestUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		nil,
		{"zip"},
		{"archive", "out.tar.gz"},
		{"archive", filepath.Join(dir, "out.tar"), "LICENSE"},
		{"sums"},
	} {
		if _, ok := run(args).(usageError); !ok {
			t.Errorf("mkdist %q: %v; want a usage error", args, run(args))
		}
	}
	if err := run([]string{"sums", dir}); err == nil {
		t.Errorf("sums of a directory with no archive: no error")
	}
}

// TestSums checks SHA256SUMS against hashes sha256sum prints for known
// contents, and that it lists only the archives, by name.
func TestSums(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"b.zip": "", "a.tar.gz": "abc", "SHA256SUMS": "stale", "notes.txt": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := run([]string{"sums", dir}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  a.tar.gz\n" +
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  b.zip\n"
	if string(got) != want {
		t.Errorf("SHA256SUMS:\n%s\nwant:\n%s", got, want)
	}
}
