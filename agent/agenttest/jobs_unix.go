//go:build unix

package agenttest

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// JobFifos are the FIFOs a background job of a front end's test meets,
// so that the test follows the job with no clock: the job holds alive's
// writing end open as long as any of its processes lives (reading alive
// to its end says they are all gone), tells ready once it has printed its
// line, and then waits, in a cat of its own, on hold, which nobody writes.
type JobFifos struct{ Alive, Ready, Hold string }

// MakeJobFifos makes the FIFOs in a temporary directory of their own,
// outside any workspace; the test is skipped where FIFOs cannot be made.
func MakeJobFifos(t testing.TB) JobFifos {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := JobFifos{filepath.Join(dir, "alive"), filepath.Join(dir, "ready"), filepath.Join(dir, "hold")}
	for _, p := range []string{f.Alive, f.Ready, f.Hold} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
	}
	return f
}

// Job is the background command: it prints line, tells Ready, and waits
// in a child process; every process of it holds Alive open.
func (f JobFifos) Job(line string) string {
	return "{ echo " + line + "; echo > " + f.Ready + "; cat " + f.Hold + "; } 3> " + f.Alive
}

// StartSteps are a scripted model's first steps for prompt: it starts
// the job (bg1), which prints line, and then waits, in a command of its
// own, until the job has printed it, so that a bash_output after them
// finds the line.
func (f JobFifos) StartSteps(t testing.TB, prompt, line string) []string {
	t.Helper()
	return []string{
		"match " + prompt,
		callLine(t, "bash", map[string]any{"command": f.Job(line), "run_in_background": true}),
		"---",
		"match " + prompt,
		"expect tool Started background job bg1.",
		callLine(t, "bash", map[string]any{"command": "cat " + f.Ready}),
	}
}

// StopScript is a scripted model's answers to prompt: it starts the job,
// which prints line, reads the line with bash_output while the job runs,
// stops it with kill_shell, reads that it was killed, and answers
// "stopped". CheckJobRead checks the requests it was asked.
func (f JobFifos) StopScript(t testing.TB, prompt, line string) string {
	t.Helper()
	return strings.Join(append(f.StartSteps(t, prompt, line),
		"---",
		"match "+prompt,
		`call bash_output {"id": "bg1"}`,
		"---",
		"match "+prompt,
		"expect tool "+line,
		"expect tool Still running.",
		`call kill_shell {"id": "bg1"}`,
		"---",
		"match "+prompt,
		"expect tool Stopped job bg1",
		`call bash_output {"id": "bg1"}`,
		"---",
		"match "+prompt,
		"expect tool Killed by signal",
		"text stopped",
	), "\n")
}

// CheckJobRead checks the requests StopScript was asked: the one after
// bash_output carries the job's line and says it still runs.
func CheckJobRead(t testing.TB, reqs []scripted.Request, line string) {
	t.Helper()
	if len(reqs) != 6 {
		t.Fatalf("%d requests to the model, want 6", len(reqs))
	}
	if b := reqs[3].Body; !strings.Contains(b, line) || !strings.Contains(b, "Still running.") {
		t.Errorf("the request after bash_output lacks the job's output or state:\n%s", b)
	}
}

// LeaveScript is a scripted model's answers to prompt: it starts the
// job, which prints line, and answers "started" with the job running.
func (f JobFifos) LeaveScript(t testing.TB, prompt, line string) string {
	t.Helper()
	return strings.Join(append(f.StartSteps(t, prompt, line),
		"---",
		"match "+prompt,
		"text started",
	), "\n")
}

// callLine is a scripted model's call of tool with args.
func callLine(t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return "call " + tool + " " + string(b)
}

// OpenAlive opens Alive for reading, which returns once the job holds
// its writing end; the test fails, with why(), if ended is closed first.
func (f JobFifos) OpenAlive(t testing.TB, ended <-chan struct{}, why func() string) *os.File {
	t.Helper()
	opened := make(chan *os.File, 1)
	go func() {
		r, err := os.Open(f.Alive)
		if err != nil {
			t.Error(err)
		}
		opened <- r
	}()
	select {
	case r := <-opened:
		if r == nil {
			t.FailNow()
		}
		t.Cleanup(func() { r.Close() })
		return r
	case <-ended:
		t.Fatalf("it ended before its job started: %s", why())
	}
	return nil
}

// AssertJobGone reads alive to its end, which comes once no process of
// the job is left. Called once what ran the job has ended, it fails if
// one is left behind.
func AssertJobGone(t testing.TB, alive *os.File) {
	t.Helper()
	gone := make(chan error, 1)
	go func() { _, err := io.ReadAll(alive); gone <- err }()
	select {
	case err := <-gone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		// Unblock the reader: a writer outlived what ran the job.
		alive.Close()
		t.Fatal("a process of the background job was left behind")
	}
}
