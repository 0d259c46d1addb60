package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// A layerStore keeps the private layers of one session's commands over
// the shared caches, in a directory of its own under Jail.Layers:
//
//	<Layers>/<name>.lock         locked (flock) while the session lives
//	<Layers>/<name>/<slot>/<i>/  upper and work of the overlay over cache i
//
// The layers outlive a command, so that a session's second `go test`
// finds what its first one built, and end with the session: close removes
// them, and a session that died without closing (killed outright) leaves
// its lock free, so the next store to start removes what it left. They
// grow with what the session's commands write to the caches, as the
// workspace and the temporary directories do.
//
// A slot serves one unit at a time: two overlay mounts must not share an
// upper directory. A command that starts while another still runs (one
// that left a server in the background) gets a slot of its own, and does
// not see what the other wrote to the caches.
type layerStore struct {
	mu sync.Mutex // guards the fields below
	// dir is the session's directory, "" until the first take.
	dir string
	// lock holds the flock that tells other stores the session lives.
	lock *os.File
	// free are the slots no unit uses; made counts the slots made.
	free []string
	made int
}

// take returns a slot under parent for a unit to use until it puts it
// back, with the directories of each cache's layer made.
func (s *layerStore) take(parent string, caches []Cache) (slot string, layers []cacheLayer, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		if err := s.open(parent); err != nil {
			return "", nil, err
		}
	}
	if n := len(s.free); n > 0 {
		slot, s.free = s.free[n-1], s.free[:n-1]
	} else {
		slot = filepath.Join(s.dir, strconv.Itoa(s.made))
		s.made++
	}
	for i, c := range caches {
		l := cacheLayer{Cache: c, Upper: filepath.Join(slot, strconv.Itoa(i), "upper"), Work: filepath.Join(slot, strconv.Itoa(i), "work")}
		for _, d := range []string{l.Upper, l.Work} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				s.free = append(s.free, slot)
				return "", nil, fmt.Errorf("private cache layer: %w", err)
			}
		}
		layers = append(layers, l)
	}
	return slot, layers, nil
}

// put gives slot back for later units.
func (s *layerStore) put(slot string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" && within(slot, s.dir) {
		s.free = append(s.free, slot)
	}
}

// open makes the session's directory under parent, locked, and removes
// what dead sessions left there. s.mu is held.
func (s *layerStore) open(parent string) error {
	if parent == "" {
		return errors.New("no directory for private cache layers")
	}
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return fmt.Errorf("private cache layers: %w", err)
	}
	sweep(parent)
	// The lock is made under a temporary name (which sweeps pass over)
	// and renamed into place once held, and the directory made after
	// that: a sweep never finds a live session's lock free, nor its
	// directory without a lock.
	lock, err := os.CreateTemp(parent, ".lock-*")
	if err != nil {
		return fmt.Errorf("private cache layers: %w", err)
	}
	fail := func(err error) error {
		lock.Close()
		os.Remove(lock.Name())
		return fmt.Errorf("private cache layers: %w", err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return fail(err)
	}
	dir := filepath.Join(parent, strings.TrimPrefix(filepath.Base(lock.Name()), ".lock-"))
	if err := os.Rename(lock.Name(), dir+".lock"); err != nil {
		return fail(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		lock.Close()
		os.Remove(dir + ".lock")
		return fmt.Errorf("private cache layers: %w", err)
	}
	s.dir, s.lock, s.free, s.made = dir, lock, nil, 0
	return nil
}

// close removes the session's layers. The units that used them have
// ended (Host.Close waits for them), or their namespaces are going.
func (s *layerStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		return nil
	}
	err := removeTree(s.dir)
	if err == nil {
		err = os.Remove(s.dir + ".lock")
	}
	s.lock.Close()
	s.dir, s.lock, s.free = "", nil, nil
	if err != nil {
		return fmt.Errorf("removing the private cache layers: %w", err)
	}
	return nil
}

// sweep removes from parent the layers of sessions that ended without
// removing them: their lock can be taken, or is gone.
func sweep(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue // a lock being made
		}
		dir := filepath.Join(parent, name)
		if base, ok := strings.CutSuffix(name, ".lock"); ok {
			dir = filepath.Join(parent, base)
		}
		lock := dir + ".lock"
		f, err := os.Open(lock)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// A session directory is made after its lock is held and
			// removed before it: without one, it is left over.
			_ = removeTree(dir)
			continue
		case err != nil:
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			if removeTree(dir) == nil {
				os.Remove(lock)
			}
		}
		f.Close()
	}
}

// removeTree removes dir and everything below it, making each directory
// writable first: the Go module cache makes its directories read-only,
// and an overlay's work directory has mode 0. A directory is opened
// without following a link before its mode changes.
func removeTree(dir string) error {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			// O_PATH opens a directory of mode 0 too; its mode is
			// changed through the descriptor's /proc link.
			if fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
				_ = unix.Chmod("/proc/self/fd/"+strconv.Itoa(fd), 0o700)
				unix.Close(fd)
			}
		}
		return nil
	})
	return os.RemoveAll(dir)
}
