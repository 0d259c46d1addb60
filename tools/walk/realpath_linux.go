package walk

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// fdPath returns the real path of the file open as fd, which was opened
// as name: the kernel's own account of it, from /proc. Without /proc it
// falls back to statPath, and so it does for a file removed since it was
// opened, whose account ends in " (deleted)": taken as it is, that would
// no longer match a forbidden file's path.
func fdPath(fd int, name string) (string, error) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err == nil && filepath.IsAbs(p) && !strings.HasSuffix(p, " (deleted)") {
		return p, nil
	}
	return statPath(fd, name)
}
