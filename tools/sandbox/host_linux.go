package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// linuxState is what the host's units learned about the system, and the
// private layers of their caches.
type linuxState struct {
	// nsOff is set once starting a command in namespaces failed: the
	// system refuses them, and confined commands run without.
	nsOff atomic.Bool
	// layers are the private layers over the shared caches.
	layers layerStore
}

// closeLayers removes the private layers of the host's units.
func (h *Host) closeLayers() error {
	return h.linux.layers.close()
}

// Start starts cmd under a supervisor (see supervise_linux.go), confined
// when confine is set and the host has a jail that the kernel supports.
// A confined command's supervisor starts in new PID and mount namespaces,
// and in a new network namespace when the jail allows no network; for a
// user other than root, inside a new user namespace that makes this
// possible without privileges. If the system refuses the namespaces, the
// command runs without them, and the model is told once what that leaves
// open.
func (h *Host) Start(cmd *exec.Cmd, confine bool) (tools.ShellProcess, error) {
	if h.isClosed() {
		return nil, ErrClosed
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	// The supervisor would start; fail here, the ordinary way, for a
	// shell that cannot.
	if _, err := exec.LookPath(cmd.Path); err != nil {
		return nil, err
	}
	var notes []string
	var spec unitSpec
	// slot holds the private layers of the command's caches, for as
	// long as its unit lives.
	var slot string
	if confine && h.Jail != nil {
		if _, err := landlockABI(); err != nil {
			notes = appendNote(notes, h.once(fmt.Sprintf(unavailableNote, err)))
		} else {
			js := h.Jail.spec()
			spec.Jail = &js
			var err error
			slot, spec.Caches, err = h.cacheLayers(js)
			if err != nil {
				notes = appendNote(notes, h.once(fmt.Sprintf(noLayersNote, err)))
			}
		}
	}
	self, err := selfExecutable()
	if err != nil {
		// Without a supervisor the command is a plain process group,
		// and unconfined: the jail starts through this executable too.
		notes = appendNote(notes, h.once("Note: commands run unconfined and may outlive Reasonix: "+err.Error()))
		g, err := startGroup(cmd, false, notes)
		if err != nil {
			return nil, err
		}
		return h.trackOrStop(g)
	}
	putBack := func() {
		if slot != "" {
			h.linux.layers.put(slot)
		}
	}
	for {
		ns := spec.Jail != nil && !h.linux.nsOff.Load()
		us := spec
		if !ns && len(spec.Caches) > 0 {
			// No mount namespace for the overlays: private caches
			// through the environment.
			js := *spec.Jail
			env := cmd.Env
			if env == nil {
				env = cmd.Environ()
			}
			for _, n := range cachesNotes(errors.New("no mount namespace"), fallBackCaches(&js, spec.Caches, envLookup(env))) {
				notes = appendNote(notes, h.once(n))
			}
			us.Jail, us.Caches = &js, nil
		}
		sup, err := h.supervisorCmd(cmd, self, us, ns)
		if err != nil {
			putBack()
			return nil, err
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			putBack()
			return nil, err
		}
		sup.ExtraFiles = []*os.File{pw}
		err = sup.Start()
		pw.Close()
		if err != nil {
			pr.Close()
			if ns && namespacesRefused(err) {
				h.linux.nsOff.Store(true)
				notes = appendNote(notes, h.once(fmt.Sprintf(noNamespacesNote, err)))
				continue
			}
			putBack()
			return nil, err
		}
		if spec.Jail != nil {
			h.Jail.hides.Store(ns)
		}
		u := &supUnit{
			h: h, cmd: sup, ns: ns, confined: spec.Jail != nil, notes: notes, slot: slot,
			exited: make(chan struct{}), finished: make(chan struct{}),
		}
		go u.wait()
		go u.readStatus(pr)
		return h.trackOrStop(u)
	}
}

// cacheLayers takes a slot of private layers for the caches a command
// confined by js may not change. Without a directory for them, or when
// one cannot be made (err), the caches are read-only to the command and
// it has no private ones.
func (h *Host) cacheLayers(js jailSpec) (slot string, layers []cacheLayer, err error) {
	caches := h.Jail.caches(js.Write, js.Forbid)
	if len(caches) == 0 || h.Jail.Layers == "" {
		return "", nil, nil
	}
	return h.linux.layers.take(h.Jail.Layers, caches)
}

// Notes for the model about what a confined command's unit lacks.
const (
	noNamespacesNote = "Note: the system refuses the namespaces that isolate a command (%v); commands see every process of the user, can read their environment, can leave the unit with setsid, and UDP is not blocked."
)

func appendNote(notes []string, n string) []string {
	if n == "" {
		return notes
	}
	return append(notes, n)
}

// selfExecutable returns a path that executes this very binary, even if
// its file was replaced or removed since it started (an upgrade during a
// session).
func selfExecutable() (string, error) {
	const self = "/proc/self/exe"
	if _, err := os.Stat(self); err == nil {
		return self, nil
	}
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot locate the reasonix executable: %w", err)
	}
	return p, nil
}

