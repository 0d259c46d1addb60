package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// environFD names the variable that tells a re-executed reasonix which
// descriptor holds its real environment.
const environFD = "REASONIX_ENVIRON_FD"

// hideEnvironment keeps the environment — the model's API key among it —
// out of reach of the programs the agent runs.
//
// Any process of the same user can read /proc/<pid>/environ of another,
// which is the environment as the process was started, whatever it did
// with it since; a command the agent runs can find Reasonix's pid in
// $PPID. So Reasonix makes itself non-dumpable (the kernel then lets
// only a process with CAP_SYS_PTRACE read its /proc entries: root, but
// not the user's programs), and re-executes itself with an environment
// that holds nothing but the Go runtime's settings, receiving the real
// one through a memory file that it reads and closes at once. The second
// part is for root, who is not stopped by the first. Reasonix itself,
// and everything it starts, sees the environment as usual.
//
// If the re-execution cannot be done, Reasonix goes on with its
// environment visible, as before; nothing is lost.
func hideEnvironment() {
	// PR_SET_DUMPABLE does not survive an exec: set it in both images.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if v, ok := os.LookupEnv(environFD); ok {
		restoreEnvironment(v)
		return
	}
	environ := os.Environ()
	keep := runtimeVars(environ)
	if len(keep) == len(environ) {
		return // nothing to hide
	}
	fd, err := unix.MemfdCreate("reasonix-environ", 0) // no CLOEXEC: the new image inherits it
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "environ")
	if _, err := f.Write([]byte(strings.Join(environ, "\x00"))); err != nil {
		f.Close()
		return
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return
	}
	self := "/proc/self/exe"
	err = syscall.Exec(self, os.Args, append(keep, environFD+"="+strconv.Itoa(fd)))
	// Only a failure returns.
	f.Close()
	_ = err
}

// restoreEnvironment reads the environment from the descriptor v names.
func restoreEnvironment(v string) {
	os.Unsetenv(environFD)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return
	}
	f := os.NewFile(uintptr(fd), "environ")
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return
	}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && k != "" && k != environFD {
			os.Setenv(k, v)
		}
	}
}

// runtimeVars returns the variables the Go runtime reads as it starts,
// before main, which must therefore stay in the environment itself.
func runtimeVars(environ []string) []string {
	var out []string
	for _, kv := range environ {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GODEBUG", "GOGC", "GOMEMLIMIT", "GOMAXPROCS", "GOTRACEBACK", "GORACE":
			out = append(out, kv)
		}
	}
	return out
}
