package tools

import (
	"os/exec"
	"strings"
)

// ProcessHost starts the shell commands of a session. Each command is a
// unit: the shell and every process it starts, background jobs and
// daemons that put themselves in a session of their own included. A
// command may leave processes running after its shell has exited (a
// server started with `&` for the next command to talk to); they live
// until the unit is stopped or the host is closed, and never outlive
// Reasonix. tools/sandbox provides the implementation.
type ProcessHost interface {
	// Start starts cmd, which is built but not started and has its
	// output set. With confine the command runs in the shell sandbox,
	// when the host has one and the system supports it.
	Start(cmd *exec.Cmd, confine bool) (ShellProcess, error)
	// Close stops every unit still running and waits, briefly, for them
	// to go. Start fails afterwards.
	Close() error
	// Running reports whether any unit still has processes running.
	Running() bool
}

// ShellProcess is one started command.
type ShellProcess interface {
	// Wait waits for the command's shell to end and reports how it
	// ended. Processes it left in the background go on running.
	Wait() ExitStatus
	// Stop ends the command's shell and every process it started:
	// politely first, then by force.
	Stop()
	// Confined reports whether the command runs in the shell sandbox.
	Confined() bool
	// Running reports whether any process of the command still runs.
	Running() bool
}

// ExitStatus is how a shell ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when a signal ended the shell.
	Code int
	// Signal is the number of the signal that ended it, or 0.
	Signal int
	// SignalName names Signal ("killed", "terminated").
	SignalName string
	// Notes tell the model something about how the command ran that it
	// cannot see in the output, such as the sandbox being unavailable.
	Notes []string
}

// WithoutVars returns environ without the named variables: secrets such
// as the model's API key are not for the programs Reasonix starts.
func WithoutVars(environ, names []string) []string {
	if len(names) == 0 {
		return environ
	}
	hide := make(map[string]bool, len(names))
	for _, n := range names {
		hide[n] = true
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !hide[name] {
			out = append(out, kv)
		}
	}
	return out
}