// supervisorCmd builds the command that starts cmd's supervisor.
func (h *Host) supervisorCmd(cmd *exec.Cmd, self string, spec unitSpec, ns bool) (*exec.Cmd, error) {
	attr := &syscall.SysProcAttr{
		// A session of its own, as for any command (see prepareTree),
		// and the supervisor's death signal: SIGTERM gives it the chance
		// to end its unit; in a PID namespace SIGKILL does that itself.
		Setsid:    true,
		Pdeathsig: syscall.SIGTERM,
	}
	if ns {
		spec.Proc = true
		spec.Loopback = !h.Jail.Network
		spec.ReadOnly = h.Jail.readOnly(spec.Jail.Write)
		spec.Hide = true
		attr.Pdeathsig = syscall.SIGKILL
		attr.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
		if !h.Jail.Network {
			attr.Cloneflags |= syscall.CLONE_NEWNET
		}
		if uid := os.Geteuid(); uid != 0 {
			// Without privileges the namespaces need a user namespace,
			// whose id maps only the parent may write: this process is
			// not dumpable (see hideEnvironment), so its children's maps
			// are closed to it. The supervisor makes them instead, from
			// outside (see superviseOutside).
			attr.Cloneflags = 0
			spec.Outside = &idMap{UID: uid, GID: os.Getegid()}
			spec.Network = h.Jail.Network
		}
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	env := cmd.Env
	if env == nil {
		env = cmd.Environ()
	}
	return &exec.Cmd{
		Path:        self,
		Args:        append([]string{self, unitArg, cmd.Path}, cmd.Args...),
		Dir:         cmd.Dir,
		Env:         append(withoutVar(env, unitEnv), unitEnv+"="+string(raw)),
		Stdin:       cmd.Stdin,
		Stdout:      cmd.Stdout,
		Stderr:      cmd.Stderr,
		SysProcAttr: attr,
	}, nil
}

// namespacesRefused reports whether starting a process failed because the
// system does not let us create its namespaces: no unprivileged user
// namespaces, a container's seccomp profile, exhausted limits.
func namespacesRefused(err error) bool {
	for _, e := range []error{syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS, syscall.EACCES, syscall.ENOSYS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// supUnit is a command run under a supervisor.
type supUnit struct {
	h        *Host
	cmd      *exec.Cmd // the supervisor
	ns       bool      // the supervisor is the first process of a PID namespace
	confined bool
	slot     string // the private layers of the caches, "" for none

	mu     sync.Mutex // guards notes and status until exited is closed
	notes  []string
	status tools.ExitStatus

	exited   chan struct{} // closed once the shell's end is known
	finished chan struct{} // closed once the supervisor has ended
	stopOnce sync.Once
}

func (u *supUnit) Confined() bool        { return u.confined }
func (u *supUnit) Running() bool         { return isOpen(u.finished) }
func (u *supUnit) done() <-chan struct{} { return u.finished }

func (u *supUnit) Wait() tools.ExitStatus {
	<-u.exited
	u.mu.Lock()
	defer u.mu.Unlock()
	st := u.status
	st.Notes = append([]string(nil), u.notes...)
	return st
}

// wait reaps the supervisor, and gives the unit's private layers back:
// its mount namespace, and so its overlays, ended with it.
func (u *supUnit) wait() {
	_ = u.cmd.Wait()
	if u.slot != "" {
		u.h.linux.layers.put(u.slot)
	}
	close(u.finished)
}

// readStatus reads the supervisor's reports: "note <text>" lines, then
// "exit <wait status>" when the shell ends. A supervisor that ends
// without reporting (it was killed) gives its own end as the shell's.
func (u *supUnit) readStatus(r io.ReadCloser) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	reported := false
	for sc.Scan() {
		kind, text, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "note":
			u.mu.Lock()
			u.notes = appendNote(u.notes, u.h.once(text))
			u.mu.Unlock()
		case "exit":
			ws, err := strconv.ParseUint(text, 10, 32)
			if err != nil || reported {
				continue
			}
			u.mu.Lock()
			u.status = waitStatus(syscall.WaitStatus(ws))
			u.mu.Unlock()
			reported = true
			close(u.exited)
		}
	}
	if !reported {
		<-u.finished
		u.mu.Lock()
		u.status = statusOf(u.cmd.ProcessState)
		u.mu.Unlock()
		close(u.exited)
	}
}

// Stop ends the unit. The first process of a PID namespace takes every
// other one with it when it dies, so SIGKILL is enough there. Otherwise
// the supervisor gets SIGTERM and ends the processes it knows of (see
// endChildren); if it has not gone after its grace period, what is left
// of its process group is killed.
func (u *supUnit) Stop() {
	u.stopOnce.Do(func() {
		if u.ns {
			_ = u.cmd.Process.Signal(syscall.SIGKILL)
			return
		}
		_ = u.cmd.Process.Signal(syscall.SIGTERM)
		pgid := u.cmd.Process.Pid
		time.AfterFunc(killGrace+time.Second, func() {
			select {
			case <-u.finished:
			default:
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
		})
	})
}
