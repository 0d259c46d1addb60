//go:build freebsd || netbsd || openbsd || dragonfly

package walk

// fdPath returns the real path of the file open as fd, which was opened
// as name. These systems offer no portable way to ask the kernel, so it
// is statPath's answer.
func fdPath(fd int, name string) (string, error) { return statPath(fd, name) }
