//go:build linux

package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchMask is what a directory's watch reports: any entry created,
// deleted, moved, written or changed in its metadata. A link is not
// followed, and an entry unlinked while open stops reporting.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_ATTRIB |
	unix.IN_CLOSE_WRITE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF |
	unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

// markerTimeout bounds the wait for the marker's event: past it the
// events are not trusted and the caller lists everything.
const markerTimeout = 5 * time.Second

// events is an inotify instance with a watch on every listed directory,
// and one on a private directory holding a marker file.
//
// The kernel queues an event within the system call that causes it, so
// once a command has ended its events are queued; and one instance
// queues its events in order. drain therefore changes the marker's
// times and reads until the marker's event: every event before it has
// then been read, without waiting on a clock.
type events struct {
	fd        int
	markerDir string
	marker    string
	markerWd  int32
	buf       []byte

	// Tests inject failures: overflow makes the next drain report an
	// overflow; addErr, when set, fails adding a watch.
	overflow bool
	addErr   func(path string) error
}

func openEvents() (*events, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("starting a file watch: %w", err)
	}
	e := &events{fd: fd, markerWd: -1, buf: make([]byte, 64<<10)}
	if e.markerDir, err = os.MkdirTemp("", "reasonix-watch-"); err != nil {
		e.close()
		return nil, fmt.Errorf("starting a file watch: %w", err)
	}
	e.marker = filepath.Join(e.markerDir, "marker")
	if err := os.WriteFile(e.marker, nil, 0o600); err != nil {
		e.close()
		return nil, fmt.Errorf("starting a file watch: %w", err)
	}
	wd, err := unix.InotifyAddWatch(fd, e.markerDir, unix.IN_ATTRIB)
	if err != nil {
		e.close()
		return nil, fmt.Errorf("starting a file watch: %w", err)
	}
	e.markerWd = int32(wd)
	return e, nil
}

// add watches dir. Adding a watch on a directory already watched
// (moved meanwhile) returns its watch.
func (e *events) add(dir string) (int32, error) {
	if e.addErr != nil {
		if err := e.addErr(dir); err != nil {
			return 0, err
		}
	}
	wd, err := unix.InotifyAddWatch(e.fd, dir, watchMask)
	if err != nil {
		return 0, err
	}
	return int32(wd), nil
}

// remove ends a watch; one the kernel ended (its directory is gone)
// fails, which does not matter.
func (e *events) remove(wd int32) {
	unix.InotifyRmWatch(e.fd, uint32(wd))
}

// drain reads every event queued so far: by watch, the names of the
// entries that had events ("" for the directory itself). overflow says
// events were lost.
func (e *events) drain() (touched map[int32]map[string]bool, overflow bool, err error) {
	now := time.Now()
	if err := os.Chtimes(e.marker, now, now); err != nil {
		return nil, false, fmt.Errorf("marking the file events: %w", err)
	}
	overflow, e.overflow = e.overflow, false
	touched = map[int32]map[string]bool{}
	deadline := time.Now().Add(markerTimeout)
	for {
		n, err := unix.Read(e.fd, e.buf)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			left := time.Until(deadline)
			if left <= 0 {
				return nil, false, errors.New("the file events did not arrive in time")
			}
			fds := []unix.PollFd{{Fd: int32(e.fd), Events: unix.POLLIN}}
			if _, err := unix.Poll(fds, int(left/time.Millisecond)+1); err != nil && !errors.Is(err, unix.EINTR) {
				return nil, false, fmt.Errorf("waiting for file events: %w", err)
			}
			continue
		case err != nil:
			return nil, false, fmt.Errorf("reading file events: %w", err)
		}
		seen := false
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&e.buf[off]))
			name := e.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				// The queue was full: the marker, queued after
				// everything before it, was dropped.
				overflow, seen = true, true
			case ev.Wd == e.markerWd:
				seen = true
			default:
				names := touched[ev.Wd]
				if names == nil {
					names = map[string]bool{}
					touched[ev.Wd] = names
				}
				names[cstring(name)] = true
			}
		}
		if seen {
			return touched, overflow, nil
		}
	}
}

// cstring returns the name in b, which is padded with NULs.
func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func (e *events) close() {
	unix.Close(e.fd)
	if e.markerDir != "" {
		os.RemoveAll(e.markerDir)
	}
}
