//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package walk

// list returns the directory's entries, in no particular order.
func (d *dir) list() ([]dirent, error) { return dirents(d.f.ReadDir(-1)) }
