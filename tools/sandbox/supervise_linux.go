package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The unit protocol. Host.Start runs
//
//	<this executable> unitArg <command path> <command argv...>
//
// with a unitSpec as JSON in unitEnv and the write end of a status pipe as
// descriptor 3. The package's init sees unitArg and becomes the unit's
// supervisor: it sets up the namespaces it was started in, starts the
// command (through the jail's own marker when the spec carries a jail),
// writes "exit <wait status>" to the pipe when the command's shell ends,
// and then reaps whatever the command left running until nothing is left,
// or until it is told to end the unit.
const (
	unitArg  = "__reasonix_unit__"
	unitEnv  = "REASONIX_UNIT"
	statusFD = 3
)

// unitSpec is what a supervisor is asked to set up.
type unitSpec struct {
	// Jail, when set, confines the command.
	Jail *jailSpec `json:"jail,omitempty"`
	// Proc mounts a /proc of the supervisor's PID namespace, so the
	// command sees its own processes only.
	Proc bool `json:"proc,omitempty"`
	// Loopback brings up the loopback interface of a new network
	// namespace; there is no other.
	Loopback bool `json:"lo,omitempty"`
	// ReadOnly are paths to bind read-only over themselves.
	ReadOnly []string `json:"ro,omitempty"`
	// Hide asks that the jail's forbidden paths be hidden by mounts
	// rather than kept out by Landlock alone (see hideForbidden).
	Hide bool `json:"hide,omitempty"`
	// Caches are the shared caches to put a private layer over (see
	// overlayCaches).
	Caches []cacheLayer `json:"caches,omitempty"`
	// Outside, when set, is the unprivileged user this supervisor runs
	// as, outside the namespaces it is to set up: it starts the real
	// supervisor in them, inside a user namespace whose root is this
	// user, and waits for it.
	Outside *idMap `json:"outside,omitempty"`
	// Network is whether the namespaces leave the network on (Outside
	// only: inside, Loopback says it).
	Network bool `json:"network,omitempty"`
	// User, when set, runs the command in a user namespace of its own
	// that maps these ids to the supervisor's root, which is the user's
	// own uid outside: the command runs as the user it would have been,
	// without the supervisor's capabilities.
	User *idMap `json:"user,omitempty"`
}

type idMap struct {
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// supervise is the supervisor's life; it returns the exit code.
func supervise(raw, path string, argv []string) int {
	unix.CloseOnExec(statusFD)
	status := os.NewFile(statusFD, "status")
	var s unitSpec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		fmt.Fprintf(os.Stderr, "reasonix: bad %s: %v\n", unitEnv, err)
		return 126
	}
	note := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		fmt.Fprintf(status, "note %s\n", bytes.ReplaceAll([]byte(msg), []byte("\n"), []byte(" ")))
	}
	if s.Outside != nil {
		code, err := superviseOutside(s)
		if err == nil {
			return code
		}
		note(noNamespacesNote, err)
		s.fallBackCaches(err, note)
		s = unitSpec{Jail: s.Jail}
	}
	pid1 := os.Getpid() == 1
	setUp(&s, note)
	if !pid1 {
		// Orphans of the command become our children rather than
		// init's, so that endChildren can find them.
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}

	childPath, childArgv, env := path, argv, withoutVar(os.Environ(), unitEnv)
	if s.Jail != nil {
		self, err := selfExecutable()
		if err != nil {
			fmt.Fprintf(os.Stderr, "reasonix: shell sandbox: %v\n", err)
			return 126
		}
		childPath, childArgv, env = jailedCommand(self, path, argv, env, *s.Jail)
	}
	sys := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if s.User != nil {
		sys.Cloneflags = syscall.CLONE_NEWUSER
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: s.User.UID, HostID: 0, Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: s.User.GID, HostID: 0, Size: 1}}
		sys.GidMappingsEnableSetgroups = false
	}
	ends := make(chan os.Signal, 1)
	signal.Notify(ends, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	child, err := syscall.ForkExec(childPath, childArgv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
		Sys:   sys,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "reasonix: cannot start %s: %v\n", path, err)
		return 127
	}
	// The command's output ends when its processes close it, not when
	// we do: a server started with its output redirected must not keep
	// the command's output open through us.
	detachStdio()
	go func() {
		<-ends
		if !pid1 {
			endChildren()
		}
		// In a PID namespace, the kernel kills every other process in
		// it when its first one exits.
		os.Exit(143)
	}()
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			// ECHILD: the command and all it left behind are gone.
			return 0
		case pid == child:
			fmt.Fprintf(status, "exit %d\n", uint32(ws))
			status.Close()
		}
	}
}

