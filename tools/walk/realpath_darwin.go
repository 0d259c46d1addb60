package walk

import (
	"io/fs"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fdPath returns the real path of the file open as fd, which was opened
// as name: the kernel's own account of it, from fcntl(F_GETPATH).
func fdPath(fd int, name string) (string, error) {
	buf := make([]byte, unix.PathMax)
	// The pointer is converted in the call itself, which keeps buf alive
	// and in place until the call returns.
	_, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), unix.F_GETPATH, uintptr(unsafe.Pointer(&buf[0])))
	if errno != 0 {
		return "", &fs.PathError{Op: "fcntl", Path: name, Err: errno}
	}
	n := 0
	for n < len(buf) && buf[n] != 0 {
		n++
	}
	return string(buf[:n]), nil
}
