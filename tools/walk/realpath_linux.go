package walk

import (
	"os"
	"path/filepath"
	"strconv"
)

// fdPath returns the real path of the file open as fd, which was opened
// as name: the kernel's own account of it, from /proc. Without /proc it
// falls back to statPath.
func fdPath(fd int, name string) (string, error) {
	if p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); err == nil && filepath.IsAbs(p) {
		return p, nil
	}
	return statPath(fd, name)
}
