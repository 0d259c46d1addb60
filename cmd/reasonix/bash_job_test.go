//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/agenttest"
)

// startJobRun starts reasonix run on prompt with the model at url,
// anything allowed, and returns once the job of f started and holds its
// Alive, with the run's command and the channel its result comes on.
func startJobRun(t *testing.T, f agenttest.JobFifos, url, prompt string) (*exec.Cmd, <-chan run, *os.File) {
	t.Helper()
	home, work := realTempDir(t), realTempDir(t)
	mustWrite(t, filepath.Join(home, "config.toml"), scriptedConfig(url))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := reasonixCmd(ctx, work, home, nil, "run", "--approval", "auto", prompt)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done, ended := make(chan run, 1), make(chan struct{})
	var r run
	go func() {
		// A failure to wait leaves no ProcessState: exit -1.
		_ = cmd.Wait()
		r = run{stdout: stdout.String(), stderr: stderr.String(), exit: cmd.ProcessState.ExitCode()}
		close(ended)
		done <- r
	}()
	alive := f.OpenAlive(t, ended, func() string {
		return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	})
	return cmd, done, alive
}

// TestBackgroundJobInRun: the model starts a job with run_in_background,
// reads what it printed with bash_output (the job still runs), stops it
// with kill_shell, and reads that it was killed; when the run ends, no
// process of the job is left.
func TestBackgroundJobInRun(t *testing.T) {
	f := agenttest.MakeJobFifos(t)
	const prompt = "watch the server"
	srv, url := startServer(t, f.StopScript(t, prompt, "serving-on-8080"))
	_, done, alive := startJobRun(t, f, url, prompt)
	r := <-done
	if r.exit != 0 || !strings.Contains(r.stdout, "stopped") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	agenttest.CheckJobRead(t, srv.Requests(), "serving-on-8080")
	agenttest.AssertJobGone(t, alive)
}

// TestRunEndsBackgroundJob: a run whose model never stops its job ends
// it, and every process the job started, when it ends.
func TestRunEndsBackgroundJob(t *testing.T) {
	f := agenttest.MakeJobFifos(t)
	const prompt = "start the server"
	_, url := startServer(t, f.LeaveScript(t, prompt, "serving"))
	_, done, alive := startJobRun(t, f, url, prompt)
	if r := <-done; r.exit != 0 || !strings.Contains(r.stdout, "started") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	agenttest.AssertJobGone(t, alive)
}

// TestInterruptEndsBackgroundJob: Ctrl-C while a command runs ends the
// run (130) and the job the model started before it, with every process
// the job started.
func TestInterruptEndsBackgroundJob(t *testing.T) {
	f := agenttest.MakeJobFifos(t)
	const prompt = "serve and wait"
	_, url := startServer(t, strings.Join(append(f.StartSteps(t, prompt, "serving"),
		"---",
		"match "+prompt,
		// A command that never ends by itself: nothing writes Hold.
		`call bash {"command": "cat `+f.Hold+`"}`,
	), "\n"))
	cmd, done, alive := startJobRun(t, f, url, prompt)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.exit != 130 {
		t.Fatalf("exit %d, want 130\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	agenttest.AssertJobGone(t, alive)
}
