// Mkdist writes Reasonix's release archives and their checksums so that the
// same inputs give the same bytes: where the files lie, their modification
// times, owners and the order they are named in leave no trace. `make dist`
// runs it after building the binaries with -trimpath and an empty build id.
//
//	mkdist archive [-mtime UNIX] OUT FILE...
//	mkdist sums DIR
//
// archive writes OUT, a .tar.gz or a .zip, holding each FILE by its base
// name under one directory named as OUT without its extension, so that
// extracting it adds a single directory. Entries are sorted by name, owned
// by root (0:0, no names), timestamped -mtime (default
// $SOURCE_DATE_EPOCH, else 0), mode 0755 when the file is executable and
// 0644 otherwise; the gzip header carries no name and no time.
//
// sums writes DIR/SHA256SUMS: one "HASH  NAME" line per archive in DIR,
// sorted by name, in the format sha256sum -c and shasum -a 256 -c read.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// usage is printed for a wrong command line, which exits 64 as Reasonix's
// own commands do.
const usage = `usage:
  mkdist archive [-mtime UNIX] OUT.tar.gz|OUT.zip FILE...
  mkdist sums DIR`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mkdist:", err)
		var u usageError
		if errors.As(err, &u) {
			fmt.Fprintln(os.Stderr, usage)
			os.Exit(64)
		}
		os.Exit(1)
	}
}

// usageError is a wrong command line, as opposed to a failure to write.
type usageError string

func (e usageError) Error() string { return string(e) }

func run(args []string) error {
	if len(args) == 0 {
		return usageError("no command")
	}
	switch args[0] {
	case "archive":
		fl := flag.NewFlagSet("archive", flag.ContinueOnError)
		fl.SetOutput(io.Discard)
		def, err := sourceDateEpoch()
		if err != nil {
			return err
		}
		mtime := fl.Int64("mtime", def, "")
		if err := fl.Parse(args[1:]); err != nil {
			return usageError(err.Error())
		}
		if fl.NArg() < 2 {
			return usageError("archive needs OUT and at least one FILE")
		}
		return writeArchive(fl.Arg(0), fl.Args()[1:], time.Unix(*mtime, 0).UTC())
	case "sums":
		if len(args) != 2 {
			return usageError("sums needs DIR")
		}
		return writeSums(args[1])
	}
	return usageError(fmt.Sprintf("unknown command %q", args[0]))
}

// sourceDateEpoch is the time reproducible builds agree to stamp on what
// they write (reproducible-builds.org's SOURCE_DATE_EPOCH), 0 when unset.
func sourceDateEpoch() (int64, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("SOURCE_DATE_EPOCH: %w", err)
	}
	return n, nil
}

// entry is one file of an archive, read whole: release files are a
// binary and two short texts.
type entry struct {
	name string
	mode fs.FileMode
	data []byte
}

// readEntries reads files into entries sorted by base name, refusing two
// files of the same base name, which would overwrite each other.
func readEntries(files []string) ([]entry, error) {
	var es []entry
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", f)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		mode := fs.FileMode(0o644)
		if fi.Mode()&0o111 != 0 {
			mode = 0o755
		}
		es = append(es, entry{name: filepath.Base(f), mode: mode, data: data})
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(es); i++ {
		if es[i].name == es[i-1].name {
			return nil, fmt.Errorf("two files named %s", es[i].name)
		}
	}
	return es, nil
}

// writeArchive writes out, in the format its extension names, holding
// files under one directory named after out.
func writeArchive(out string, files []string, mtime time.Time) error {
	base := filepath.Base(out)
	var write func(io.Writer, string, []entry, time.Time) error
	var dir string
	switch {
	case strings.HasSuffix(base, ".tar.gz"):
		write, dir = writeTarGz, strings.TrimSuffix(base, ".tar.gz")
	case strings.HasSuffix(base, ".zip"):
		write, dir = writeZip, strings.TrimSuffix(base, ".zip")
	default:
		return usageError(fmt.Sprintf("%s: the archive's name must end in .tar.gz or .zip", out))
	}
	es, err := readEntries(files)
	if err != nil {
		return fmt.Errorf("archive %s: %w", out, err)
	}
	var buf bytes.Buffer
	if err := write(&buf, dir, es, mtime); err != nil {
		return fmt.Errorf("archive %s: %w", out, err)
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

func writeTarGz(w io.Writer, dir string, es []entry, mtime time.Time) error {
	// A zero gzip header has no file name and no time: nothing of the
	// machine that wrote it.
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	hdr := func(name string, typ byte, mode fs.FileMode, size int64) *tar.Header {
		return &tar.Header{
			Typeflag: typ, Name: name, Mode: int64(mode), Size: size,
			ModTime: mtime, Format: tar.FormatUSTAR,
		}
	}
	if err := tw.WriteHeader(hdr(dir+"/", tar.TypeDir, 0o755, 0)); err != nil {
		return err
	}
	for _, e := range es {
		if err := tw.WriteHeader(hdr(dir+"/"+e.name, tar.TypeReg, e.mode, int64(len(e.data)))); err != nil {
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func writeZip(w io.Writer, dir string, es []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	d := &zip.FileHeader{Name: dir + "/", Modified: mtime}
	d.SetMode(fs.ModeDir | 0o755)
	if _, err := zw.CreateHeader(d); err != nil {
		return err
	}
	for _, e := range es {
		h := &zip.FileHeader{Name: dir + "/" + e.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(e.mode)
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := f.Write(e.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeSums writes dir/SHA256SUMS over the archives in dir.
func writeSums(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("sums: %w", err)
	}
	var b strings.Builder
	for _, e := range ents { // ReadDir sorts by name
		name := e.Name()
		if !e.Type().IsRegular() || !(strings.HasSuffix(name, ".tar.gz") || strings.HasSuffix(name, ".zip")) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("sums: %w", err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if b.Len() == 0 {
		return fmt.Errorf("sums: no .tar.gz or .zip in %s", dir)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}
