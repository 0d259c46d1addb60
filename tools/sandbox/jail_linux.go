package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/reasonix/reasonix/tools"
)

// The re-exec protocol. Confine turns `shell -c command` into
//
//	<this executable> jailArg <shell path> <shell argv...>
//
// with the policy as JSON in jailEnv. The package's init, which runs in
// any binary that links this package (reasonix and test binaries alike),
// sees jailArg, confines its own process and execs the shell in its place:
// same pid, same process group, so killing the group still reaches
// everything the command started. The marker is an argument rather than
// only a variable so that a stray REASONIX_JAIL in someone's environment
// cannot turn reasonix into a shell launcher.
const (
	jailArg = "__reasonix_jail__"
	jailEnv = "REASONIX_JAIL"
)

func init() {
	if len(os.Args) >= 4 && os.Args[1] == unitArg {
		os.Exit(supervise(os.Getenv(unitEnv), os.Args[2], os.Args[3:]))
	}
	if len(os.Args) < 4 || os.Args[1] != jailArg {
		return
	}
	// Landlock and no_new_privs are properties of a thread, and execve
	// keeps those of the thread that calls it: stay on one thread from
	// restricting to exec. Nothing else of this program runs.
	runtime.LockOSThread()
	err := enterJail(os.Getenv(jailEnv), os.Args[2], os.Args[3:])
	fmt.Fprintf(os.Stderr, "reasonix: shell sandbox: cannot confine the command: %v\n"+
		"(set [sandbox] bash = \"off\" to run commands unconfined)\n", err)
	os.Exit(126)
}

// enterJail confines the process as spec says and replaces it with path
// and argv. It returns only on failure.
func enterJail(spec, path string, argv []string) error {
	var s jailSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		return fmt.Errorf("bad %s: %w", jailEnv, err)
	}
	abi, err := landlockABI()
	if err != nil {
		return err
	}
	grants := []rule{
		{"/", llRead},
		{"/dev/null", llDevRW},
		{"/dev/zero", llDevRW},
		{"/dev/tty", unix.LANDLOCK_ACCESS_FS_WRITE_FILE},
	}
	for _, w := range s.Write {
		grants = append(grants, rule{w, llAll})
	}
	if err := restrictSelf(abi, plan(grants, s.Forbid), s.Network); err != nil {
		return err
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	drop := append([]string{jailEnv}, s.Unset...)
	for _, kv := range s.Env {
		name, _, _ := strings.Cut(kv, "=")
		drop = append(drop, name)
	}
	env := append(tools.WithoutVars(os.Environ(), drop), s.Env...)
	return syscall.Exec(path, argv, env)
}

// jailDropsCaps are the capabilities a command run as root loses in the
// jail: those that reach past Landlock and the namespaces rather than
// administer files — open a file by handle through another mount (around
// the read-only control files), read other processes' memory and
// environment, load modules, touch raw devices and kernel settings.
// Ordinary root work (owning files, installing packages) keeps what it
// needs.
var jailDropsCaps = []uintptr{
	unix.CAP_SYS_ADMIN, unix.CAP_DAC_READ_SEARCH, unix.CAP_SYS_PTRACE, unix.CAP_SYS_MODULE,
	unix.CAP_SYS_RAWIO, unix.CAP_SYS_BOOT, unix.CAP_MAC_ADMIN, unix.CAP_MAC_OVERRIDE,
	unix.CAP_SYSLOG, unix.CAP_BPF, unix.CAP_PERFMON, unix.CAP_CHECKPOINT_RESTORE,
	unix.CAP_NET_ADMIN, unix.CAP_SYS_TIME, unix.CAP_LINUX_IMMUTABLE,
}

// dropCapabilities takes jailDropsCaps out of the bounding set, so that
// the shell about to be executed, and everything it runs, never has them.
// Only a process holding CAP_SETPCAP can; without it there is nothing to
// take away (an unprivileged user's command has no capabilities). A
// capability the kernel does not know is skipped.
func dropCapabilities() error {
	for _, c := range jailDropsCaps {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
		switch {
		case err == nil, errors.Is(err, unix.EINVAL):
		case errors.Is(err, unix.EPERM):
			return nil
		default:
			return fmt.Errorf("dropping capability %d: %w", c, err)
		}
	}
	return nil
}

// Available reports whether shell commands can be confined here, and if
// not, why.
func Available() error {
	_, err := landlockABI()
	return err
}

// confine rewrites cmd to start through the jail, or returns why it
// cannot.
func confine(cmd *exec.Cmd, s jailSpec) (unavailable string) {
	if _, err := landlockABI(); err != nil {
		return err.Error()
	}
	self, err := selfExecutable()
	if err != nil {
		return err.Error()
	}
	env := cmd.Env
	if env == nil {
		env = cmd.Environ()
	}
	cmd.Path, cmd.Args, cmd.Env = jailedCommand(self, cmd.Path, cmd.Args, env, s)
	return ""
}

// Close removes the private caches of the commands another program
// started (ConfineExternal). The jail stays usable: a later command gets
// new ones.
func (j *Jail) Close() error {
	return j.external.close()
}

// externalCaches gives a command another program starts, without a mount
// namespace of Reasonix's making, private caches through its environment
// env (see fallBackCaches). They are plain directories, which commands
// running at once may share.
func (j *Jail) externalCaches(s *jailSpec, env []string) {
	caches := j.caches(s.Write, s.Forbid)
	if len(caches) == 0 || j.Layers == "" {
		return // the caches are read-only, and there is no private one
	}
	slot, layers, err := j.external.take(j.Layers, caches)
	if err != nil {
		return
	}
	j.external.put(slot)
	fallBackCaches(s, layers, envLookup(env))
}

// confineExternal rewrites cmd to start through the jail from another
// program, or returns why it cannot (see Jail.ConfineExternal).
func (j *Jail) confineExternal(cmd *exec.Cmd, s jailSpec) error {
	if _, err := landlockABI(); err != nil {
		return err
	}
	self, err := externalExecutable()
	if err != nil {
		return err
	}
	env := cmd.Env
	if env == nil {
		env = cmd.Environ()
	}
	j.externalCaches(&s, env)
	cmd.Path, cmd.Args, cmd.Env = jailedCommand(self, cmd.Path, cmd.Args, env, s)
	return nil
}

// externalExecutable returns the path on disk of this very binary, for
// another program to start. A binary replaced or removed since it started
// (an upgrade during a session) is refused: the file at the path is not
// the program that wrote the jail's spec.
func externalExecutable() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot locate the reasonix executable: %w", err)
	}
	onDisk, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("cannot locate the reasonix executable: %w", err)
	}
	running, err := os.Stat("/proc/self/exe")
	if err == nil && !os.SameFile(onDisk, running) {
		return "", fmt.Errorf("%s was replaced since Reasonix started", p)
	}
	return p, nil
}

// jailedCommand returns the path, arguments and environment that run path
// with argv and env inside the jail s: self, this executable, with the
// marker and the spec (see the package's init).
func jailedCommand(self, path string, argv, env []string, s jailSpec) (string, []string, []string) {
	spec, _ := json.Marshal(s) // cannot fail: strings and a bool
	return self, append([]string{self, jailArg, path}, argv...), append(withoutVar(env, jailEnv), jailEnv+"="+string(spec))
}

// withoutVar returns env without the variable name.
func withoutVar(env []string, name string) []string {
	return tools.WithoutVars(env, []string{name})
}
