package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
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
	return syscall.Exec(path, argv, withoutVar(os.Environ(), jailEnv))
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
	// /proc/self/exe is this very binary even if the file was replaced
	// or removed since it started (an upgrade during a session).
	self := "/proc/self/exe"
	if _, err := os.Stat(self); err != nil {
		if self, err = os.Executable(); err != nil {
			return "cannot locate the reasonix executable: " + err.Error()
		}
	}
	spec, err := json.Marshal(s)
	if err != nil {
		return err.Error() // cannot happen: strings and a bool
	}
	env := cmd.Env
	if env == nil {
		env = cmd.Environ()
	}
	cmd.Env = append(withoutVar(env, jailEnv), jailEnv+"="+string(spec))
	cmd.Args = append([]string{self, jailArg, cmd.Path}, cmd.Args...)
	cmd.Path = self
	return ""
}

// withoutVar returns env without the variable name.
func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
