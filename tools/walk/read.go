package walk

import "errors"

// ErrTooLarge is returned by ReadFile for a file longer than its limit.
var ErrTooLarge = errors.New("file too large")

// grow returns buf with room for at least one more byte after n, keeping
// buf[:n]. With a positive limit it grows to no more than limit+1 bytes:
// one byte past the limit is enough to tell that a file exceeds it.
func grow(buf []byte, n, limit int) []byte {
	if n < cap(buf) {
		return buf[:cap(buf)]
	}
	size := max(2*cap(buf), 64<<10)
	if limit > 0 {
		size = min(size, limit+1)
	}
	nb := make([]byte, size)
	copy(nb, buf[:n])
	return nb
}
