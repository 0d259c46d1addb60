//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/agenttest"
)

// startJobRun runs reasonix on prompt with the model at url, anything
// allowed, and returns once the job of f started and holds its Alive,
// with the channel the run's result comes on.
func startJobRun(t *testing.T, f agenttest.JobFifos, url, prompt string) (<-chan run, *os.File) {
	t.Helper()
	home, work := realTempDir(t), realTempDir(t)
	mustWrite(t, filepath.Join(home, "config.toml"), scriptedConfig(url))
	done, ended := make(chan run, 1), make(chan struct{})
	var r run
	go func() {
		r = runReasonix(t, work, home, nil, "run", "--approval", "auto", prompt)
		close(ended)
		done <- r
	}()
	alive := f.OpenAlive(t, ended, func() string {
		return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	})
	return done, alive
}

// TestBackgroundJobInRun: the model starts a job with run_in_background,
// reads what it printed with bash_output (the job still runs), stops it
// with kill_shell, and reads that it was killed; when the run ends, no
// process of the job is left.
func TestBackgroundJobInRun(t *testing.T) {
	f := agenttest.MakeJobFifos(t)
	const prompt = "watch the server"
	srv, url := startServer(t, f.StopScript(t, prompt, "serving-on-8080"))
	done, alive := startJobRun(t, f, url, prompt)
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
	done, alive := startJobRun(t, f, url, prompt)
	if r := <-done; r.exit != 0 || !strings.Contains(r.stdout, "started") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	agenttest.AssertJobGone(t, alive)
}