// superviseOutside starts the supervisor of s inside new user, PID, mount
// and (without network) network namespaces, and waits for it, passing on
// its end. It returns an error only when the namespaces cannot be made.
func superviseOutside(s unitSpec) (int, error) {
	in := s
	in.Outside = nil
	in.Proc = true
	in.Loopback = !s.Network
	in.User = s.Outside // the command runs as the user again
	raw, err := json.Marshal(in)
	if err != nil {
		return 0, err
	}
	self, err := selfExecutable()
	if err != nil {
		return 0, err
	}
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS)
	if !s.Network {
		flags |= syscall.CLONE_NEWNET
	}
	ends := make(chan os.Signal, 1)
	signal.Notify(ends, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	pid, err := syscall.ForkExec(self, append([]string{self, unitArg}, os.Args[2:]...), &syscall.ProcAttr{
		Env:   append(withoutVar(os.Environ(), unitEnv), unitEnv+"="+string(raw)),
		Files: []uintptr{0, 1, 2, statusFD},
		Sys: &syscall.SysProcAttr{
			Cloneflags:                 flags,
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: s.Outside.UID, Size: 1}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: s.Outside.GID, Size: 1}},
			GidMappingsEnableSetgroups: false,
			Pdeathsig:                  syscall.SIGKILL,
		},
	})
	if err != nil {
		signal.Stop(ends)
		return 0, err
	}
	// The status pipe and the output are the inner supervisor's.
	unix.Close(statusFD)
	detachStdio()
	go func() {
		<-ends
		// The namespace ends with its first process.
		syscall.Kill(pid, syscall.SIGKILL)
	}()
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		switch {
		case err != nil:
			return 1, nil
		case ws.Signaled():
			return 128 + int(ws.Signal()), nil
		}
		return ws.ExitStatus(), nil
	}
}

// detachStdio points the standard descriptors at /dev/null.
func detachStdio() {
	null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	for fd := range 3 {
		_ = unix.Dup3(null, fd, 0)
	}
	unix.Close(null)
}

// setUp prepares the namespaces the supervisor was started in, and leaves
// in s.Jail.Forbid only the paths it could not hide. What fails is
// reported through note and left out: the command still runs, in its
// jail, with the isolation that could be had.
func setUp(s *unitSpec, note func(string, ...any)) {
	hide := s.Hide && s.Jail != nil && len(s.Jail.Forbid) > 0
	caches := s.Jail != nil && len(s.Caches) > 0
	if s.Proc || len(s.ReadOnly) > 0 || hide || caches {
		// Our mounts must not propagate back to the parent namespace.
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			note("Note: commands see every process of the user and may change Reasonix's control files while they run (cannot set up a mount namespace: %v).", err)
			s.fallBackCaches(err, note)
			return
		}
	}
	// Before the read-only binds: the layers lie in Reasonix's
	// directory, which is one.
	if caches {
		jail := *s.Jail
		if err := overlayCaches(&jail, s.Caches); err != nil {
			note(privateCachesNote, err)
		}
		s.Jail = &jail
	}
	if s.Proc {
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			note("Note: commands see every process of the user and can read their environment (cannot mount a private /proc: %v).", err)
		}
	}
	for _, p := range s.ReadOnly {
		if err := bindReadOnly(p); err != nil {
			note("Note: %s is not read-only to commands (%v); Reasonix undoes changes to it after each command.", p, err)
		}
	}
	// After the read-only binds, which a hidden directory may hold.
	if hide {
		jail := *s.Jail
		var err error
		// Without a user namespace of its own, a command of root's
		// is root, able to look inside a directory of mode 0.
		asRoot := s.User == nil && os.Geteuid() == 0
		jail.Forbid, err = hideForbidden(s.Jail.Forbid, asRoot)
		if err != nil {
			note(notHiddenNote, err)
		}
		s.Jail = &jail
	}
	if s.Loopback {
		if err := loopbackUp(); err != nil {
			note("Note: the loopback interface is down in the command's network namespace (%v); localhost is unreachable.", err)
		}
	}
}

// notHiddenNote says that a forbidden path is kept out of commands by
// Landlock alone, and what that costs; %v says why.
const notHiddenNote = "Note: a forbid_read path could not be hidden from commands (%v); in a directory on the way to it, a file a command creates cannot be read back by that same command."

// bindReadOnly mounts path read-only over itself, if it exists and is not
// a symbolic link (a control path is stored resolved; a link there now
// was put there since, and binding would follow it). A mount point can
// be neither renamed nor removed, so the name is protected as well as the
// content.
func bindReadOnly(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) || err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil
	}
	if err != nil {
		return err
	}
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind: %w", err)
	}
	// A remount inside a user namespace must keep the flags the mount
	// was locked with.
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID},
		{unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME},
		{unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := unix.Mount("", path, "", flags, ""); err != nil {
		return fmt.Errorf("remount read-only: %w", err)
	}
	return nil
}

// loopbackUp brings up lo, the one interface of a new network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	ifr.SetUint16(unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// endChildren ends the processes of a unit that is not a PID namespace:
// the supervisor's children, which, since it is a subreaper, include
// every orphan of the command — a daemon that used setsid to leave the
// command's process group too. Each is sent SIGTERM, with its process
// group if it leads one; when a child dies, its own children become ours
// and are found on the next pass. After killGrace the signal is SIGKILL.
// The main loop reaps them meanwhile.
func endChildren() {
	start := time.Now()
	sig := syscall.SIGTERM
	for {
		kids := childrenOf(os.Getpid())
		if len(kids) == 0 {
			return
		}
		since := time.Since(start)
		if since > killGrace {
			sig = syscall.SIGKILL
		}
		if since > killGrace+3*time.Second {
			return // something we cannot kill; give up rather than hang
		}
		for _, k := range kids {
			_ = syscall.Kill(-k, sig)
			_ = syscall.Kill(k, sig)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// childrenOf lists the live (not zombie) children of pid, from /proc.
func childrenOf(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		var state byte
		var ppid int
		if _, err := fmt.Sscanf(string(b[i+1:]), " %c %d", &state, &ppid); err != nil {
			continue
		}
		if ppid == pid && state != 'Z' && state != 'X' {
			out = append(out, p)
		}
	}
	return out
}
