package sandbox

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock access rights, grouped the way the jail grants them.
const (
	// llRead is what every path outside forbid_read gets.
	llRead = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_EXECUTE

	// llFileOnly are the rights that apply to a file rather than to the
	// entries of a directory; the kernel refuses anything else in a rule
	// on a file.
	llFileOnly = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

	// llDirOnly are the rights about a directory's entries, which reveal
	// nothing of the files' contents: list them, create, remove, rename.
	// A directory on the way to a forbidden path keeps these (see plan).
	llDirOnly = unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM | unix.LANDLOCK_ACCESS_FS_REFER

	// llAll is every filesystem right the jail knows of; handledFS trims
	// it to what the running kernel supports.
	llAll = llFileOnly | llDirOnly

	// llDevRW is for /dev/null and /dev/zero.
	llDevRW = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
)

// handledFS returns the filesystem rights a ruleset handles at Landlock
// ABI version abi: all of them that the kernel knows. A right the kernel
// does not know is not restricted at all: renaming across directories
// before ABI 2 (it is refused outright instead), truncating before ABI 3,
// device ioctls before ABI 5.
func handledFS(abi int) uint64 {
	r := uint64(llAll)
	if abi < 2 {
		r &^= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi < 3 {
		r &^= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi < 5 {
		r &^= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// handledNet returns the network rights to handle: TCP bind and connect
// (ABI 4) when the network is off, with no rule, so every attempt fails
// with EACCES.
func handledNet(abi int, network bool) uint64 {
	if network || abi < 4 {
		return 0
	}
	return unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
}

// scopes returns the IPC scopes (ABI 6): no signals to, and no abstract
// Unix socket connections with, processes outside the command's own
// domain. Reasonix itself and the user's other programs are outside;
// the command's own children are inside, so `kill $!` still works.
func scopes(abi int) uint64 {
	if abi < 6 {
		return 0
	}
	return unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
}

// rulesetAttrSize is how much of struct landlock_ruleset_attr the kernel
// at abi reads: handled_access_fs (ABI 1), handled_access_net (ABI 4),
// scoped (ABI 6). x/sys/unix's struct has fields for later versions that
// must stay zero.
func rulesetAttrSize(abi int) uintptr {
	switch {
	case abi < 4:
		return 8
	case abi < 6:
		return 16
	default:
		return 24
	}
}

// landlockABI reports the Landlock ABI version of the running kernel, or
// why Landlock cannot be used. It is asked once per process.
var landlockABI = sync.OnceValues(func() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == unix.ENOSYS:
		return 0, errors.New("the kernel has no Landlock support (Linux 5.13 or later is needed)")
	case errno == unix.EOPNOTSUPP:
		return 0, errors.New("Landlock is disabled in the kernel; add it to the lsm= boot parameter")
	case errno == unix.EPERM:
		return 0, errors.New("the Landlock system calls are blocked, probably by a container's seccomp profile")
	case errno != 0:
		return 0, fmt.Errorf("Landlock: %w", errno)
	case int(v) < 1:
		return 0, fmt.Errorf("Landlock reports ABI version %d", int(v))
	}
	return int(v), nil
})

// restrictSelf confines the calling thread, and every process it execs or
// starts from now on, to the rules. It sets no_new_privs, which Landlock
// requires of an unprivileged caller and which also keeps setuid programs
// from regaining what the ruleset takes away.
func restrictSelf(abi int, rules []rule, network bool) error {
	handled := handledFS(abi)
	attr := unix.LandlockRulesetAttr{
		Handled_access_fs:  handled,
		Handled_access_net: handledNet(abi, network),
		Scoped:             scopes(abi),
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET,
		uintptr(unsafe.Pointer(&attr)), rulesetAttrSize(abi), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	ruleset := int(fd)
	defer unix.Close(ruleset)

	for _, r := range rules {
		if err := addRule(ruleset, r, handled); err != nil {
			return err
		}
	}

	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// addRule allows r.access beneath r.path. A path that cannot be opened
// (it is gone, or was never there, like an unused cache directory) or that
// lives on a filesystem Landlock cannot tag is skipped: a missing rule only
// ever takes access away. Any other refusal is a bug in the rights the
// jail asked for, and fails the command rather than hiding it.
func addRule(ruleset int, r rule, handled uint64) error {
	// O_PATH opens without needing read access; plan never hands over a
	// symbolic link, which this would follow.
	fd, err := unix.Open(r.path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	access := r.access & handled
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llFileOnly
	}
	if access == 0 {
		return nil
	}
	// The kernel reads the packed C struct: the u64 then the s32, which
	// is the Go struct's layout minus its trailing padding.
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset),
		unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 && errno != unix.EBADFD {
		return fmt.Errorf("landlock_add_rule %s: %w", r.path, errno)
	}
	return nil
}
