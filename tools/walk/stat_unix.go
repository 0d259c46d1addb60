//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package walk

import (
	"io/fs"
	"time"

	"golang.org/x/sys/unix"
)

// info lstats d's entry name relative to the open directory. The kernel
// then looks up one name instead of every component of the entry's path,
// which over a large tree is most of what a caller reading every entry's
// metadata (the glob tool, a snapshot) spends; and, as every other open
// below the root, it cannot be led elsewhere by a link swapped in above
// the entry.
func (d *dir) info(name, path string) (fs.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return &fileStat{name: name, st: st}, nil
}

// fileStat is the fs.FileInfo of an fstatat call. Sys returns the
// *unix.Stat_t.
type fileStat struct {
	name string
	st   unix.Stat_t
}

func (f *fileStat) Name() string       { return f.name }
func (f *fileStat) Size() int64        { return int64(f.st.Size) }
func (f *fileStat) IsDir() bool        { return f.Mode().IsDir() }
func (f *fileStat) ModTime() time.Time { return time.Unix(f.st.Mtim.Unix()) }
func (f *fileStat) Sys() any           { return &f.st }

// Mode maps the system's mode bits to fs.FileMode as os.Lstat does.
func (f *fileStat) Mode() fs.FileMode {
	m := uint32(f.st.Mode)
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
