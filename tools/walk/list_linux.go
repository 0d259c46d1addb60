package walk

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"sync"

	"golang.org/x/sys/unix"
)

// direntBufs holds the buffers list reads directories into, one per
// worker at a time.
var direntBufs = sync.Pool{New: func() any {
	b := make([]byte, 32<<10)
	return &b
}}

// The layout of struct linux_dirent64, which getdents64 fills: d_ino
// (8 bytes), d_off (8), d_reclen (2), d_type (1), then d_name ending in
// a NUL byte.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// list returns the directory's entries, in no particular order, as
// os.File.ReadDir would, but reading them with getdents64 into a pooled
// buffer: a walk lists every directory of the tree once, and the os
// package's one DirEntry allocated per entry is then a visible share of
// it.
func (d *dir) list() ([]dirent, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var ents []dirent
	for {
		n, err := unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return ents, &fs.PathError{Op: "readdirent", Path: d.real, Err: err}
		}
		if n <= 0 {
			return ents, nil
		}
		if ents == nil {
			// Records of short names take about 32 bytes.
			ents = make([]dirent, 0, n/32+1)
		}
		for b := buf[:n]; len(b) > 0; {
			if len(b) < direntName {
				return ents, &fs.PathError{Op: "readdirent", Path: d.real, Err: unix.EIO}
			}
			reclen := int(binary.NativeEndian.Uint16(b[direntReclen:]))
			if reclen < direntName || reclen > len(b) {
				return ents, &fs.PathError{Op: "readdirent", Path: d.real, Err: unix.EIO}
			}
			rec := b[:reclen]
			b = b[reclen:]
			if binary.NativeEndian.Uint64(rec) == 0 {
				continue // a deleted entry, as os leaves out
			}
			name := rec[direntName:]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if string(name) == "." || string(name) == ".." {
				continue
			}
			e := dirent{name: string(name)}
			if typ, ok := direntMode(rec[direntType]); ok {
				e.typ = typ
			} else {
				// The file system did not say: ask it, as os does.
				var st unix.Stat_t
				if err := unix.Fstatat(d.fd, e.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					continue // gone meanwhile
				}
				e.typ = (&fileStat{st: st}).Mode().Type()
			}
			ents = append(ents, e)
		}
	}
}

// direntMode maps a d_type to the type bits of fs.FileMode; ok is false
// for DT_UNKNOWN (and anything unexpected).
func direntMode(t byte) (mode fs.FileMode, ok bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	}
	return 0, false
}
