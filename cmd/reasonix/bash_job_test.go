//go:build unix

package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// jobFifos are the FIFOs a background job of a run test meets: it holds
// alive's writing end open as long as any of its processes lives, tells
// ready once it has printed its line, and then waits (in a cat of its own)
// on hold, which nobody writes.
type jobFifos struct{ alive, ready, hold string }

func makeJobFifos(t *testing.T) jobFifos {
	t.Helper()
	dir := realTempDir(t)
	f := jobFifos{filepath.Join(dir, "alive"), filepath.Join(dir, "ready"), filepath.Join(dir, "hold")}
	for _, p := range []string{f.alive, f.ready, f.hold} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
	}
	return f
}

// job is the background command: it prints line, tells ready, and waits
// in a child process; every process of it holds alive open.
func (f jobFifos) job(line string) string {
	return "{ echo " + line + "; echo > " + f.ready + "; cat " + f.hold + "; } 3> " + f.alive
}

// callLine is a scripted model's call line of tool with args.
func callLine(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return "call " + tool + " " + string(b)
}

// startRun runs reasonix like runReasonix, but returns at once with the
// channel its result arrives on.
func startRun(t *testing.T, dir, home string, args ...string) <-chan run {
	t.Helper()
	done := make(chan run, 1)
	go func() { done <- runReasonix(t, dir, home, nil, args...) }()
	return done
}

// openAlive opens alive for reading, which returns once the job holds
// its writing end, unless the run ends first.
func openAlive(t *testing.T, f jobFifos, done <-chan run) *os.File {
	t.Helper()
	opened := make(chan *os.File, 1)
	go func() {
		r, err := os.Open(f.alive)
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
		return r
	case r := <-done:
		t.Fatalf("the run ended before its job started: exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	return nil
}

// assertJobGone reads alive to its end, which comes once no process of
// the job is left; the run has ended, so one left is one it left behind.
func assertJobGone(t *testing.T, alive *os.File) {
	t.Helper()
	gone := make(chan error, 1)
	go func() { _, err := io.ReadAll(alive); gone <- err }()
	select {
	case err := <-gone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		// Unblock the reader: its writer outlived the run.
		alive.Close()
		t.Fatal("a process of the background job outlived the run")
	}
}

// startSteps are a script's first steps for prompt: the model starts
// the job, which prints line, and then waits in a command of its own
// until the job has printed it.
func (f jobFifos) startSteps(t *testing.T, prompt, line string) []string {
	t.Helper()
	return []string{
		"match " + prompt,
		callLine(t, "bash", map[string]any{"command": f.job(line), "run_in_background": true}),
		"---",
		"match " + prompt,
		"expect tool Started background job bg1.",
		callLine(t, "bash", map[string]any{"command": "cat " + f.ready}),
	}
}

// runWithJob runs reasonix on prompt with the model at url, anything
// allowed, and returns once the job started and holds alive; the run's
// result comes on done.
func (f jobFifos) runWithJob(t *testing.T, url, prompt string) (done <-chan run, alive *os.File) {
	t.Helper()
	home, work := realTempDir(t), realTempDir(t)
	mustWrite(t, filepath.Join(home, "config.toml"), scriptedConfig(url))
	done = startRun(t, work, home, "run", "--approval", "auto", prompt)
	alive = openAlive(t, f, done)
	t.Cleanup(func() { alive.Close() })
	return done, alive
}

// TestBackgroundJobInRun: the model starts a job with run_in_background,
// reads what it printed with bash_output (the job still runs), stops it
// with kill_shell, and reads that it was killed; when the run ends, no
// process of the job is left.
func TestBackgroundJobInRun(t *testing.T) {
	f := makeJobFifos(t)
	const prompt = "watch the server"
	srv, url := startServer(t, strings.Join(append(f.startSteps(t, prompt, "serving-on-8080"),
		"---",
		"match "+prompt,
		`call bash_output {"id": "bg1"}`,
		"---",
		"match "+prompt,
		"expect tool serving-on-8080",
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
	), "\n"))
	done, alive := f.runWithJob(t, url, prompt)
	r := <-done
	if r.exit != 0 || !strings.Contains(r.stdout, "stopped") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests to the model, want 6", len(reqs))
	}
	// The request after bash_output carries the job's line and its state.
	if b := reqs[3].Body; !strings.Contains(b, "serving-on-8080") || !strings.Contains(b, "Still running.") {
		t.Errorf("the request after bash_output lacks the job's output or state:\n%s", b)
	}
	assertJobGone(t, alive)
}

// TestRunEndsBackgroundJob: a run whose model never stops its job ends
// it, and every process the job started, when it ends.
func TestRunEndsBackgroundJob(t *testing.T) {
	f := makeJobFifos(t)
	const prompt = "start the server"
	_, url := startServer(t, strings.Join(append(f.startSteps(t, prompt, "serving"),
		"---",
		"match "+prompt,
		"text started",
	), "\n"))
	done, alive := f.runWithJob(t, url, prompt)
	if r := <-done; r.exit != 0 || !strings.Contains(r.stdout, "started") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	assertJobGone(t, alive)
}
