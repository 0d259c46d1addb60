package builtin

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/reasonix/reasonix/tools"
)

// execTerminal is a tools.Terminal that does what an editor's terminal
// does: it starts the command it is given, as given, in a process group
// of its own, with its own environment under the command's (client
// implementations merge them so), and kills the group when asked.
type execTerminal struct {
	// own is the terminal's own environment, beneath the command's.
	own []string

	mu  sync.Mutex // guards ran
	ran []tools.TerminalCommand
}

func (e *execTerminal) Run(ctx context.Context, c tools.TerminalCommand) (tools.TerminalRun, error) {
	e.mu.Lock()
	e.ran = append(e.ran, c)
	e.mu.Unlock()
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = append(append([]string(nil), e.own...), c.Env...)
	cmd.Dir = c.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return tools.TerminalRun{}, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var run tools.TerminalRun
	select {
	case <-exited:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		run.Killed = true
		<-exited
	}
	run.Output = out.String()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		run.Status = tools.ExitStatus{Code: -1, Signal: int(ws.Signal()), SignalName: ws.Signal().String()}
	} else {
		run.Status = tools.ExitStatus{Code: cmd.ProcessState.ExitCode()}
	}
	return run, nil
}

func (e *execTerminal) commands() []tools.TerminalCommand {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]tools.TerminalCommand(nil), e.ran...)
}

// TestBashTerminalJailed runs commands through a terminal: what the
// terminal starts is the jail's own executable with the shell behind it,
// so the jail holds exactly as for a command Reasonix starts itself, and
// the result reads the same.
func TestBashTerminalJailed(t *testing.T) {
	t.Parallel()
	outside := realDir(t)
	private := realDir(t)
	if err := os.WriteFile(filepath.Join(private, "key"), []byte("hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := jailEnv(t, false, nil, []string{private})
	term := &execTerminal{own: []string{"REASONIX_TEST_SECRET=hunter2"}}
	env.Terminal = term
	env.HideEnv = []string{"REASONIX_TEST_SECRET"}
	tests := []struct {
		name, command string
		want          string
		blocked       bool
	}{
		{"write inside the workspace", "echo hi > f.txt && cat f.txt", "hi\nExit code: 0", false},
		{"exit code", "echo out; echo err >&2; exit 3", "out\nerr\nExit code: 3", false},
		{"a hidden variable the terminal has", `echo "[$REASONIX_TEST_SECRET]"`, "[]\nExit code: 0", false},
		{"write outside the write roots", "echo x > " + outside + "/outside", "", true},
		{"read a forbidden file", "cat $(echo " + filepath.Dir(private) + ")/" + filepath.Base(private) + "/key", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, env, "bash", map[string]any{"command": tt.command})
			if tt.blocked {
				wantBlocked(t, res)
				return
			}
			if res.Content != tt.want {
				t.Errorf("got %q, want %q", res.Content, tt.want)
			}
		})
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("a command in the terminal wrote outside the write roots: %v", entries)
	}
	ran := term.commands()
	if len(ran) != len(tests) {
		t.Fatalf("the terminal ran %d commands, want %d", len(ran), len(tests))
	}
	for _, c := range ran {
		if len(c.Args) < 2 || c.Args[0] != "__reasonix_jail__" || c.Dir != env.Root || c.OutputLimit != terminalOutputLimit {
			t.Errorf("the terminal was handed %s %q in %s (limit %d), not the jail", c.Path, c.Args, c.Dir, c.OutputLimit)
		}
		if slicesHasPrefix(c.Env, "REASONIX_TEST_SECRET=") {
			t.Errorf("the hidden variable was handed to the terminal")
		}
	}
}

func slicesHasPrefix(env []string, prefix string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, prefix) {
			return true
		}
	}
	return false
}

// TestBashTerminalJailOff: with [sandbox] bash = "off" the terminal runs
// the plain shell, as Reasonix would.
func TestBashTerminalJailOff(t *testing.T) {
	t.Parallel()
	env := jailEnv(t, false, nil, nil)
	env.Jail = nil
	term := &execTerminal{}
	env.Terminal = term
	outside := realDir(t)
	res := call(t, env, "bash", map[string]any{"command": "echo hi > " + outside + "/f.txt && echo done"})
	if res.Content != "done\nExit code: 0" {
		t.Fatalf("got %q", res.Content)
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); err != nil {
		t.Error(err)
	}
	ran := term.commands()
	if len(ran) != 1 || ran[0].Args[0] != "-c" {
		t.Errorf("the terminal ran %+v, want the plain shell", ran)
	}
}

// TestBashTerminalTimeout: the call's timeout kills the command in the
// terminal, and the result says so as for a local run.
func TestBashTerminalTimeout(t *testing.T) {
	t.Parallel()
	env := jailEnv(t, false, nil, nil)
	env.Terminal = &execTerminal{}
	res := call(t, env, "bash", map[string]any{"command": "echo started; sleep 30", "timeout_seconds": 1})
	want := "started\nTimed out after 1s; the command and its child processes were killed."
	if res.Content != want || !res.IsError {
		t.Errorf("got %q, want %q", res.Content, want)
	}
}

// failingTerminal is a terminal the client cannot provide.
type failingTerminal struct{}

func (failingTerminal) Run(context.Context, tools.TerminalCommand) (tools.TerminalRun, error) {
	return tools.TerminalRun{}, errors.New("terminal/create: no terminal here")
}

func TestBashTerminalFails(t *testing.T) {
	t.Parallel()
	env := jailEnv(t, false, nil, nil)
	env.Terminal = failingTerminal{}
	res := call(t, env, "bash", map[string]any{"command": "echo hi"})
	if !res.IsError || !strings.Contains(res.Content, "no terminal here") {
		t.Errorf("got %q", res.Content)
	}
}

// TestBashTerminalKeepsUnconfinableCommandsLocal: a jail that cannot
// confine a command started by another program never sends it to the
// terminal unconfined; it runs under Procs as without a terminal.
func TestBashTerminalKeepsUnconfinableCommandsLocal(t *testing.T) {
	needBash(t)
	t.Parallel()
	env := testEnv(t, nil)
	env.Jail = fakeJail{}
	env.Procs = newFakeHost(t, "Note: no sandbox here.")
	term := &execTerminal{}
	env.Terminal = term
	res := call(t, env, "bash", map[string]any{"command": "echo hi"})
	if res.Content != "Note: no sandbox here.\n\nhi\nExit code: 0" {
		t.Errorf("got %q", res.Content)
	}
	if ran := term.commands(); len(ran) != 0 {
		t.Errorf("the terminal ran %+v", ran)
	}
}

// TestBashTerminalEscalation: a command the jail blocked, which the user
// allows to run again outside the sandbox, runs again in the terminal as
// the plain shell.
func TestBashTerminalEscalation(t *testing.T) {
	t.Parallel()
	env := jailEnv(t, false, nil, nil)
	term := &execTerminal{}
	env.Terminal = term
	env.EscalateUnconfined = func(context.Context, string, string) bool { return true }
	outside := realDir(t)
	res := call(t, env, "bash", map[string]any{"command": "echo x > " + outside + "/x && echo written"})
	if !strings.HasPrefix(res.Content, escalatedNote) || !strings.HasSuffix(res.Content, "written\nExit code: 0") {
		t.Errorf("got %q", res.Content)
	}
	ran := term.commands()
	if len(ran) != 2 || ran[0].Args[0] != "__reasonix_jail__" || ran[1].Args[0] != "-c" {
		t.Errorf("the terminal ran %+v; want the jail, then the plain shell", ran)
	}
}
