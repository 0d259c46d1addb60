package sandbox

import (
	"errors"
	"os/exec"
	"sync"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// Host starts shell commands as units that die with Reasonix, confined by
// Jail when asked to. It implements tools.ProcessHost.
//
// On Linux every command starts under a supervisor: this same executable,
// re-executed with a marker, which starts the shell, waits for it, reports
// its exit status, and then stays to reap what the command left running.
// Reasonix kills the supervisor's process tree when the unit is stopped,
// when the host is closed, and — through the parent-death signal — when
// Reasonix itself dies, even by SIGKILL. A confined command's supervisor
// runs, where the system allows it, in new PID, mount and (without
// network) network namespaces, so that the command sees only its own
// processes, cannot escape its unit with setsid, and finds Reasonix's
// control files mounted read-only (see host_linux.go). Elsewhere a command
// is a process group.
type Host struct {
	// Jail confines commands started with confine set; nil runs every
	// command unconfined.
	Jail *Jail

	mu     sync.Mutex // guards the fields below
	units  map[unit]struct{}
	closed bool
	told   map[string]bool // notes already given

	// linux holds what the Linux supervisor learned about the system.
	linux linuxState
}

// unit is a started command as the host tracks it.
type unit interface {
	tools.ShellProcess
	// done is closed when every process of the unit has ended.
	done() <-chan struct{}
}

var _ tools.ProcessHost = (*Host)(nil)

// NewHost returns a host that confines commands with j (which may be nil).
func NewHost(j *Jail) *Host {
	return &Host{Jail: j}
}

// ErrClosed is returned by Start once the host is closed.
var ErrClosed = errors.New("the session has ended; no more commands run")

// closeWait bounds how long Close waits for the units it stopped: their
// grace period and a margin.
const closeWait = killGrace + 3*time.Second

// Close stops every unit still running and waits for them to end, for at
// most a few seconds, then removes the private layers their commands
// wrote over the shared caches.
func (h *Host) Close() error {
	err := h.stopAll()
	return errors.Join(err, h.closeLayers())
}

// stopAll stops every unit still running and waits for them to end.
func (h *Host) stopAll() error {
	h.mu.Lock()
	h.closed = true
	units := make([]unit, 0, len(h.units))
	for u := range h.units {
		units = append(units, u)
	}
	h.mu.Unlock()
	for _, u := range units {
		u.Stop()
	}
	timeout := time.After(closeWait)
	for _, u := range units {
		select {
		case <-u.done():
		case <-timeout:
			return errors.New("some shell commands did not end in time")
		}
	}
	return nil
}

// Running reports whether any unit still has processes running.
func (h *Host) Running() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.units) > 0
}

// trackOrStop tracks u and returns it, or stops it when the host closed
// meanwhile.
func (h *Host) trackOrStop(u unit) (tools.ShellProcess, error) {
	if err := h.track(u); err != nil {
		u.Stop()
		return nil, err
	}
	return u, nil
}

// track adds u to the live units until it is done. It fails once the host
// is closed; the caller then stops u.
func (h *Host) track(u unit) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	if h.units == nil {
		h.units = map[unit]struct{}{}
	}
	h.units[u] = struct{}{}
	h.mu.Unlock()
	go func() {
		<-u.done()
		h.mu.Lock()
		delete(h.units, u)
		h.mu.Unlock()
	}()
	return nil
}

// once returns note the first time it is given, and "" afterwards.
func (h *Host) once(note string) string {
	if note == "" {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.told[note] {
		return ""
	}
	if h.told == nil {
		h.told = map[string]bool{}
	}
	h.told[note] = true
	return note
}

// isClosed reports whether Close was called.
func (h *Host) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// groupUnit is a command run as a plain process group: the fallback where
// there is no supervisor. Its processes that leave the group (setsid) are
// out of reach.
type groupUnit struct {
	cmd      *exec.Cmd
	confined bool
	notes    []string
	exited   chan struct{}
	status   tools.ExitStatus
	stopOnce sync.Once
}

// startGroup starts cmd as the leader of a new process group.
func startGroup(cmd *exec.Cmd, confined bool, notes []string) (*groupUnit, error) {
	prepareTree(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &groupUnit{cmd: cmd, confined: confined, notes: notes, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		g.status = statusOf(cmd.ProcessState)
		g.status.Notes = g.notes
		close(g.exited)
	}()
	return g, nil
}

func (g *groupUnit) Wait() tools.ExitStatus { <-g.exited; return g.status }
func (g *groupUnit) Confined() bool         { return g.confined }
func (g *groupUnit) Running() bool          { return isOpen(g.exited) }

// isOpen reports whether ch is not closed yet.
func isOpen(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return false
	default:
		return true
	}
}

// Stop signals the whole group, which outlives its leader for as long as
// any member does.
func (g *groupUnit) Stop() {
	g.stopOnce.Do(func() { _ = killTree(g.cmd.Process) })
}

// done is the shell's end: a group's other members cannot be waited for.
func (g *groupUnit) done() <-chan struct{} { return g.exited }
